"""Train a list of models over a list of seeds on one corpus and tabulate them (``scripts/compare.py``).

Each model is one run directory ``<out>/<model>/`` (a normal training run:
``results.json``, ``manifest.json``, ``seed<N>/``...), trained with
``seeds=[...]`` so its ``results.json`` holds every seed. With ``quick`` (the
default) a model's ``pyhighlights/configs/experiment/quick_<model>.yaml`` is used when it
exists: the setting that converges in minutes on the synthetic corpus. Extra
Hydra overrides (``dataset=beer dataset.data_dir=...``) apply to every model.

The table (``comparison.md`` and ``comparison.csv`` in ``<out>``, the runs it
shows in ``comparison.json``) has one row per model: mean ± sample standard
deviation over seeds of test accuracy, highlight precision / recall / F1
(micro) and sparsity, in the format ``scripts/report.py`` prints; the
Markdown lists the run directory of each row. A table of other runs is never
replaced: it goes to ``comparison-2.md``, ... instead. ``--table-only``
tabulates only runs of the configuration and seeds asked for.

The models are a grid of one cell each, trained by the benchmark's runner
(:mod:`pyhighlights.benchmark.runner`, also behind ``scripts/benchmark.py``).
Runs are keyed by their resolved configuration: a model's run directory is
reused only when its manifest records the same parameters and seeds. A
finished one is not trained again, an interrupted one is resumed in place
(so the same command finishes an interrupted comparison), and a changed
override trains into a new directory ``<out>/<model>-2``, ``-3``, ... instead
of reusing results of another configuration.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from pyhighlights.benchmark.grid import Cell
from pyhighlights.benchmark.runner import plan, train_cells
from pyhighlights.config.files import CONFIG_DIR
from pyhighlights.reporting.reader import read_results
from pyhighlights.reporting.table import Row, aggregate, format_table

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


def model_cells(models: Sequence[str], seeds: Sequence[int], overrides: Sequence[str], quick: bool) -> list[Cell]:
    """One benchmark cell per model, named by the model: its run directory is ``<out>/<model>``."""
    return [Cell(name=model, model=model, overrides=model_overrides(model, seeds, overrides, quick), seeds=list(seeds))
            for model in models]


def train_models(models: Sequence[str], seeds: Sequence[int], out_dir: Path, overrides: Sequence[str] = (),
                 quick: bool = True, command: list[str] | None = None) -> dict[str, Path]:
    """Train each model (all seeds in one run directory) through the benchmark's runner (every configuration
    checked before any trains; finished runs skipped, interrupted ones resumed); return model -> run directory."""
    planned = train_cells(model_cells(models, seeds, overrides, quick), Path(out_dir), command)
    return {item.cell.model: item.run_dir for item in planned}


def tabulate(run_dirs: dict[str, Path], metrics: Sequence[str] = METRICS, digits: int = 3) -> Comparison:
    """The comparison table (Markdown and CSV) from finished run directories, one row per model, in the format
    ``scripts/report.py`` prints (:func:`pyhighlights.reporting.table.format_table`)."""
    rows: list[Row] = []
    datasets = set()
    for model, run_dir in run_dirs.items():
        sets = [s for s in read_results([run_dir], evaluation=None) if s.kind == "train"]
        for result in sets:
            result.label = model
            datasets.add(result.dataset)
        rows += aggregate(sets, list(metrics))
    dataset = ", ".join(sorted(datasets)) or "?"
    markdown = "\n".join([f"Test metrics on {dataset}: mean ± std over seeds (n = seeds).", "",
                          format_table(rows, list(metrics), "markdown", digits).rstrip("\n"), "",
                          "Run directories:", *(f"- {model}: {path}" for model, path in run_dirs.items())]) + "\n"
    return Comparison(rows, dict(run_dirs), dataset, markdown, format_table(rows, list(metrics), "csv"))


def finished_runs(models: Sequence[str], seeds: Sequence[int], out_dir: Path, overrides: Sequence[str] = (),
                  quick: bool = True) -> dict[str, Path]:
    """Model -> the finished run directory under ``out_dir`` of exactly this configuration and these seeds
    (``--table-only``); a model without one is refused, never stood in for by a run of another configuration."""
    run_dirs = {}
    for item in plan(model_cells(models, seeds, overrides, quick), Path(out_dir)):
        model, run_dir, state = item.cell.model, item.run_dir, item.state
        if state != "finished":
            given = " ".join(overrides) or "no overrides"
            raise FileNotFoundError(
                f"{out_dir}: no finished run of {model} with seeds {list(seeds)} and this configuration ({given})"
                + (f"; {run_dir} holds it unfinished" if state == "interrupted" else "")
                + "; run without --table-only to train it")
        run_dirs[model] = run_dir
    return run_dirs


def write_comparison(out_dir: Path, table: Comparison, seeds: Sequence[int]) -> tuple[Path, Path]:
    """Write the table as ``comparison.md`` / ``.csv``, with ``comparison.json`` naming the runs it shows.

    A comparison of other runs already there is never replaced: the table goes to ``comparison-2``,
    ``-3``, ... (the first that is unused or shows these same runs).
    """
    from pyhighlights.training.rundir import write_file_atomic, write_json_atomic

    record = {"runs": {model: str(path) for model, path in table.run_dirs.items()}, "seeds": list(seeds)}
    index = 1
    while True:
        stem = out_dir / ("comparison" if index == 1 else f"comparison-{index}")
        md, meta = stem.with_suffix(".md"), stem.with_suffix(".json")
        if not md.exists() and not meta.exists():
            break
        try:
            if json.loads(meta.read_text()) == record:
                break
        except (OSError, ValueError):
            pass
        index += 1
    write_file_atomic(md, table.markdown)
    write_file_atomic(stem.with_suffix(".csv"), table.csv)
    write_json_atomic(meta, record)
    return md, stem.with_suffix(".csv")


def compare(models: Sequence[str], seeds: Sequence[int], out_dir: Path, overrides: Sequence[str] = (),
            quick: bool = True, command: list[str] | None = None) -> tuple[Comparison, tuple[Path, Path]]:
    """Train (or reuse) every model's run, then write the table (see :func:`write_comparison`)."""
    out_dir = Path(out_dir)
    run_dirs = train_models(models, seeds, out_dir, overrides, quick, command)
    table = tabulate(run_dirs)
    return table, write_comparison(out_dir, table, seeds)
