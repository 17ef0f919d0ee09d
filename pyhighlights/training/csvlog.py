"""metrics.csv that survives process boundaries and resumes.

Lightning's CSV logger deletes an existing metrics.csv whenever a process
opens it; under ``ddp_spawn`` the test stage runs in fresh processes, so the
training history was lost, and a resumed run would lose it too. This logger
adds to the file (widening the header when new columns appear), rewriting it
whole through a renamed temporary file so it is never left half-written. On resume
the rows written after the checkpoint are dropped first (see
:func:`truncate_after`), so the history equals an uninterrupted run's.
"""
from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from lightning.fabric.loggers.csv_logs import _ExperimentWriter
import lightning.pytorch as pl
from lightning.pytorch.loggers import CSVLogger
from lightning.pytorch.loggers.logger import rank_zero_experiment

from pyhighlights.atomic import replace_atomically, write_bytes_atomic

ROWS_KEY = "pyhighlights_metrics_rows"


class _AppendingWriter(_ExperimentWriter):
    def _check_log_dir_exists(self) -> None:
        if os.path.isfile(self.metrics_file_path):
            with open(self.metrics_file_path, newline="") as handle:
                self.metrics_keys = list(csv.DictReader(handle).fieldnames or [])

    def save(self) -> None:
        """Add the buffered rows, rewriting the whole file atomically: a kill or a full disk mid-write leaves the
        previous metrics.csv, never half a row (Lightning appends in place). The bytes are those Lightning
        writes: the same header, columns and row format."""
        if not self.metrics:
            return
        self._record_new_keys()
        rows: list[dict] = []
        if os.path.isfile(self.metrics_file_path):
            with open(self.metrics_file_path, newline="") as handle:
                rows = list(csv.DictReader(handle))
        rows += self.metrics

        def write(handle) -> None:
            text = io.TextIOWrapper(handle, encoding="utf-8", newline="")
            writer = csv.DictWriter(text, fieldnames=self.metrics_keys)
            writer.writeheader()
            writer.writerows(rows)
            text.flush()
            text.detach()

        replace_atomically(self.metrics_file_path, write)
        self.metrics = []


class AppendingCSVLogger(CSVLogger):
    @property
    @rank_zero_experiment
    def experiment(self) -> _AppendingWriter:
        if self._experiment is None:
            os.makedirs(self.root_dir, exist_ok=True)
            self._experiment = _AppendingWriter(log_dir=self.log_dir)
        return self._experiment

    def rows_written(self) -> int:
        """Data rows in metrics.csv once the buffered ones are flushed (rank 0; 0 elsewhere)."""
        if pl.utilities.rank_zero_only.rank != 0:
            return 0
        self.save()
        path = Path(self.log_dir) / _ExperimentWriter.NAME_METRICS_FILE
        if not path.is_file():
            return 0
        with open(path, newline="") as handle:
            return max(sum(1 for _ in csv.reader(handle)) - 1, 0)


def truncate_after(path: Path | str, rows: int) -> None:
    """Keep the header and the first ``rows`` data rows of a metrics.csv."""
    path = Path(path)
    if not path.is_file():
        return
    with open(path, newline="") as handle:
        lines = list(csv.reader(handle))
    text = io.StringIO(newline="")
    csv.writer(text).writerows(lines[:rows + 1])
    write_bytes_atomic(path, text.getvalue().encode("utf-8"))


class MetricsRowsInCheckpoint(pl.Callback):
    """Records in every checkpoint how many metrics.csv rows the run had written by then."""

    def on_save_checkpoint(self, trainer, pl_module, checkpoint):
        if isinstance(trainer.logger, AppendingCSVLogger):
            rows = trainer.logger.rows_written()
            # A checkpoint taken at a batch's end precedes that batch's own log row.
            if trainer.training and not trainer.fit_loop.epoch_loop.done \
                    and trainer._logger_connector.should_update_logs:
                rows += 1
            checkpoint[ROWS_KEY] = rows
