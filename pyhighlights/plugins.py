"""Where registration modules come from: this project's, and other installed packages' (plugins).

A package adds models, parts or loss terms by declaring, in its own
``pyproject.toml``, an entry point of the group ``pyhighlights.registrations``
that names a module calling :func:`pyhighlights.registry.register`::

    [project.entry-points."pyhighlights.registrations"]
    my_rationalizers = "my_rationalizers.registrations"

Once that package is installed, ``model=<its model>`` is a choice of
``scripts/train.py`` like any other. This project declares its own
:mod:`pyhighlights.registrations` the same way, but imports it directly
(:func:`builtin_modules`): a source checkout that is not installed, or whose
installed metadata is older than its code, still has every built-in part.

Nothing here imports the registry (and so cinnamon or torch): the schema cache
key (:mod:`pyhighlights.config.catalogue`) reads the plugin list too.
"""
from __future__ import annotations

import importlib.util
import pkgutil
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

GROUP = "pyhighlights.registrations"
#: The project's own registration package (imported directly, skipped among the entry points).
BUILTIN = "pyhighlights.registrations"


class PluginError(RuntimeError):
    """A plugin's registration module failed to import or to register its parts."""


def builtin_modules() -> list[str]:
    """The modules of :mod:`pyhighlights.registrations`, by name."""
    package = importlib.import_module(BUILTIN)
    return [f"{BUILTIN}.{info.name}" for info in pkgutil.iter_modules(package.__path__)]


def _is_builtin(point: EntryPoint) -> bool:
    return point.module == BUILTIN or point.module.startswith(BUILTIN + ".")


def plugin_entry_points() -> list[EntryPoint]:
    """Every installed entry point of :data:`GROUP` but the project's own, in a stable order."""
    return sorted((point for point in entry_points(group=GROUP) if not _is_builtin(point)),
                  key=lambda point: (distribution(point), point.name))


def distribution(point: EntryPoint) -> str:
    """``name version`` of the distribution that declares ``point`` (``?`` when unknown)."""
    dist = getattr(point, "dist", None)
    return "?" if dist is None else f"{dist.name} {dist.version}"


def describe(point: EntryPoint) -> str:
    return f"plugin entry point {point.name} = {point.value!r} of {distribution(point)} (group {GROUP})"


def load(point: EntryPoint) -> None:
    """Import one plugin's registration module; any failure becomes a :class:`PluginError` naming it."""
    try:
        point.load()
    except Exception as error:  # noqa: BLE001 - whatever a plugin raises, say which plugin it was
        raise PluginError(f"{describe(point)}: {type(error).__name__}: {error}") from error


def source_files(point: EntryPoint) -> list[str]:
    """The Python files of the top-level package that holds ``point``'s module (found, not imported)."""
    top = point.module.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return sorted(str(path) for root in spec.submodule_search_locations for path in Path(root).rglob("*.py"))
    return [spec.origin] if spec.origin and spec.origin.endswith(".py") else []
