"""Stopping on non-finite training, warning on divergence, checking the monitored quantity.

- :class:`NonFiniteGuard` stops training at the first non-finite loss (before
  its backward) or gradient (before the optimiser step), with the step, the
  batch's document ids and the terms that went non-finite; it saves the
  batch and the weights that produced them under ``nonfinite/``.
- :class:`DivergenceWatch` warns (and records, for results.json) when the
  epoch's training loss grows by orders of magnitude over the best epoch so
  far, or when the selector keeps every word or none for a whole epoch.
- :class:`MonitorCheck` refuses, after Lightning's validation sanity check
  and before the first training step, a ``trainer.monitor`` the model never logs.
"""
from __future__ import annotations

import dataclasses
import logging
import math
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import torch

from pyhighlights.components.selectors import Selector
from pyhighlights.config.resolve import ConfigError

log = logging.getLogger("pyhighlights")

#: Loss growth (epoch mean over the lowest epoch mean so far) reported as divergence.
DIVERGENCE_FACTOR = 100.0


class NonFiniteTraining(RuntimeError):
    """Training produced a NaN or infinite loss or gradient, or testing a missing or non-finite metric."""


def _nonfinite_names(values: dict[str, torch.Tensor]) -> list[str]:
    tensors = {name: v for name, v in values.items() if isinstance(v, torch.Tensor) and v.is_floating_point()}
    if not tensors:
        return []
    finite = torch.stack([torch.isfinite(v.detach()).all() for v in tensors.values()]).tolist()  # one sync
    return [name for name, ok in zip(tensors, finite) if not ok]


def _values(module) -> dict[str, torch.Tensor]:
    """The step's loss terms and logged values (see SPPModel.training_values); {} for other modules."""
    values = getattr(module, "training_values", None)
    if values is None:
        values = module.training_values = {}
    return values


class NonFiniteGuard(pl.Callback):
    """Stop at the first non-finite loss or gradient; ``doc_ids[i]`` names training sample ``i``."""

    def __init__(self, out_dir: Path, doc_ids: list[str]):
        self.out_dir = Path(out_dir)
        self.doc_ids = doc_ids
        self.batch = None
        self.batch_idx = -1

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.batch, self.batch_idx = batch, batch_idx
        _values(pl_module).clear()

    def on_before_backward(self, trainer, pl_module, loss):
        if not bool(torch.isfinite(loss.detach()).all()):
            terms = _nonfinite_names(_values(pl_module)) or ["the loss being backpropagated"]
            self._stop(trainer, pl_module, f"non-finite training loss ({', '.join(terms)})")

    def on_before_optimizer_step(self, trainer, pl_module, optimizer):
        if "16-mixed" in str(trainer.precision):  # the gradient scaler skips such steps by design
            return
        grads = {id(p): p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None}
        if not grads:
            return
        if bool(torch.isfinite(torch.stack(torch._foreach_norm(list(grads.values())))).all()):
            return
        names = [name for name, p in pl_module.named_parameters() if id(p) in grads
                 and not bool(torch.isfinite(grads[id(p)]).all())]
        terms = _nonfinite_names(_values(pl_module))
        what = f"non-finite gradients in {', '.join(names[:4])}{' ...' if len(names) > 4 else ''}"
        self._stop(trainer, pl_module, what + (f" (non-finite loss terms: {', '.join(terms)})" if terms else ""))

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        terms = _nonfinite_names(_values(pl_module))
        if terms:
            self._stop(trainer, pl_module, f"non-finite training values logged ({', '.join(terms)})")

    def _stop(self, trainer, pl_module, what: str) -> None:
        ids = [self.doc_ids[i] if 0 <= i < len(self.doc_ids) else str(i)
               for i in (self.batch.sample_ids.tolist() if self.batch is not None else [])]
        saved = self._save(trainer, pl_module, what, ids)
        shown = ", ".join(ids[:5]) + (f" ... ({len(ids)} documents)" if len(ids) > 5 else "")
        raise NonFiniteTraining(f"{what} at step {trainer.global_step} (epoch {trainer.current_epoch}, batch "
                                f"{self.batch_idx}); batch documents: {shown}; weights and batch saved in {saved}")

    def _save(self, trainer, pl_module, what: str, ids: list[str]) -> Path:
        from pyhighlights.atomic import replace_atomically
        from pyhighlights.training.rundir import write_json_atomic

        folder = self.out_dir / "nonfinite"
        if trainer.global_rank == 0:
            write_json_atomic(folder / "report.json", {
                "problem": what, "step": trainer.global_step, "epoch": trainer.current_epoch,
                "batch_index": self.batch_idx, "documents": ids,
                "values": {k: v.detach().float().tolist() for k, v in _values(pl_module).items()},
            })
            # Plain containers of tensors, so the file loads as data only (pyhighlights.checkpoint_file).
            batch = dataclasses.asdict(self.batch) if dataclasses.is_dataclass(self.batch) else \
                dict(vars(self.batch)) if hasattr(self.batch, "__dict__") else self.batch
            state = {"state_dict": pl_module.state_dict(), "batch": batch}
            # Weights before the failing update, and the batch: enough to replay the step.
            replace_atomically(folder / "state.pt", lambda handle: torch.save(state, handle))
        return folder


