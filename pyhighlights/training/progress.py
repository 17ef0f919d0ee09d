"""What long work prints: a bar with documents/s on a terminal, one line per epoch in a log file.

On a terminal (stderr a TTY, no ``CI`` variable) training, evaluation and
explanation show a progress bar counting documents; elsewhere (a cluster log,
CI) bars are noise, so training prints one summary line per epoch instead.
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
        metrics = super().get_metrics(trainer, pl_module)
        if trainer.training:
            metrics["docs/s"] = f"{self.rate.per_second:.0f}"
        return metrics


def _value(metrics: dict, name: str) -> float:
    value = metrics.get(name)
    return float(value) if value is not None else math.nan


def _shown(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.3f}"


class EpochSummary(pl.Callback):
    """Logs one line per training epoch (rank 0): time, mean train loss (over rank 0's
    documents under DDP), validation accuracy, highlight F1 and selection rate (the
    share of validation words selected)."""

    def __init__(self) -> None:
        # Also set here: a run resumed mid-epoch starts without on_train_epoch_start.
        self.on_train_epoch_start(None, None)

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        self.began = time.perf_counter()
        self.loss_sum, self.loss_documents = 0.0, 0

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        # train/loss is logged per step; weigh each step by its documents for the epoch mean
        loss, size = trainer.callback_metrics.get("train/loss"), _batch_size(batch)
        if loss is not None and size:
            self.loss_sum += float(loss) * size
            self.loss_documents += size

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if not trainer.is_global_zero or trainer.sanity_checking:
            return
        metrics = trainer.callback_metrics
        loss = self.loss_sum / self.loss_documents if self.loss_documents else math.nan
        log.info("epoch %d/%d: %.1f s, train loss %s, val accuracy %s, val highlight F1 %s, selection rate %s",
                 trainer.current_epoch + 1, trainer.max_epochs, time.perf_counter() - self.began, _shown(loss),
                 _shown(_value(metrics, "val/accuracy")), _shown(_value(metrics, "val/highlight_f1")),
                 _shown(_value(metrics, "val/sparsity")))


def progress_callback(show_bar: bool) -> pl.Callback:
    """The bar on a terminal, the per-epoch line otherwise."""
    return DocumentsProgressBar() if show_bar else EpochSummary()


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
