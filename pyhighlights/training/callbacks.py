"""Callbacks that know about warm-up epochs and write run outputs."""
from __future__ import annotations

import json
from pathlib import Path

import lightning.pytorch as pl
import torch
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint


def _warming_up(trainer: pl.Trainer, module: pl.LightningModule) -> bool:
    return trainer.current_epoch < getattr(module, "first_scored_epoch", 0)


class _SkipsWarmup:
    """Mixin: the callback's epoch-end decisions only start at ``first_scored_epoch``."""

    def on_validation_end(self, trainer, pl_module):
        if not _warming_up(trainer, pl_module):
            super().on_validation_end(trainer, pl_module)

    def on_train_epoch_end(self, trainer, pl_module):
        if not _warming_up(trainer, pl_module):
            super().on_train_epoch_end(trainer, pl_module)


class WarmupAwareCheckpoint(_SkipsWarmup, ModelCheckpoint):
    """Best-checkpoint selection that ignores epochs before ``first_scored_epoch``.

    (G-RAT's guider-only epochs say nothing about the rationaliser.)
    """


class WarmupAwareEarlyStopping(_SkipsWarmup, EarlyStopping):
    """Early stopping whose patience counts from ``first_scored_epoch``."""


def check_monitors(callbacks) -> None:
    """Refuse an early stop and a checkpoint that watch different quantities."""
    monitors = {type(c).__name__: c.monitor for c in callbacks if isinstance(c, (EarlyStopping, ModelCheckpoint))
                and getattr(c, "monitor", None)}
    if len(set(monitors.values())) > 1:
        raise ValueError(f"early stopping and checkpointing must monitor the same quantity; got {monitors}")


class PredictionWriter(pl.Callback):
    """Writes ``predictions.jsonl`` from all ranks' test predictions, on rank 0."""

    def __init__(self, path: Path, doc_ids: list[str]):
        self.path = Path(path)
        self.doc_ids = doc_ids

    def on_test_epoch_end(self, trainer, pl_module):
        rows = list(pl_module.predictions)
        if trainer.world_size > 1 and torch.distributed.is_initialized():
            gathered: list = [None] * trainer.world_size
            torch.distributed.all_gather_object(gathered, rows)
            rows = [row for part in gathered for row in part]
        if trainer.global_rank != 0:
            return
        from pyhighlights.training.rundir import write_file_atomic

        rows.sort(key=lambda row: row["sample"])
        write_file_atomic(self.path, "".join(json.dumps({"id": self.doc_ids[row["sample"]], **row}) + "\n"
                                             for row in rows))
