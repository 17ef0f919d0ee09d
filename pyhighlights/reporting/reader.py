"""Collecting per-seed metrics from run directories.

What a path may be:

- a training run (``results.json`` + ``manifest.json``): one result set for
  its model, whose per-seed metrics are completed (and overridden) by the
  run's evaluation ``evaluation/<evaluation>/metrics.json`` when present;
  plus one result set per post-hoc method in ``explain/*/metrics.json``;
- an evaluation or explanation folder (its ``metrics.json``);
- any folder above runs (a Hydra multirun, a folder of seeds): every run
  found below it.

The same file is read once however many given paths reach it. A run that
did not finish (its status.json says running, failed or interrupted) or
whose files cannot be read is skipped and named, never dropped in silence.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyhighlights.run_files import MANIFEST_FILE, RESULTS_FILE, STATUS_FILE, read_json, read_state

METRICS_FILE = "metrics.json"
#: Files that make a folder a training run directory (results.json may be absent when it died early).
RUN_MARKERS = (RESULTS_FILE, STATUS_FILE, MANIFEST_FILE)

log = logging.getLogger("pyhighlights.reporting")


@dataclass
class ResultSet:
    """Per-seed metrics of one model or method on one dataset, from one file (or run)."""

    label: str
    kind: str  # "train", "evaluation" or "explain"
    dataset: str
    source: Path
    seeds: dict[str, dict[str, float | None]] = field(default_factory=dict)
    #: What produced the numbers, as canonical JSON (the run's parameters; a method's and its settings):
    #: sets of one label with different configurations are different table rows.
    configuration: str = ""


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def dataset_label(spec: dict[str, Any] | None) -> str:
    """``beer/aroma`` or ``beer/aroma (<data dir name>)`` from a dataset spec."""
    if not spec:
        return "?"
    label = f"{spec.get('name', '?')}/{spec.get('aspect', '?')}"
    if spec.get("data_dir"):
        label += f" ({Path(str(spec['data_dir'])).name})"
    return label


def _training_set(run: Path, evaluation: str | None) -> ResultSet:
    results = read_json(run / RESULTS_FILE)
    manifest = read_json(run / MANIFEST_FILE) if (run / MANIFEST_FILE).is_file() else {}
    parameters = manifest.get("parameters", {})
    seeds = {seed: dict(values) for seed, values in results.get("seeds", {}).items()}
    extra = run / "evaluation" / evaluation / METRICS_FILE if evaluation else None
    if extra is not None and extra.is_file():
        for seed, values in read_json(extra).get("seeds", {}).items():
            seeds.setdefault(seed, {}).update(values)
    return ResultSet(label=parameters.get("model", {}).get("name", run.name), kind="train",
                     dataset=dataset_label(parameters.get("dataset")), source=run / RESULTS_FILE, seeds=seeds,
                     configuration=canonical({"run": parameters}))


def _metrics_set(path: Path) -> ResultSet:
    payload = read_json(path)
    kind = payload.get("kind", "evaluation")
    if kind == "explain":
        label = path.parent.name
        if payload.get("model") not in (None, "classifier"):
            label += f" ({payload['model']})"
    else:
        label = payload.get("model", path.parent.name)
    # <run>/evaluation/<tag>/metrics.json, <run>/explain/<method>/metrics.json: the run's parameters count too
    manifest = path.parents[2] / MANIFEST_FILE if len(path.parents) > 2 else None
    parameters = read_json(manifest).get("parameters") if manifest is not None and manifest.is_file() else None
    settings = {key: payload.get(key) for key in ("kind", "method", "backend", "parameters", "rate", "split",
                                                  "dataset", "faithfulness_model")}
    return ResultSet(label=label, kind=kind, dataset=dataset_label(payload.get("dataset")), source=path,
                     seeds={seed: dict(values) for seed, values in payload.get("seeds", {}).items()},
                     configuration=canonical({"run": parameters, **settings}))


def _is_run(path: Path) -> bool:
    return any((path / name).is_file() for name in RUN_MARKERS)


def _why_unusable(run: Path) -> str | None:
    state = read_state(run)
    if (run / STATUS_FILE).is_file() and state != "finished":
        return f"state {state or 'unreadable'} in {STATUS_FILE}, not finished"
    if not (run / RESULTS_FILE).is_file():
        return f"no {RESULTS_FILE}"
    return None


def _sets_of_path(path: Path, evaluation: str | None, skipped: list[tuple[Path, str]]) -> list[ResultSet]:
    if path.is_file():
        path = path.parent
    try:
        if _is_run(path):
            reason = _why_unusable(path)
            if reason is not None:
                skipped.append((path, reason))
                return []
            sets = [_training_set(path, evaluation)]
            sets += [_metrics_set(p) for p in sorted((path / "explain").glob(f"*/{METRICS_FILE}"))]
            return sets
        if (path / METRICS_FILE).is_file():
            return [_metrics_set(path / METRICS_FILE)]
    except ValueError as error:  # a file that is not JSON: name it and go on
        skipped.append((path, str(error)))
        return []
    runs = sorted({p.parent for name in RUN_MARKERS for p in path.rglob(name) if _is_top_run(p.parent, path)})
    return [s for run in runs for s in _sets_of_path(run, evaluation, skipped)]


def _is_top_run(folder: Path, root: Path) -> bool:
    """Not inside another run below ``root`` (a run's seed<N>/ or evaluation/ folders are part of it)."""
    return not any(_is_run(parent) for parent in folder.parents if parent != root and root in parent.parents)


def read_results(paths: list[str | Path], evaluation: str | None = "test",
                 skipped: list[tuple[Path, str]] | None = None) -> list[ResultSet]:
    """Every result set under ``paths``, in the order given; ``evaluation=None`` ignores evaluation folders.

    Runs that are not finished or cannot be read are appended to ``skipped`` as ``(path, reason)``
    (logged as warnings when no list is given).
    """
    report = [] if skipped is None else skipped
    seen: set[Path] = set()
    out: list[ResultSet] = []
    for given in paths:
        path = Path(given).expanduser()
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or directory")
        before = len(report)
        found = _sets_of_path(path, evaluation, report)
        if not found and len(report) == before:
            raise FileNotFoundError(f"{path}: no {RESULTS_FILE} or {METRICS_FILE} here or below")
        for result in found:
            key = result.source.resolve()
            if key not in seen:
                seen.add(key)
                out.append(result)
    if skipped is None:
        for path, reason in report:
            log.warning("warning: skipped %s (%s)", path, reason)
    return out
