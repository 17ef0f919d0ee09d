"""The data series the plots draw, from a run's ``metrics.csv`` and ``predictions.jsonl``.

Lightning's CSV logger writes one row per logged training step (``train/*``
columns) and one per validation epoch (``val/*``), with empty cells for the
columns a row does not log. A training quantity's value for an epoch is the
mean over that epoch's logged steps.
"""
from __future__ import annotations

import csv
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

Series = tuple[list[int], list[float]]


def read_metrics_csv(path: str | Path) -> list[dict[str, float]]:
    """Rows of numbers, empty and NaN cells left out; a non-number names the file, line and column."""
    rows = []
    with open(path, newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle), start=2):
            values = {}
            for column, text in row.items():
                if text in ("", None):
                    continue
                try:
                    value = float(text)
                except ValueError:
                    raise ValueError(f"{path}:{number}: column {column}: expected a number, got {text!r}") from None
                if not math.isnan(value):
                    values[column] = value
            if "epoch" not in values:
                # Written by a callback straight to the logger with the step only (LearningRateMonitor): not
                # a per-epoch quantity of the plots.
                continue
            rows.append(values)
    return rows


def per_epoch(rows: list[dict[str, float]], column: str) -> Series:
    """(epochs, mean of ``column`` over each epoch's rows that hold it), epochs ascending."""
    by_epoch: dict[int, list[float]] = defaultdict(list)
    for row in rows:
        if column in row:
            by_epoch[int(row["epoch"])].append(row[column])
    epochs = sorted(by_epoch)
    return epochs, [sum(by_epoch[e]) / len(by_epoch[e]) for e in epochs]


def training_series(rows: list[dict[str, float]]) -> dict[str, dict[str, Series]]:
    """Panels of per-epoch series: ``losses``, ``selection``, ``validation`` and (G-RAT) ``annealing``."""
    columns = sorted({column for row in rows for column in row})
    loss_terms = [c for c in columns if c.startswith(("train/loss/", "val/loss/"))]
    panels = {
        "losses": {c: per_epoch(rows, c) for c in ["train/loss", "val/loss"] + loss_terms if c in columns},
        "selection": {c: per_epoch(rows, c) for c in ("train/selection_rate", "val/sparsity") if c in columns},
        "validation": {c: per_epoch(rows, c) for c in ("val/highlight_f1", "val/accuracy") if c in columns},
        "annealing": {c: per_epoch(rows, c) for c in ("train/annealing",) if c in columns},
    }
    return {name: series for name, series in panels.items() if series}


def sparsity_target(model_spec: dict[str, Any] | None) -> float | None:
    """The selection-rate target of a model's sparsity loss, if it has one."""
    losses = (model_spec or {}).get("losses") or {}
    target = (losses.get("sparsity") or {}).get("target") if isinstance(losses, dict) else None
    return float(target) if target is not None else None


def highlight_positions(rows: list[dict[str, Any]], bins: int = 10) -> dict[str, list[float]]:
    """Share of the human and of the model's highlighted words falling in each tenth (by default) of a document.

    A word at index i of an n-word document lies at relative position
    (i + 0.5) / n. Documents without words, or without a human highlight for
    the human series, are left out.
    """
    counts = {"human": [0] * bins, "model": [0] * bins}
    for row in rows:
        n = len(row.get("words") or [])
        if not n:
            continue
        for name, indices in (("human", row.get("highlight") or []), ("model", row["selected"])):
            for i in indices:
                counts[name][min(int((i + 0.5) / n * bins), bins - 1)] += 1
    return {name: [c / sum(values) if sum(values) else 0.0 for c in values] for name, values in counts.items()}
