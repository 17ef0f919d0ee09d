"""What long work prints: a bar with documents/s on a terminal, one line per epoch in a log file.

On a terminal (stderr a TTY, no ``CI`` variable) training, evaluation and
explanation show a progress bar counting documents; elsewhere (a cluster log,
CI) bars are noise. Training prints one summary line per epoch either way
(above the bar on a terminal). One name, one meaning: the *train selection
rate* is the share of training words the selector kept (averaged over the
epoch's documents), *val sparsity* the share of validation words it keeps.
"""
from __future__ import annotations

import logging
import math
import os
import sys
import time
from typing import Any

import lightning.pytorch as pl
from lightning.pytorch.callbacks import TQDMProgressBar

log = logging.getLogger("pyhighlights")


def interactive() -> bool:
    """True on a terminal, False in a log file or CI."""
    return sys.stderr.isatty() and not os.environ.get("CI")


class DocumentRate:
    """Documents per second since :meth:`start`."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self.began, self.documents = time.perf_counter(), 0

    def add(self, documents: int) -> None:
        self.documents += documents

    @property
    def per_second(self) -> float:
        elapsed = time.perf_counter() - self.began
        return self.documents / elapsed if elapsed > 0 else 0.0


def _batch_size(batch: Any) -> int:
    size = getattr(batch, "size", None)
    return int(size) if isinstance(size, int) else 0


class DocumentsProgressBar(TQDMProgressBar):
    """Lightning's bar with the documents/s of the current training epoch, test or prediction in its postfix."""

    def __init__(self, refresh_rate: int = 10) -> None:
        super().__init__(refresh_rate=refresh_rate)
        self.rate = DocumentRate()

    def on_train_epoch_start(self, trainer, *args) -> None:
        self.rate.start()
        super().on_train_epoch_start(trainer, *args)
        # Lightning's bar says "Epoch 0"; the log and the checkpoint names count from 1.
        self.train_progress_bar.set_description(f"Epoch {trainer.current_epoch + 1}/{trainer.max_epochs}")

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        self.rate.add(_batch_size(batch))
        super().on_train_batch_end(trainer, pl_module, outputs, batch, batch_idx)

    def on_test_start(self, trainer, *args) -> None:
        self.rate.start()
        super().on_test_start(trainer, *args)

    def on_test_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0) -> None:
        self.rate.add(_batch_size(batch["model"] if isinstance(batch, dict) else batch))
        self.test_progress_bar.set_postfix({"docs/s": f"{self.rate.per_second:.0f}"}, refresh=False)
        super().on_test_batch_end(trainer, pl_module, outputs, batch, batch_idx, dataloader_idx)

    def on_predict_start(self, trainer, *args) -> None:
        self.rate.start()
        super().on_predict_start(trainer, *args)

    def on_predict_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0) -> None:
        self.rate.add(_batch_size(batch))
        self.predict_progress_bar.set_postfix({"docs/s": f"{self.rate.per_second:.0f}"}, refresh=False)
        super().on_predict_batch_end(trainer, pl_module, outputs, batch, batch_idx, dataloader_idx)

    def get_metrics(self, trainer, pl_module) -> dict[str, Any]:
        metrics = {BAR_NAMES.get(name, name): value for name, value in super().get_metrics(trainer, pl_module).items()
                   if not _undefined(value)}  # a metric the split cannot give (no human highlights) is left out
        if trainer.training:
            metrics["docs/s"] = f"{self.rate.per_second:.0f}"
        return metrics


#: Names the bar shows for logged metrics whose logged name reads ambiguously.
BAR_NAMES = {"train/selection_rate": "train selection rate"}


def _undefined(value: Any) -> bool:
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _value(metrics: dict, name: str) -> float:
    value = metrics.get(name)
    return float(value) if value is not None else math.nan


def _shown(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.3f}"


class EpochSummary(pl.Callback):
    """Logs one line per training epoch (rank 0): time, mean train loss and train selection rate (over rank
    0's documents under DDP), validation accuracy, highlight F1 and sparsity.

    In a warm-up epoch (before the model's ``first_scored_epoch``: G-RAT's guider, DAR's auxiliary predictor
    train alone) the rationaliser does not train, so the line says that, with the warm-up part's loss
    (the model's ``warm_up_loss``) instead of numbers of a selector that has not moved."""

    MEANS = ("train/loss", "train/selection_rate")

    def __init__(self) -> None:
        # Also set here: a run resumed mid-epoch starts without on_train_epoch_start.
        self.on_train_epoch_start(None, None)

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        self.began = time.perf_counter()
        self.sums: dict[str, float] = {}
        self.documents: dict[str, int] = {}

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        # values are logged per step; weigh each step by its documents for the epoch mean
        size = _batch_size(batch)
        for name in (*self.MEANS, getattr(pl_module, "warm_up_loss", None)):
            value = trainer.callback_metrics.get(name) if name else None
            if value is not None and size:
                self.sums[name] = self.sums.get(name, 0.0) + float(value) * size
                self.documents[name] = self.documents.get(name, 0) + size

    def mean(self, name: str | None) -> float:
        return self.sums[name] / self.documents[name] if name in self.documents else math.nan

    def line(self, trainer, pl_module) -> str:
        head = f"epoch {trainer.current_epoch + 1}/{trainer.max_epochs}: {time.perf_counter() - self.began:.1f} s"
        first = getattr(pl_module, "first_scored_epoch", 0)
        if trainer.current_epoch < first:
            what = getattr(pl_module, "warm_up_description", "an auxiliary part trains alone")
            loss_name = getattr(pl_module, "warm_up_loss", None)
            loss = f", {loss_name.removeprefix('train/').replace('_', ' ')} {_shown(self.mean(loss_name))}" \
                if loss_name else ""
            return f"{head}, warm-up: {what}; the rationaliser is not training yet (from epoch {first + 1}){loss}"
        metrics = trainer.callback_metrics
        return (f"{head}, train loss {_shown(self.mean('train/loss'))}, "
                f"train selection rate {_shown(self.mean('train/selection_rate'))}, "
                f"val accuracy {_shown(_value(metrics, 'val/accuracy'))}, "
                f"val highlight F1 {_shown(_value(metrics, 'val/highlight_f1'))}, "
                f"val sparsity {_shown(_value(metrics, 'val/sparsity'))}")

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if not trainer.is_global_zero or trainer.sanity_checking:
            return
        from tqdm import tqdm

        with tqdm.external_write_mode(file=sys.stderr):  # above a progress bar, which is redrawn below it
            log.info("%s", self.line(trainer, pl_module))


def progress_callbacks(show_bar: bool) -> list[pl.Callback]:
    """The per-epoch line, and the bar on a terminal."""
    return [DocumentsProgressBar(), EpochSummary()] if show_bar else [EpochSummary()]


def corpus_summary(corpus) -> str:
    """One readable line about a loaded corpus (the full ``info`` stays in manifest.json)."""
    splits = corpus.info.get("splits", {})
    parts = [f"corpus {corpus.name}: {len(corpus.train)} train / {len(corpus.validation)} validation / "
             f"{len(corpus.test)} test documents", f"{corpus.num_classes} classes ({', '.join(corpus.label_names)})"]
    annotated = sum(d.highlights is not None for d in corpus.test)
    parts.append(f"{annotated} test documents with human highlights")
    truncated = sum(int(counts.get("truncated", 0)) for counts in splits.values() if isinstance(counts, dict))
    if "max_length" in corpus.info:
        parts.append(f"max_length {corpus.info['max_length']} ({truncated} truncated)")
    return ", ".join(parts)
