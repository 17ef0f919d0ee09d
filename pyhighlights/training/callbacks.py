"""Callbacks that know about warm-up epochs and write run outputs."""
from __future__ import annotations

import json
from pathlib import Path

import lightning.pytorch as pl
import torch
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint

from pyhighlights.faults import fault_point


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


def counted_from_one(epoch: int) -> int:
    """The epoch number a user reads (the log's ``epoch N/M``, ``best-epoch=N.ckpt``, the plots, results.json's
    ``best_epoch``): Lightning's ``current_epoch`` counts from 0."""
    return int(epoch) + 1


class WarmupAwareCheckpoint(_SkipsWarmup, ModelCheckpoint):
    """Best-checkpoint selection that ignores epochs before ``first_scored_epoch``.

    (G-RAT's guider-only epochs say nothing about the rationaliser.) ``{epoch}`` in its file name counts
    from 1, as the run's log does. ``ties="latest"``: an epoch equal to the best so far replaces it (with one
    kept checkpoint), so of the epochs at a saturated validation accuracy the most trained one is tested.
    """

    def __init__(self, *args, ties: str = "earliest", **kwargs):
        if ties not in ("earliest", "latest"):
            raise ValueError(f"checkpoint ties: expected earliest or latest, got {ties!r}")
        super().__init__(*args, **kwargs)
        if ties == "latest" and self.save_top_k != 1:
            # with several kept checkpoints an equal epoch has no single one to replace
            raise ValueError(f"checkpoint ties=latest: needs save_top_k=1 (one best checkpoint), got {self.save_top_k}")
        self.ties = ties

    def check_monitor_top_k(self, trainer, current=None):
        # Lightning replaces the kept checkpoint only on a strict improvement; "latest" adds equality to it
        tie = (self.ties == "latest" and current is not None and bool(self.best_k_models)
               and bool(current == self.best_k_models[self.kth_best_model_path]))
        return trainer.strategy.reduce_boolean_decision(True) if tie else super().check_monitor_top_k(trainer, current)

    def format_checkpoint_name(self, metrics, filename=None, ver=None, prefix=None):
        if "epoch" in metrics:
            metrics = {**metrics, "epoch": counted_from_one(metrics["epoch"])}
        return super().format_checkpoint_name(metrics, filename=filename, ver=ver, prefix=prefix)


class WarmupAwareEarlyStopping(_SkipsWarmup, EarlyStopping):
    """Early stopping whose patience counts from ``first_scored_epoch``."""


class BandSelection:
    """The G-RAT reference's model-selection rule (run_guide.py), epoch by epoch.

    An epoch is kept when its dev accuracy beats the previous scored epoch's
    (the first one must beat ``floor``) and its dev selection rate lies strictly
    inside (s - band, s + band). The comparison is with the previous epoch,
    not the best so far, so a later kept epoch replaces an earlier, better one.
    """

    def __init__(self, target: float, band: float = 0.035, floor: float = 0.8):
        self.target, self.band = target, band
        self.previous = floor

    def keep(self, accuracy: float, rate: float) -> bool:
        kept = accuracy > self.previous and self.target - self.band < rate < self.target + self.band
        self.previous = accuracy
        return kept

    def state_dict(self) -> dict:
        return {"previous": self.previous}

    def load_state_dict(self, state: dict) -> None:
        self.previous = state["previous"]


class _RuleCheckpoint(ModelCheckpoint):
    """Keeps one checkpoint: the last epoch ``self.rule.keep(*values)`` kept, the values read from the logged
    ``self.keys`` after validation (guider-only epochs ignored)."""

    keys: tuple[str, ...]

    def __init__(self, *, dirpath):
        super().__init__(dirpath=dirpath, filename="best-{epoch}", monitor=None, save_top_k=1)
        self.kept_epochs: list[int] = []

    def on_validation_end(self, trainer, pl_module):
        if trainer.sanity_checking or _warming_up(trainer, pl_module):
            return
        metrics = trainer.callback_metrics
        missing = [k for k in self.keys if k not in metrics]
        if missing:
            raise KeyError(f"trainer.selection: the model logs no {missing}; logged: {sorted(metrics)}")
        if not self.rule.keep(*(float(metrics[k]) for k in self.keys)):
            return
        previous = self.best_model_path
        path = str(Path(self.dirpath) / f"best-epoch={counted_from_one(trainer.current_epoch)}.ckpt")
        self._save_checkpoint(trainer, path)
        self.best_model_path = path
        self.kept_epochs.append(trainer.current_epoch)
        if previous and previous != path:
            self._remove_checkpoint(trainer, previous)

    def on_train_epoch_end(self, trainer, pl_module):
        pass  # decisions are taken after validation only

    def state_dict(self):
        return {**super().state_dict(), "rule": self.rule.state_dict(), "kept_epochs": self.kept_epochs}

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        if "rule" in state_dict:
            self.rule.load_state_dict(state_dict["rule"])
        self.kept_epochs = list(state_dict.get("kept_epochs", []))


