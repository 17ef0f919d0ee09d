"""Expose every registered configuration to Hydra (the fairseq pattern).

Each registered component's full default spec is stored in Hydra's
ConfigStore as ``schema/<kind>/<name>``; the YAML files of a config group
pull it in, so defaults live once, in the registration, and plain overrides
(``model.selector.temperature=0.5``) find every key they may change.
"""
from __future__ import annotations

from hydra.core.config_store import ConfigStore

from pyhighlights import registry
from pyhighlights.config.resolve import schema


def register_schemas() -> None:
    store = ConfigStore.instance()
    for item in registry.entries():
        store.store(group=f"schema/{item.kind}", name=item.name, node=schema(item.kind, item.name))
