"""Output folders of evaluation and explanation: never replace results silently.

Training results (``results.json``, ``predictions.jsonl``, ...) are never
written here; a re-scoring writes its own folder under the run directory and
refuses to replace an earlier one unless asked (``overwrite=true``).
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from pyhighlights.training.rundir import write_json_atomic

METRICS_FILE = "metrics.json"


class OutputExists(FileExistsError):
    """The output folder already holds metrics and overwriting was not requested."""


def slug(text: str, limit: int = 60) -> str:
    """A folder-name-safe version of ``text`` (letters, digits, ``.``, ``_``, ``-``)."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", str(text)).strip("-.")
    return cleaned[:limit] or "x"


def check_output(directory: Path, overwrite: bool) -> Path:
    """Refuse a folder that already holds a ``metrics.json`` unless ``overwrite`` (nothing is deleted yet)."""
    directory = Path(directory)
    if (directory / METRICS_FILE).exists() and not overwrite:
        raise OutputExists(f"{directory} already holds {METRICS_FILE}; pass overwrite=true to replace it "
                           f"(or tag=<name> to write beside it)")
    return directory


@contextmanager
def staged_output(directory: Path, overwrite: bool):
    """Yield a scratch folder beside ``directory``; on success it replaces ``directory`` in one rename.

    An earlier output is removed only once the new one is complete, so a
    failed or interrupted re-run leaves it intact; on failure the scratch
    folder is deleted.
    """
    directory = check_output(directory, overwrite)
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", suffix=".partial", dir=directory.parent))
    try:
        yield staging
        check_output(directory, overwrite)  # a concurrent run may have written it meanwhile
        if directory.exists():
            shutil.rmtree(directory)
        os.replace(staging, directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_metrics(directory: Path, payload: dict) -> Path:
    path = Path(directory) / METRICS_FILE
    write_json_atomic(path, payload)
    return path
