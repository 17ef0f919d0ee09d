"""What Hydra needs to know of the registry, as plain data, cached on disk.

The registry's configurations live beside their components, so reading them
imports torch, Lightning and every model (seconds). ``--help``, ``--cfg job``
and a refused override need only their data: each entry's default spec,
slots, part defaults, field names and the types and bounds of its plain
fields. :func:`catalogue` gives that data:

- from the live registry when this process has loaded it already (tests, a
  run that is building models; parts registered since are included);
- else from ``<cache>/schemas-<digest>.json``, where the digest is a SHA-256
  of every ``.py`` file of ``pyhighlights`` and of every installed plugin's
  package, with the plugins' names and versions (any code change, a new
  registration or an installed or removed plugin included, gives another file);
- else by loading the registry once and writing that file (atomically; a
  cache directory that cannot be written only costs the time).

The cache directory is ``$PYHIGHLIGHTS_CACHE``, else
``$XDG_CACHE_HOME/pyhighlights``, else ``~/.cache/pyhighlights``. Both ways
go through JSON, so the data are the same whichever way they came.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from pyhighlights.atomic import write_bytes_atomic

#: Bump when the layout of the cached data changes.
FORMAT = 2
#: Cached files kept per cache directory (several checkouts or versions may share one).
KEEP = 8


def cache_dir() -> Path:
    if os.environ.get("PYHIGHLIGHTS_CACHE"):
        return Path(os.environ["PYHIGHLIGHTS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pyhighlights"


def _package_dirs() -> list[Path]:
    spec = importlib.util.find_spec("pyhighlights")
    return [Path(location) for location in (spec.submodule_search_locations or [])]


@lru_cache(maxsize=None)
def source_digest() -> str:
    """SHA-256 over the path and bytes of every Python file of the code that declares the configurations:
    this project's, then each plugin's (named by its entry point and distribution version)."""
    from pyhighlights import plugins

    digest = hashlib.sha256(f"format {FORMAT}".encode())
    for root in _package_dirs():
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{root.name}/{path.relative_to(root)}\0".encode())
            digest.update(path.read_bytes())
    for point in plugins.plugin_entry_points():
        digest.update(f"{plugins.describe(point)}\0".encode())
        for path in plugins.source_files(point):
            digest.update(f"{path}\0".encode())
            digest.update(_read_bytes(Path(path)))
    return digest.hexdigest()[:32]


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:  # unreadable: loading the plugin will say why
        return b""


def cache_file() -> Path:
    return cache_dir() / f"schemas-{source_digest()}.json"


def _registry_loaded() -> bool:
    module = sys.modules.get("pyhighlights.registry")
    return bool(module is not None and module._LOADED)


def _live_entries() -> list[dict[str, Any]]:
    """The data of every registered entry, from the registry itself (loads it)."""
    from pyhighlights import registry
    from pyhighlights.config.resolve import fitting_options, schema

    out = []
    for item in registry.entries():
        configuration = item.configuration
        slots = configuration.slots() if hasattr(configuration, "slots") else {}
        defaults = configuration.default().fields
        out.append({
            "kind": item.kind,
            "name": item.name,
            "schema": schema(item.kind, item.name),
            "fields": list(configuration.model_fields),
            "slots": {slot: None if key is None else list(registry.part_of(key)) for slot, key in slots.items()},
            "part_defaults": configuration.part_defaults() if hasattr(configuration, "part_defaults") else {},
            # A configuration that accepts keys beyond its fields (the trainer) checks them itself.
            "open_keys": bool(getattr(configuration, "open_keys", False)),
            "checks": _field_checks(defaults, {slot.split(".")[0] for slot in slots}),
            # slot -> the parts that fit it as they come (--help offers only these)
            "fits": {slot: fitting_options(item.kind, item.name, slot) for slot in slots},
        })
    return json.loads(json.dumps(out))


def _field_checks(fields, slots: set[str]) -> dict[str, dict[str, Any]]:
    """Plain field -> its type, constraints and description, for the checks of ``--cfg job``."""
    from pyhighlights.config.resolve import describe_field
    from pyhighlights.config.value_checks import field_checks

    out = {}
    for name, info in fields.items():
        checks = None if name in slots else field_checks(info)
        if checks is not None:
            out[name] = {**checks, "allowed": describe_field(info)}
    return out


def _write(path: Path, entries: list[dict[str, Any]]) -> None:
    try:  # two processes writing at once: each rename is whole
        write_bytes_atomic(path, json.dumps({"format": FORMAT, "entries": entries}).encode("utf-8"))
        for old in sorted(path.parent.glob("schemas-*.json"), key=lambda p: p.stat().st_mtime)[:-KEEP]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def _read(path: Path) -> list[dict[str, Any]] | None:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT or not isinstance(payload.get("entries"), list):
        return None
    return payload["entries"]


class Catalogue:
    """Registered entries by kind and name (the data of :func:`_live_entries`)."""

    def __init__(self, entries: list[dict[str, Any]]):
        self.entries = entries
        self._by_key = {(e["kind"], e["name"]): e for e in entries}

    def entry(self, kind: str, name: str) -> dict[str, Any]:
        try:
            return self._by_key[(kind, name)]
        except KeyError:
            raise KeyError(f"no {kind} named {name!r}; available: {', '.join(self.available(kind)) or 'none'}") \
                from None

    def available(self, kind: str) -> list[str]:
        return sorted(name for k, name in self._by_key if k == kind)

    def keys(self) -> frozenset[tuple[str, str]]:
        return frozenset(self._by_key)


_LIVE: dict[frozenset, Catalogue] = {}
_CACHED: dict[Path, Catalogue] = {}


def catalogue() -> Catalogue:
    """The registry's data: live when the registry is loaded here, else cached (built and cached once)."""
    if not _registry_loaded():
        path = cache_file()
        if path not in _CACHED:  # read once per process
            entries = _read(path)
            if entries is None:
                entries = _live_entries()
                _write(path, entries)
            _CACHED[path] = Catalogue(entries)
        return _CACHED[path]
    from pyhighlights import registry

    registered = frozenset((item.kind, item.name) for item in registry.entries())
    if registered not in _LIVE:
        _LIVE.clear()
        _LIVE[registered] = Catalogue(_live_entries())
    return _LIVE[registered]
