"""Train a list of models over a list of seeds on one corpus and tabulate them (``scripts/compare.py``).

Each model is one run directory ``<out>/<model>/`` (a normal training run:
``results.json``, ``manifest.json``, ``seed<N>/``...), trained with
``seeds=[...]`` so its ``results.json`` holds every seed. With ``quick`` (the
default) a model's ``pyhighlights/configs/experiment/quick_<model>.yaml`` is used when it
exists: the setting that converges in minutes on the synthetic corpus. Extra
Hydra overrides (``dataset=beer dataset.data_dir=...``) apply to every model.

The table (``comparison.md`` and ``comparison.csv`` in ``<out>``) has one row
per model: mean ± sample standard deviation over seeds of test accuracy,
highlight precision / recall / F1 (micro) and sparsity, and the run
directory the row came from.

Runs are keyed by their resolved configuration: a model's run directory is
reused only when its manifest records the same parameters and seeds. A
finished one is not trained again, an interrupted one is resumed in place
(so the same command finishes an interrupted comparison), and a changed
override trains into a new directory ``<out>/<model>-2``, ``-3``, ... instead
of reusing results of another configuration.
"""
from __future__ import annotations

import csv
import io
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from pyhighlights.cli.common import CONFIG_DIR
from pyhighlights.reporting.reader import read_results
from pyhighlights.reporting.table import Row, aggregate

log = logging.getLogger("pyhighlights")

METRICS = ("accuracy", "highlight_precision", "highlight_recall", "highlight_f1", "sparsity")


@dataclass
class Comparison:
    rows: list[Row]
    run_dirs: dict[str, Path]
    dataset: str
    markdown: str
    csv: str


def quick_experiment(model: str) -> str | None:
    """``quick_<model>`` when ``pyhighlights/configs/experiment/quick_<model>.yaml`` exists."""
    name = f"quick_{model}"
    return name if (CONFIG_DIR / "experiment" / f"{name}.yaml").is_file() else None


def model_overrides(model: str, seeds: Sequence[int], overrides: Sequence[str], quick: bool) -> list[str]:
    experiment = quick_experiment(model) if quick else None
    return [f"model={model}", *([f"experiment={experiment}"] if experiment else []), *overrides,
            f"seeds=[{','.join(str(s) for s in seeds)}]"]


def _seeds_done(run_dir: Path) -> set[str]:
    results = run_dir / "results.json"
    return set(json.loads(results.read_text()).get("seeds", {})) if results.is_file() else set()


def _recorded(run_dir: Path) -> tuple[Any, Any] | None:
    """(parameters, seeds) from a run directory's manifest; None without one."""
    manifest = run_dir / "manifest.json"
    if not manifest.is_file():
        return None
    recorded = json.loads(manifest.read_text())
    return recorded.get("parameters"), recorded.get("seeds")


def run_directory(out_dir: Path, model: str, specs: dict[str, Any], seeds: Sequence[int]) -> tuple[Path, str]:
    """The directory for this model's configuration and its state: ``new``, ``finished`` or ``interrupted``.

    ``<out>/<model>`` first, then ``<model>-2``, ``-3``, ...: the first whose
    manifest records exactly these parameters and seeds, else the first unused name.
    """
    # Through JSON, as the manifest stored them (tuples become lists, paths strings).
    wanted = (json.loads(json.dumps(specs, default=str)), list(seeds))
    index = 1
    while True:
        run_dir = out_dir / (model if index == 1 else f"{model}-{index}")
        if not run_dir.exists():
            return run_dir, "new"
        if _recorded(run_dir) == wanted:
            done = {str(s) for s in seeds} <= _seeds_done(run_dir)
            return run_dir, "finished" if done else "interrupted"
        index += 1


def train_models(models: Sequence[str], seeds: Sequence[int], out_dir: Path, overrides: Sequence[str] = (),
                 quick: bool = True, command: list[str] | None = None) -> dict[str, Path]:
    """Train each model (all seeds in one run directory); return model -> run directory."""
    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import resolve_specs, run
    from pyhighlights.training.warmup import check_warmup

    out_dir = Path(out_dir)
    # Validate every model's configuration before training any: a typo fails in seconds, not hours.
    configs, specs = {}, {}
    for model in models:
        cfg = compose_config(model_overrides(model, seeds, overrides, quick))
        resolved = resolve_specs(cfg)
        check_warmup(resolved.model, resolved.trainer)
        specs[model] = resolved.as_dict()
        configs[model] = cfg
    run_dirs = {}
    for model in models:
        run_dir, state = run_directory(out_dir, model, specs[model], seeds)
        run_dirs[model] = run_dir
        if state == "finished":
            log.info("%s: %s already holds seeds %s of this configuration; not training it again",
                     model, run_dir, list(seeds))
            continue
        log.info("%s: %s seeds %s in %s (%s)", model, "resuming" if state == "interrupted" else "training",
                 list(seeds), run_dir, " ".join(model_overrides(model, seeds, overrides, quick)))
        run(configs[model], run_dir, command=(command or []) + [f"# model={model}"],
            resume=state == "interrupted")
    return run_dirs


def tabulate(run_dirs: dict[str, Path], metrics: Sequence[str] = METRICS, digits: int = 3) -> Comparison:
    """The comparison table (Markdown and CSV) from finished run directories, one row per model."""
    rows: list[Row] = []
    datasets = set()
    for model, run_dir in run_dirs.items():
        sets = [s for s in read_results([run_dir], evaluation=None) if s.kind == "train"]
        for result in sets:
            result.label = model
            datasets.add(result.dataset)
        rows += aggregate(sets, list(metrics))
    dataset = ", ".join(sorted(datasets)) or "?"
    return Comparison(rows, dict(run_dirs), dataset, _markdown(rows, run_dirs, metrics, dataset, digits),
                      _csv(rows, run_dirs, metrics))


def _markdown(rows, run_dirs, metrics, dataset, digits) -> str:
    lines = [f"Test metrics on {dataset}: mean ± std over seeds (n = seeds).", "",
             "| model | n | " + " | ".join(metrics) + " | run directory |",
             "|---|---:|" + "---:|" * len(metrics) + "---|"]
    for row in rows:
        cells = []
        for metric in metrics:
            cell = row.cell(metric)
            cells.append("–" if cell.mean is None else f"{cell.mean:.{digits}f} ± {cell.std:.{digits}f}")
        lines.append(f"| {row.label} | {row.runs} | " + " | ".join(cells) + f" | {run_dirs[row.label]} |")
    return "\n".join(lines) + "\n"


def _csv(rows, run_dirs, metrics) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["model", "n"] + [f"{m}_{stat}" for m in metrics for stat in ("mean", "std")] + ["run_dir"])
    for row in rows:
        values = []
        for metric in metrics:
            cell = row.cell(metric)
            values += ["" if cell.mean is None else repr(cell.mean), "" if cell.std is None else repr(cell.std)]
        writer.writerow([row.label, row.runs, *values, str(run_dirs[row.label])])
    return out.getvalue()


def compare(models: Sequence[str], seeds: Sequence[int], out_dir: Path, overrides: Sequence[str] = (),
            quick: bool = True, command: list[str] | None = None) -> Comparison:
    """Train (or reuse) every model's run, then write ``comparison.md`` and ``comparison.csv`` in ``out_dir``."""
    out_dir = Path(out_dir)
    run_dirs = train_models(models, seeds, out_dir, overrides, quick, command)
    table = tabulate(run_dirs)
    (out_dir / "comparison.md").write_text(table.markdown)
    (out_dir / "comparison.csv").write_text(table.csv)
    return table
