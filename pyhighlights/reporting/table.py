"""Mean ± standard deviation tables over result sets, in Markdown, LaTeX or CSV.

Result sets with the same label and dataset form one row; their seeds are
pooled, so three one-seed runs and one three-seed run give the same row.
The standard deviation is the sample one (n − 1), 0 for a single value,
like ``results.json``'s summary. Missing and NaN values are left out of a
cell's statistics; a cell with none shows ``–`` (empty in CSV).
"""
from __future__ import annotations

import csv
import io
import math
import statistics
from dataclasses import dataclass, field

from pyhighlights.reporting.reader import ResultSet

FORMATS = ("markdown", "latex", "csv")
DEFAULT_METRICS = ("accuracy", "highlight_f1", "auprc", "comprehensiveness", "sufficiency", "sparsity")


@dataclass
class Cell:
    mean: float | None
    std: float | None
    n: int


@dataclass
class Row:
    label: str
    dataset: str
    runs: int
    values: dict[str, list[float]] = field(default_factory=dict)

    def cell(self, metric: str) -> Cell:
        values = self.values.get(metric, [])
        if not values:
            return Cell(None, None, 0)
        return Cell(statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0, len(values))


def metric_key(metric: str, split: str) -> str:
    """``highlight_f1`` -> ``test/highlight_f1``; a name with a ``/`` is taken as it is."""
    return metric if "/" in metric else f"{split}/{metric}"


def aggregate(sets: list[ResultSet], metrics: list[str], split: str = "test") -> list[Row]:
    """One row per (label, dataset), in order of first appearance, with every seed's value of each metric."""
    rows: dict[tuple[str, str], Row] = {}
    for result in sets:
        row = rows.setdefault((result.label, result.dataset), Row(result.label, result.dataset, 0))
        row.runs += len(result.seeds)
        for values in result.seeds.values():
            for metric in metrics:
                value = values.get(metric_key(metric, split))
                if value is not None and not math.isnan(value):
                    row.values.setdefault(metric, []).append(float(value))
    return list(rows.values())


def _number(cell: Cell, digits: int, plus_minus: str, dash: str) -> str:
    if cell.mean is None:
        return dash
    return f"{cell.mean:.{digits}f}{plus_minus}{cell.std:.{digits}f}"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def format_table(rows: list[Row], metrics: list[str], fmt: str = "markdown", digits: int = 3) -> str:
    """The table as text; a ``dataset`` column appears when the rows span several datasets."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    with_dataset = len({row.dataset for row in rows}) > 1
    head = ["model / method"] + (["dataset"] if with_dataset else []) + ["n"]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["row"] + (["dataset"] if with_dataset else []) + ["n"]
                        + [f"{m}_{stat}" for m in metrics for stat in ("mean", "std")])
        for row in rows:
            cells = [row.cell(m) for m in metrics]
            writer.writerow([row.label] + ([row.dataset] if with_dataset else []) + [row.runs]
                            + [x for c in cells for x in ("" if c.mean is None else repr(c.mean),
                                                          "" if c.std is None else repr(c.std))])
        return out.getvalue()
    if fmt == "markdown":
        lines = ["| " + " | ".join(head + list(metrics)) + " |",
                 "|" + "|".join(["---"] * len(head) + ["---:"] * len(metrics)) + "|"]
        for row in rows:
            cells = [_number(row.cell(m), digits, " ± ", "–") for m in metrics]
            lines.append("| " + " | ".join([row.label] + ([row.dataset] if with_dataset else [])
                                           + [str(row.runs)] + cells) + " |")
        return "\n".join(lines) + "\n"
    columns = "l" + ("l" if with_dataset else "") + "r" + "c" * len(metrics)
    lines = [rf"\begin{{tabular}}{{{columns}}}", r"\toprule",
             " & ".join(_latex_escape(h) for h in head + list(metrics)) + r" \\", r"\midrule"]
    for row in rows:
        cells = [_number(row.cell(m), digits, r" \pm ", "--") for m in metrics]
        cells = [f"${c}$" if c != "--" else c for c in cells]
        lines.append(" & ".join([_latex_escape(row.label)] + ([_latex_escape(row.dataset)] if with_dataset else [])
                                + [str(row.runs)] + cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
