"""One run = one directory, written by rank 0, never overwritten.

Layout (the names, and their readers, are :mod:`pyhighlights.run_files`):
status.json (the run's state: running, finished, failed, interrupted),
results.json (per-seed metrics + mean/std summary, rewritten after each
seed), manifest.json, predictions.jsonl (seed<N>/ when several seeds run),
checkpoints/, metrics.csv.

A run claims its directory by creating status.json with O_CREAT|O_EXCL, so of
two runs started into one directory exactly one proceeds, and a refused run
writes nothing there. Our files are written to a temporary file, fsynced and
renamed into place, with the permissions the umask gives (0644 usually).
"""
from __future__ import annotations

import json
import logging
import math
import os
import socket
import statistics
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pyhighlights.atomic import write_bytes_atomic
from pyhighlights.run_files import RESULTS_FILE, RUN_FILES, STATES, STATUS_FILE, read_state

log = logging.getLogger("pyhighlights")


class RunDirectoryExists(FileExistsError):
    pass


class RunDirectoryUnusable(NotADirectoryError):
    """The run directory path (or one of its parents) is a file."""


class RunWriteFailed(OSError):
    """The run could not write one of its files (a full or read-only disk, most often)."""


def write_failure(error: OSError, run_dir: Path, recorded: bool | None) -> str:
    """One line saying what could not be written and what status.json now says (``recorded``: marked failed;
    False: it could not be updated; None: the directory was never claimed)."""
    where = error.filename or run_dir
    state = {True: f"the run stopped and is marked failed in {run_dir / STATUS_FILE}",
             False: f"the run stopped; {run_dir / STATUS_FILE} could not be updated either and does not say so",
             None: "the run did not start"}[recorded]
    return f"cannot write {where}: {error.strerror or error} (is the disk full or read-only?); {state}"


def write_file_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a synced temporary file and a rename: readers see old or new, never half."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: Path, payload: Any) -> None:
    write_file_atomic(path, json.dumps(payload, indent=2, sort_keys=True, default=_jsonable) + "\n")


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def _clean(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and not math.isfinite(value)) else value


def summarise(seeds: dict[str, dict[str, float]]) -> dict[str, dict[str, float | int | None]]:
    """Mean and (sample) standard deviation of every metric over seeds; NaN values are left out."""
    names = sorted({name for values in seeds.values() for name in values})
    summary = {}
    for name in names:
        values = [v for s in seeds.values() if (v := s.get(name)) is not None and not math.isnan(v)]
        summary[name] = {
            "mean": statistics.fmean(values) if values else None,
            "std": statistics.stdev(values) if len(values) > 1 else (0.0 if values else None),
            "n": len(values),
        }
    return summary


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


class RunDirectory:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.seeds: dict[str, dict[str, float]] = {}
        self.warnings: dict[str, list[dict[str, Any]]] = {}
        self._started: str | None = None

    def check_free(self) -> "RunDirectory":
        """Refuse a path that is a file or a directory that already holds a run (before any work is done)."""
        for path in (self.path, *self.path.parents):
            if path.exists() and not path.is_dir():
                raise RunDirectoryUnusable(f"{path} is a file; the run directory {self.path} must be a directory "
                                           "(choose another hydra.run.dir)")
        taken = [name for name in RUN_FILES if (self.path / name).exists()]
        if taken:
            raise RunDirectoryExists(
                f"{self.path} already holds a run ({', '.join(taken)}); choose another hydra.run.dir "
                f"— results are never overwritten"
            )
        return self

    def claim(self, records: dict[str, str] | None = None) -> "RunDirectory":
        """Take the directory atomically; then write ``records`` (relative path -> text) into it."""
        self.check_free()
        self.path.mkdir(parents=True, exist_ok=True)
        self._started = _now()
        try:
            fd = os.open(self.path / STATUS_FILE, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            raise RunDirectoryExists(f"{self.path} was claimed by another run just now; choose another "
                                     "hydra.run.dir — results are never overwritten") from None
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(json.dumps(self._status("running"), indent=2) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException as error:
            (self.path / STATUS_FILE).unlink(missing_ok=True)  # a half-written claim would block the directory
            if isinstance(error, OSError):
                named = OSError(error.errno, error.strerror, str(self.path / STATUS_FILE))
                raise RunWriteFailed(write_failure(named, self.path, None)) from error
            raise
        try:
            for name, text in (records or {}).items():
                write_file_atomic(self.path / name, text)
        except OSError as error:
            raise RunWriteFailed(write_failure(error, self.path, self.record_end("failed", error=str(error)))) \
                from error
        return self

    def reopen(self) -> "RunDirectory":
        """Take up an unfinished run of this directory again (resume): its start time, seeds and warnings."""
        status = self.path / STATUS_FILE
        self._started = (json.loads(status.read_text()).get("started") if status.is_file() else None) or _now()
        results = self.path / RESULTS_FILE
        payload = json.loads(results.read_text()) if results.is_file() else {}
        self.seeds = {seed: {k: math.nan if v is None else v for k, v in values.items()}
                      for seed, values in payload.get("seeds", {}).items()}
        self.warnings = payload.get("warnings", {})
        return self

    def _status(self, state: str, **details: Any) -> dict[str, Any]:
        return {"state": state, "started": self._started, "updated": _now(), "pid": os.getpid(),
                "host": socket.gethostname(), **details}

    def set_state(self, state: str, **details: Any) -> None:
        if state not in STATES:
            raise ValueError(f"unknown run state {state!r}; expected one of {STATES}")
        write_json_atomic(self.path / STATUS_FILE, self._status(state, **details))

    def record_end(self, state: str, **details: Any) -> bool:
        """Record how the run ended, as far as the disk allows: False (and a logged reason) when status.json
        could not be written (a full or read-only disk), so the caller can say so."""
        try:
            self.set_state(state, **details)
        except OSError as error:
            log.error("%s: could not record the run as %s (%s); it still says %s", self.path / STATUS_FILE, state,
                      error.strerror or error, read_state(self.path) or "nothing")
            return False
        return True

    def seed_dir(self, seed: int, several: bool) -> Path:
        return self.path / f"seed{seed}" if several else self.path

    def add_seed(self, seed: int, metrics: dict[str, float], warnings: list[dict[str, Any]] | None = None) -> None:
        # Counts (best_epoch) stay integers; every other value is a float.
        self.seeds[str(seed)] = {k: v if isinstance(v, int) and not isinstance(v, bool) else float(v)
                                 for k, v in metrics.items()}
        if warnings:
            self.warnings[str(seed)] = list(warnings)
        payload = {"seeds": {k: {m: _clean(v) for m, v in vals.items()} for k, vals in self.seeds.items()},
                   "summary": summarise(self.seeds)}
        if self.warnings:
            payload["warnings"] = self.warnings
        write_json_atomic(self.path / RESULTS_FILE, payload)
