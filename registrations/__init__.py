"""Registration modules: every component, under its kind and name, with its typed default configuration.

Imported by :func:`pyhighlights.registry.load_registrations`.
"""
