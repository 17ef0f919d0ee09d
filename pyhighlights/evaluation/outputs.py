"""Output folders of evaluation and explanation: never replace results silently.

Training results (``results.json``, ``predictions.jsonl``, ...) are never
written here; a re-scoring writes its own folder under the run directory and
refuses to replace an earlier one unless asked (``overwrite=true``).
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from pyhighlights.training.rundir import write_json_atomic

METRICS_FILE = "metrics.json"


class OutputExists(FileExistsError):
    """The output folder already holds metrics and overwriting was not requested."""


def slug(text: str, limit: int = 60) -> str:
    """A folder-name-safe version of ``text`` (letters, digits, ``.``, ``_``, ``-``)."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", str(text)).strip("-.")
    return cleaned[:limit] or "x"


def claim_output(directory: Path, overwrite: bool) -> Path:
    """Create ``directory``; refuse one that holds a ``metrics.json`` unless ``overwrite``."""
    directory = Path(directory)
    if (directory / METRICS_FILE).exists():
        if not overwrite:
            raise OutputExists(f"{directory} already holds {METRICS_FILE}; pass overwrite=true to replace it "
                               f"(or tag=<name> to write beside it)")
        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def write_metrics(directory: Path, payload: dict) -> Path:
    path = Path(directory) / METRICS_FILE
    write_json_atomic(path, payload)
    return path
