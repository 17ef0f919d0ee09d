"""Expose every registered configuration to Hydra (the fairseq pattern).

Each registered component's full default spec is stored in Hydra's
ConfigStore as ``schema/<kind>/<name>``; the YAML files of a config group
pull it in, so defaults live once, in the registration, and plain overrides
(``model.selector.temperature=0.5``) find every key they may change.
"""
from __future__ import annotations

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from pyhighlights import registry
from pyhighlights.config.resolve import schema


def register_schemas() -> None:
    store = ConfigStore.instance()
    for item in registry.entries():
        node = OmegaConf.create(schema(item.kind, item.name))
        # A configuration that accepts keys beyond its fields (the trainer: any lightning.Trainer argument)
        # checks them itself; Hydra must let `trainer.gradient_clip_val=1` through without a `+`.
        if getattr(item.configuration, "open_keys", False):
            OmegaConf.set_struct(node, False)
        store.store(group=f"schema/{item.kind}", name=item.name, node=node)
