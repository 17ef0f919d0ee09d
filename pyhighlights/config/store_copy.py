"""Hydra's ConfigStore is not copied at every composition.

Each composition wraps the config repository in a caching copy made with
``copy.deepcopy``; the repository's structured-config source holds the
ConfigStore singleton, so every composition deep-copied every generated
entry (every registered part's schema and group options): about half of
each composition's CPU time, and a training run composes three times.
The copy exists so that re-initialising the copy's sources leaves the
original's alone; that replaces the sources without touching the store,
and :meth:`ConfigStore.load` hands out a deep copy of the entry it loads,
so sharing the one store changes nothing a composition sees.
"""
from __future__ import annotations

from hydra.core.config_store import ConfigStore


def _same_store(self: ConfigStore, memo: dict) -> ConfigStore:
    return self


def share_store_on_copy() -> None:
    """Make ``copy.deepcopy`` of the ConfigStore return the store itself (the singleton stays one)."""
    ConfigStore.__deepcopy__ = _same_store
