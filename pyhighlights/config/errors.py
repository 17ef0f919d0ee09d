"""The error of a bad override or configuration (in its own module: the command line imports it without the registry)."""


class ConfigError(ValueError):
    """An override or configuration that names a bad field or value."""
