"""Write a benchmark's table (Markdown, CSV, LaTeX, HTML), the viewer page of each finished cell and the
sparsity–F1 plot of each aspect into the benchmark's folder.

The files are ``table.md``, ``table.csv``, ``table.tex``, ``table.html`` and ``table.json`` (the run
directories the table shows). A table of other runs already there (another configuration of the same
suite) is never replaced: the new one is ``table-2.*``, ``-3``, ... (the first unused, or showing these runs).
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Sequence

from pyhighlights.benchmark.grid import Cell
from pyhighlights.benchmark.table import PaperTable, collect, csv_text, html_page, latex, markdown

log = logging.getLogger("pyhighlights")


def _stem(out_dir: Path, record: dict) -> Path:
    index = 1
    while True:
        stem = out_dir / ("table" if index == 1 else f"table-{index}")
        meta = stem.with_suffix(".json")
        if not meta.exists() and not stem.with_suffix(".md").exists():
            return stem
        try:
            if json.loads(meta.read_text()) == record:
                return stem
        except (OSError, ValueError):
            pass
        index += 1


def viewer_page_name(cell: Cell) -> str:
    return cell.name.replace("/", "__") + ".html"


def write_report(cells_and_dirs: Sequence[tuple[Cell, Path]], out_dir: Path, suite: str,
                 viewer: bool = True, plots: bool = True) -> tuple[PaperTable, dict[str, Path]]:
    """Collect and write everything; return the table and the written files by kind."""
    from pyhighlights.training.rundir import write_file_atomic, write_json_atomic

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    table = collect(cells_and_dirs, suite)
    record = {"suite": suite, "runs": {cell.name: str(run_dir) for cell, run_dir in cells_and_dirs}}
    stem = _stem(out_dir, record)
    pages = _viewer_pages(table, out_dir / "view") if viewer else {}
    written = {"md": stem.with_suffix(".md"), "csv": stem.with_suffix(".csv"), "tex": stem.with_suffix(".tex"),
               "html": stem.with_suffix(".html")}
    write_file_atomic(written["md"], markdown(table))
    write_file_atomic(written["csv"], csv_text(table))
    write_file_atomic(written["tex"], latex(table))
    write_file_atomic(written["html"], html_page(table, out_dir, pages))
    write_json_atomic(stem.with_suffix(".json"), record)
    if plots:
        written.update(_plots(table, out_dir, stem.name))
    return table, written


def _viewer_pages(table: PaperTable, folder: Path) -> dict[str, Path]:
    from pyhighlights.viewer.cli import write_viewer

    pages = {}
    for item in table.entries:
        if item.stats is None or item.cell.name in pages:
            continue
        try:
            pages[item.cell.name] = write_viewer([item.run_dir], folder / viewer_page_name(item.cell),
                                                 title=f"{table.suite}: {item.cell.name}")
        except (FileNotFoundError, ValueError) as error:  # a run without predictions: the table still links nothing
            log.warning("warning: no viewer page for %s (%s)", item.cell.name, error)
    return pages


def _plots(table: PaperTable, out_dir: Path, stem: str) -> dict[str, Path]:
    """``<stem>_sparsity_f1_<aspect>.png``: one point per model and level, ± std over seeds."""
    from pyhighlights.plots import plot_tradeoff
    from pyhighlights.reporting.reader import read_results

    written = {}
    for aspect in dict.fromkeys(a for a, _ in table.groups):
        sets = []
        several = len({lv for a, lv in table.groups if a == aspect}) > 1
        for item in table.entries:
            if item.cell.aspect != aspect or item.stats is None:
                continue
            posthoc = item.row != item.cell.model
            for result in read_results([item.source.parent], evaluation=None):
                if result.kind == ("explain" if posthoc else "train"):
                    result.label = f"{item.row} {item.level}" if several else item.row
                    sets.append(result)
        if sets:
            written[f"plot_{aspect}"] = plot_tradeoff(sets, out_dir / f"{stem}_sparsity_f1_{aspect}.png")
    return written
