"""Wall-clock markers for ``benchmarks/run_phases.py``: ``PYHIGHLIGHTS_PHASE_LOG=<file>``.

When the variable is set, the trainer gets :class:`PhaseMarks`, which appends one line
``<event> <time.time()> <CPU seconds of this process>`` to the file at the first training
batch's start and at the last training batch's end (written when training ends, then
``train_end``: the last validation lies between the two); training/run.py marks ``fit_end``,
``test_end``, ``plots_end`` and ``run_end`` with :func:`mark`. Unset (the normal case), no callback is
added and :func:`mark` only reads the variable.
"""
from __future__ import annotations

import os
import resource
import time

import lightning.pytorch as pl

VARIABLE = "PYHIGHLIGHTS_PHASE_LOG"


def now() -> tuple[float, float]:
    """Wall time and this process's CPU seconds (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return time.time(), usage.ru_utime + usage.ru_stime


def mark(event: str, at: tuple[float, float] | None = None) -> None:
    """Append ``event`` at ``at`` (default: now) to the file the variable names; nothing when it is unset."""
    path = os.environ.get(VARIABLE)
    if path:
        wall, cpu = now() if at is None else at
        with open(path, "a", encoding="utf-8") as file:
            file.write(f"{event} {wall:.6f} {cpu:.6f}\n")


class PhaseMarks(pl.Callback):
    """Marks the first training batch's start and, once training ends, the last training batch's end."""

    def __init__(self) -> None:
        self.started = False
        self.last_end: tuple[float, float] | None = None

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if not self.started:
            self.started = True
            mark("first_train_batch_start")

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        self.last_end = now()

    def on_train_end(self, trainer, pl_module) -> None:
        if self.last_end is not None:
            mark("last_train_batch_end", self.last_end)
            mark("train_end")
