"""The error of a bad override or configuration (in its own module: the command line imports it without the registry)."""


class ConfigError(ValueError):
    """An override or configuration that names a bad field or value."""


def describe_errors(errors: list[dict], path: str, allowed: dict[str, str]) -> str:
    """pydantic's errors of one component at ``path`` in one line: field, message, the value given and what
    the field allows (``allowed``: field -> description); shared by validation and the cached checks."""
    lines = []
    for item in errors:
        field_name = ".".join(str(part) for part in item["loc"])
        described = allowed.get(str(item["loc"][0]), "") if item["loc"] else ""
        lines.append(f"{path}.{field_name}: {item['msg']} (got {item.get('input')!r}; allowed: {described})")
    return "; ".join(lines)