class DivergenceWatch(pl.Callback):
    """Warn when training diverges; the warnings are kept in :attr:`warnings` for results.json."""

    def __init__(self, factor: float = DIVERGENCE_FACTOR):
        self.factor = factor
        self.warnings: list[dict[str, Any]] = []
        self._losses: list[float] = []
        self._rates: list[float] = []
        self._best: tuple[int, float] | None = None  # (epoch, mean training loss), the lowest so far
        self._first: float | None = None

    def on_train_epoch_start(self, trainer, pl_module):
        self._losses, self._rates = [], []

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        values = _values(pl_module)
        if "train/loss" in values:
            self._losses.append(float(values["train/loss"].detach().float().mean()))
            if self._first is None and math.isfinite(self._losses[-1]):
                self._first = self._losses[-1]
        if "train/selection_rate" in values:
            self._rates.append(float(values["train/selection_rate"].detach().float().mean()))

    def on_train_epoch_end(self, trainer, pl_module):
        epoch = trainer.current_epoch
        finite = [v for v in self._losses if math.isfinite(v)]
        if finite:
            if self._best is None:  # the loss of the first batch, before any update
                self._best = (-1, finite[0])
            loss = sum(finite) / len(finite)
            # Floored so that a loss trained down to ~0 does not make its noise look like divergence.
            reference = max(abs(self._best[1]), 0.01 * abs(self._first), 1e-8)
            if abs(loss) > self.factor * reference:
                start = "the first batch" if self._best[0] < 0 else f"epoch {self._best[0]}"
                self._warn("loss_growth", epoch, f"training loss grew from {self._best[1]:.4g} ({start}) to "
                           f"{loss:.4g} (epoch {epoch} mean); the run is diverging (try a smaller model.lr)",
                           before=self._best[1], after=loss)
            if loss < self._best[1]:
                self._best = (epoch, loss)
        # Only a learned selector can collapse (a classifier keeps every word by design).
        selects = any(isinstance(module, Selector) for module in pl_module.modules())
        if selects and self._rates and epoch >= getattr(pl_module, "first_scored_epoch", 0):
            if max(self._rates) == 0.0 or min(self._rates) == 1.0:
                kept = "no word" if max(self._rates) == 0.0 else "every word"
                self._warn("selection_collapse", epoch, f"the selector kept {kept} in all {len(self._rates)} "
                           f"training batches of epoch {epoch} (selection rate {self._rates[0]:.3f})",
                           selection_rate=self._rates[0], batches=len(self._rates))

    def _warn(self, kind: str, epoch: int, message: str, **numbers: float) -> None:
        log.warning("warning: %s", message)
        self.warnings.append({"kind": kind, "epoch": epoch, "message": message, **numbers})


class MonitorCheck(pl.Callback):
    """Refuse a monitored quantity that validation does not log, before training starts."""

    def __init__(self, monitor: str):
        self.monitor = monitor

    def on_sanity_check_end(self, trainer, pl_module):
        logged = sorted(trainer.callback_metrics)
        if logged and self.monitor not in logged:
            raise ConfigError(f"trainer.monitor: {self.monitor!r} is not logged by model "
                              f"{type(pl_module).__name__} during validation; expected one of {', '.join(logged)}")
