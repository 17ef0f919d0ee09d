"""This project's registration modules: every component, under its kind and name, with its typed default
configuration.

Imported, module by module, by :func:`pyhighlights.registry.load_registrations`; other packages add theirs
through an entry point (:mod:`pyhighlights.plugins`).
"""