class BandSelectionCheckpoint(_RuleCheckpoint):
    """Keeps the last epoch :class:`BandSelection` kept.

    The reference measures accuracy as the macro-averaged per-class accuracy
    (``val/balanced_accuracy`` here) and the rate as the mean per-document
    selection rate (``val/sparsity_per_document``).
    """

    def __init__(self, *, dirpath, target: float, band: float = 0.035, floor: float = 0.8,
                 accuracy: str = "val/balanced_accuracy", rate: str = "val/sparsity_per_document"):
        super().__init__(dirpath=dirpath)
        self.rule = BandSelection(target, band, floor)
        self.keys = (accuracy, rate)

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        if "previous_accuracy" in state_dict:  # written before the rule kept its own state
            self.rule.previous = state_dict["previous_accuracy"]


class FeasibleSelection:
    """The best feasible epoch of a constrained run: the best monitored value among the epochs whose dev
    selection rate lies within ``target +- tolerance``.

    A constrained optimiser's iterates oscillate around the constraint, so the
    last or the overall best iterate need not satisfy it; keeping the best
    feasible iterate is the usual remedy (Cotter, Jiang and Sridharan, ALT 2019,
    *Two-Player Games for Efficient Non-Convex Constrained Optimization*).
    Until an epoch is feasible, the one with the smallest violation
    ``max(0, |rate - target| - tolerance)`` is kept, so a run always has a checkpoint.
    """

    def __init__(self, target: float, tolerance: float = 0.005, mode: str = "min"):
        if mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max', got {mode!r}")
        self.target, self.tolerance, self.sign = target, tolerance, 1.0 if mode == "min" else -1.0
        self.best: tuple[float, float] | None = None

    def violation(self, rate: float) -> float:
        return max(0.0, abs(rate - self.target) - self.tolerance)

    def keep(self, monitored: float, rate: float) -> bool:
        key = (self.violation(rate), self.sign * monitored)
        if key[1] != key[1]:  # NaN monitored: only ever kept for a smaller violation
            key = (key[0], float("inf"))
        if self.best is not None and key >= tuple(self.best):
            return False
        self.best = key
        return True

    def state_dict(self) -> dict:
        return {"best": None if self.best is None else list(self.best)}

    def load_state_dict(self, state: dict) -> None:
        self.best = None if state.get("best") is None else tuple(state["best"])


class FeasibleCheckpoint(_RuleCheckpoint):
    """Keeps the epoch :class:`FeasibleSelection` chooses; the rate is ``val/sparsity``, the quantity the
    test reports as ``test/sparsity``."""

    def __init__(self, *, dirpath, target: float, monitor: str = "val/loss", mode: str = "min",
                 tolerance: float = 0.005, rate: str = "val/sparsity"):
        super().__init__(dirpath=dirpath)
        self.rule = FeasibleSelection(target, tolerance, mode)
        self.keys = (monitor, rate)


def check_monitors(callbacks) -> None:
    """Refuse an early stop and a checkpoint that watch different quantities."""
    monitors = {type(c).__name__: c.monitor for c in callbacks if isinstance(c, (EarlyStopping, ModelCheckpoint))
                and getattr(c, "monitor", None)}
    if len(set(monitors.values())) > 1:
        raise ValueError(f"early stopping and checkpointing must monitor the same quantity; got {monitors}")


class PredictionWriter(pl.Callback):
    """Writes ``predictions.jsonl`` from all ranks' test predictions, on rank 0.

    With ``words``, each row also carries its document's words, so a run can be
    read (e.g. by the HTML viewer) without reloading the corpus.
    """

    def __init__(self, path: Path, doc_ids: list[str], words: list[list[str]] | None = None):
        self.path = Path(path)
        self.doc_ids = doc_ids
        self.words = words

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
        lines = []
        for row in rows:
            record = {"id": self.doc_ids[row["sample"]], **row}
            if self.words is not None:
                record["words"] = self.words[row["sample"]]
            lines.append(json.dumps(record) + "\n")
        write_file_atomic(self.path, "".join(lines))
        fault_point("predictions")


class FaultPoints(pl.Callback):
    """The training-loop events of :mod:`pyhighlights.faults` (a test hook; added only when asked for)."""

    def on_train_epoch_start(self, trainer, pl_module):
        fault_point("epoch_start")

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        fault_point("train_batch")

    def on_test_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0):
        fault_point("test_batch")
