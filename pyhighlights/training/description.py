"""What makes a checkpoint self-describing: the run's configuration and how to encode text.

Every checkpoint a run writes (``best-*.ckpt``, ``last.ckpt``, SLURM's
``hpc_ckpt_*.ckpt``) carries, under :data:`KEY`, the validated specs of every
config section, the class names, the backbone's runtime arguments (tensors by
shape only: their values are among the weights) and the text encoder's
description (the vocabulary itself, or the tokenizer's directory), so
:func:`pyhighlights.load` rebuilds the model without the training corpus.
Plain types only, so the checkpoint still loads with ``weights_only=True``.
"""
from __future__ import annotations

from typing import Any

import lightning.pytorch as pl

KEY = "pyhighlights"
FORMAT = 1


def describe(specs: dict[str, dict], label_names: list[str], text_encoder, backbone_factory) -> dict[str, Any]:
    """The description of a model built from ``specs`` with ``backbone_factory``, reading ``text_encoder``'s ids."""
    return {"format": FORMAT, "specs": specs, "label_names": list(label_names),
            "backbone_runtime": backbone_factory.describe(), "text_encoder": text_encoder.describe()}


class ModelDescription(pl.Callback):
    """Adds the description to every checkpoint the trainer saves."""

    def __init__(self, description: dict[str, Any]):
        self.description = description

    def on_save_checkpoint(self, trainer, pl_module, checkpoint: dict[str, Any]) -> None:
        checkpoint[KEY] = self.description
