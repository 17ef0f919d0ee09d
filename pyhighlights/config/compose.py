"""Compose the training config from Python (tests, notebooks), as the CLI would."""
from __future__ import annotations

from collections.abc import Sequence

from hydra import compose, initialize_config_dir
from omegaconf import DictConfig

from pyhighlights.config.files import CONFIG_DIR


def compose_config(overrides: Sequence[str] = (), config_name: str = "train") -> DictConfig:
    """The composed config for ``overrides`` (e.g. ``["model=grat", "trainer.max_epochs=2"]``)."""
    from pyhighlights.config.hydra_schema import group_overrides, register_schemas

    register_schemas()
    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name, overrides=group_overrides(overrides))
