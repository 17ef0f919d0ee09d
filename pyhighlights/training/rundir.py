"""One run = one directory, written by rank 0, never overwritten.

Layout: results.json (per-seed metrics + mean/std summary, rewritten
atomically after each seed), manifest.json, predictions.jsonl (seed<N>/ when
several seeds run), checkpoints/, metrics.csv.
"""
from __future__ import annotations

import json
import math
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

RESULT_FILES = ("results.json", "manifest.json", "predictions.jsonl", "metrics.csv", "checkpoints")


class RunDirectoryExists(FileExistsError):
    pass


def write_json_atomic(path: Path, payload: Any) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as handle:
        json.dump(payload, handle, indent=2, sort_keys=True, default=_jsonable)
        handle.write("\n")
    os.replace(tmp, path)


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def _clean(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


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


class RunDirectory:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.seeds: dict[str, dict[str, float]] = {}

    def claim(self) -> "RunDirectory":
        """Refuse a directory that already holds an earlier run's results."""
        taken = [name for name in RESULT_FILES if (self.path / name).exists()]
        if taken:
            raise RunDirectoryExists(
                f"{self.path} already holds a run ({', '.join(taken)}); choose another hydra.run.dir "
                f"— results are never overwritten"
            )
        self.path.mkdir(parents=True, exist_ok=True)
        return self

    def seed_dir(self, seed: int, several: bool) -> Path:
        return self.path / f"seed{seed}" if several else self.path

    def add_seed(self, seed: int, metrics: dict[str, float], extra: dict[str, Any] | None = None) -> None:
        self.seeds[str(seed)] = {k: float(v) for k, v in metrics.items()}
        payload = {"seeds": {k: {m: _clean(v) for m, v in vals.items()} for k, vals in self.seeds.items()},
                   "summary": summarise(self.seeds), **(extra or {})}
        write_json_atomic(self.path / "results.json", payload)
