"""What a run directory holds, and reading it back.

A training run writes (see :mod:`pyhighlights.training.rundir`) ``status.json``
(its state), ``results.json`` (per-seed metrics and their summary),
``manifest.json`` (its parameters, seeds, data files), ``predictions.jsonl``
(one row per test document; ``seed<N>/predictions.jsonl`` when several seeds
ran), ``metrics.csv`` and ``checkpoints/``. The readers of runs (reports,
plots, the viewer, evaluation) take the names and the parsing from here, so
they agree with the writer and with each other; nothing here imports torch.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STATUS_FILE = "status.json"
RESULTS_FILE = "results.json"
MANIFEST_FILE = "manifest.json"
PREDICTIONS_FILE = "predictions.jsonl"
METRICS_CSV = "metrics.csv"
CHECKPOINTS_DIR = "checkpoints"
#: What a run writes into its directory; any of them there means the directory holds a run.
RUN_FILES = (STATUS_FILE, RESULTS_FILE, MANIFEST_FILE, PREDICTIONS_FILE, METRICS_CSV, CHECKPOINTS_DIR)
#: The states ``status.json`` records.
STATES = ("running", "finished", "failed", "interrupted")
#: The fields of every row of ``predictions.jsonl`` (and of an explanation's ``scores.jsonl``).
PREDICTION_FIELDS = ("id", "label", "prediction", "selected", "highlight")


def read_json(path: Path | str) -> Any:
    """A JSON file's content; a missing, unreadable or malformed file raises ``ValueError`` naming it."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # ValueError: not JSON, or not UTF-8 text
        raise ValueError(f"{path}: cannot read ({error})") from None


def read_state(run: Path | str) -> str | None:
    """The recorded state of the run in ``run``, or None for a run written before states were recorded
    (or whose status file cannot be read)."""
    try:
        return json.loads((Path(run) / STATUS_FILE).read_text()).get("state")
    except (OSError, ValueError, AttributeError):
        return None


def read_jsonl(path: Path | str, required: tuple[str, ...] = PREDICTION_FIELDS) -> list[dict[str, Any]]:
    """Rows of a predictions (or scores) file; a bad line raises ``ValueError`` naming the file, line and field."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not JSON lines (not UTF-8 text: byte {error.start} is "
                         f"{error.object[error.start]:#x}); is it the file the run wrote?") from None
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}:{number}: not JSON ({error.msg})") from None
        missing = [name for name in required if name not in row] if isinstance(row, dict) else list(required)
        if not isinstance(row, dict) or missing:
            raise ValueError(f"{path}:{number}: expected an object with fields {', '.join(required)}; "
                             f"missing {', '.join(missing) or 'all'}")
        if not all(isinstance(i, int) for i in row["selected"]) or not (
                row["highlight"] is None or all(isinstance(i, int) for i in row["highlight"])):
            raise ValueError(f"{path}:{number}: 'selected' and 'highlight' must be lists of word indices")
        rows.append(row)
    return rows
