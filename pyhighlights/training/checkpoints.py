"""The resume checkpoint: ``checkpoints/last.ckpt``, written atomically.

What is saved when:
- at the end of every training epoch (after validation, so the best-checkpoint
  and early-stopping states are current);
- every ``every_n_steps`` optimiser steps within an epoch when that is > 0
  (Lightning stores the loop position and the training loader's position with
  it, so a resumed run skips the batches already trained on);
- on SLURM's pre-timeout signal Lightning writes ``hpc_ckpt_<n>.ckpt`` next to
  the run's outputs (see :func:`latest_checkpoint`).

The file is written under a temporary name and renamed, so a process killed
while writing leaves the previous ``last.ckpt`` intact.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Checkpoint

from pyhighlights.checkpoint_file import read_checkpoint
from pyhighlights.faults import fault_point

LAST = "last.ckpt"


class LastCheckpoint(Checkpoint):
    """Writes ``last.ckpt``.

    A :class:`~lightning.pytorch.callbacks.Checkpoint` subclass so that Lightning calls it after every
    other callback, the best-checkpoint and early-stopping ones included (it orders checkpoint callbacks
    last and calls them after the module's own epoch-end hook): the snapshot then holds this epoch's
    selection decisions, not the previous epoch's. It must be listed after the best-checkpoint callback,
    which ``trainer.checkpoint_callback`` (the first checkpoint callback) has to return.
    """

    def __init__(self, dirpath: Path | str, every_n_steps: int = 0):
        self.path = Path(dirpath) / LAST
        self.every_n_steps = every_n_steps

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if self.every_n_steps and (batch_idx + 1) % self.every_n_steps == 0 \
                and batch_idx + 1 < trainer.num_training_batches:
            self.save(trainer)

    def on_train_epoch_end(self, trainer, pl_module):
        self.save(trainer)
        fault_point("epoch_end")

    def save(self, trainer: pl.Trainer) -> None:
        temporary = self.path.with_name(f".{self.path.name}.tmp")
        if trainer.is_global_zero:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        trainer.save_checkpoint(temporary)  # every rank takes part; rank 0 writes
        if trainer.is_global_zero:
            fault_point("checkpoint_write")
            os.replace(temporary, self.path)


def _global_step(path: Path) -> int:
    return int(read_checkpoint(path, mmap=True).get("global_step", -1))


def latest_checkpoint(out_dir: Path | str) -> Path | None:
    """The checkpoint a resumed run continues from: ``checkpoints/last.ckpt`` or a newer SLURM ``hpc_ckpt_<n>.ckpt``."""
    out_dir = Path(out_dir)
    candidates = [p for p in [out_dir / "checkpoints" / LAST] if p.is_file()]
    hpc = sorted(out_dir.glob("hpc_ckpt_*.ckpt"), key=lambda p: int(re.findall(r"\d+", p.stem)[-1]))
    if hpc:
        candidates.append(hpc[-1])
    if not candidates:
        return None
    # The most training wins; on a tie the epoch-end last.ckpt (listed first) is preferred.
    return max(candidates, key=_global_step)


def _referenced(state) -> set[str]:
    """File names of the ``best_model_path`` entries anywhere in a snapshot's callback states."""
    if isinstance(state, dict):
        names = {Path(state["best_model_path"]).name} if isinstance(state.get("best_model_path"), str) \
            and state["best_model_path"] else set()
        return names.union(*(_referenced(value) for value in state.values()))
    return set()


def remove_unreferenced_best(directory: Path | str, snapshot: dict | None) -> list[Path]:
    """Delete the ``best-*.ckpt`` files in ``directory`` that the resume snapshot does not name as its best.

    A run killed after writing a new best checkpoint but before its next snapshot leaves a file the
    resumed run knows nothing of; it retrains that epoch and writes its own choice. Left behind, the
    old file would make the run directory hold two best checkpoints. ``snapshot`` None (a restart from
    the beginning) removes them all.
    """
    keep = _referenced(snapshot.get("callbacks", {})) if snapshot is not None else set()
    removed = [path for path in sorted(Path(directory).glob("best-*.ckpt")) if path.name not in keep]
    for path in removed:
        path.unlink()
    return removed
