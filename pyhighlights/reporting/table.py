"""Mean ± standard deviation tables over result sets, in Markdown, LaTeX or CSV.

A row is one configuration: result sets with the same label, dataset and
configuration (the run's recorded parameters; a method's settings) form one
row, their seeds pooled, so three one-seed runs and one three-seed run of one
configuration give the same row. Sets of one label with different
configurations are separate rows, labelled by the fields that differ; two
runs of one configuration that report the same seed are not pooled either
(one row each, labelled by run directory), since a seed counted twice is not
two samples. ``n`` is the number of distinct seeds: the row's in its ``n``
column, a cell's own beside it when fewer seeds have that metric (an
evaluation run on some seeds only). The standard deviation is the sample one
(n − 1), 0 for a single value, like ``results.json``'s summary. Missing and
NaN values are left out of a cell's statistics; a cell with none shows ``–``
(empty in CSV).
"""
from __future__ import annotations

import csv
import io
import json
import math
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pyhighlights.reporting.reader import ResultSet

FORMATS = ("markdown", "latex", "csv")
DEFAULT_METRICS = ("accuracy", "highlight_f1", "auprc", "comprehensiveness", "sufficiency", "sparsity")
#: Differing fields named in a label before the rest are summarised.
_NAMED_FIELDS = 3


@dataclass
class Cell:
    mean: float | None
    std: float | None
    n: int


@dataclass
class Row:
    label: str
    dataset: str
    n: int  # distinct seeds
    values: dict[str, dict[str, float]] = field(default_factory=dict)  # metric -> seed -> value
    configuration: str = ""
    sources: list = field(default_factory=list)

    def cell(self, metric: str) -> Cell:
        values = list(self.values.get(metric, {}).values())
        if not values:
            return Cell(None, None, 0)
        return Cell(statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0, len(values))


def metric_key(metric: str, split: str) -> str:
    """``highlight_f1`` -> ``test/highlight_f1``; a name with a ``/`` is taken as it is."""
    return metric if "/" in metric else f"{split}/{metric}"


def aggregate(sets: list[ResultSet], metrics: list[str], split: str = "test") -> list[Row]:
    """One row per (label, dataset, configuration), in order of first appearance, with every seed's value of
    each metric; see the module's docstring for runs that repeat a seed."""
    groups: dict[tuple[str, str, str], list[ResultSet]] = {}
    for result in sets:
        groups.setdefault((result.label, result.dataset, result.configuration), []).append(result)
    rows: list[Row] = []
    for (label, dataset, configuration), members in groups.items():
        repeated = Counter(seed for member in members for seed in member.seeds)
        parts = [members] if all(count == 1 for count in repeated.values()) else [[m] for m in members]
        for part in parts:
            row = Row(label, dataset, len({seed for m in part for seed in m.seeds}), configuration=configuration,
                      sources=[m.source for m in part])
            for member in part:
                for seed, values in member.seeds.items():
                    for metric in metrics:
                        value = values.get(metric_key(metric, split))
                        if value is not None and not math.isnan(value):
                            row.values.setdefault(metric, {})[seed] = float(value)
            rows.append(row)
    _name_apart(rows)
    return rows


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        return {k: v for key, inner in value.items() for k, v in _flat(inner, f"{prefix}{key}.").items()}
    return {prefix[:-1]: value}


def _name_apart(rows: list[Row]) -> None:
    """Give rows that share a label and dataset labels that say how they differ."""
    shared: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        shared.setdefault((row.label, row.dataset), []).append(row)
    for same in shared.values():
        if len(same) < 2:
            continue
        flats = [_flat(json.loads(row.configuration)) if row.configuration else {} for row in same]
        keys = sorted({k for flat in flats for k in flat if len({json.dumps(f.get(k), default=str) for f in flats}) > 1})
        for row, flat in zip(same, flats):
            if keys:
                named = [f"{k.removeprefix('run.')}={json.dumps(flat.get(k), default=str)}" for k in keys[:_NAMED_FIELDS]]
                more = f", +{len(keys) - _NAMED_FIELDS} more" if len(keys) > _NAMED_FIELDS else ""
                row.label = f"{row.label} ({', '.join(named)}{more})"
            else:  # one configuration run twice with a seed in common
                row.label = f"{row.label} ({', '.join(str(s.parent) for s in row.sources)})"


def _number(cell: Cell, digits: int, plus_minus: str, dash: str, row_n: int) -> str:
    if cell.mean is None:
        return dash
    fewer = f" (n={cell.n})" if cell.n != row_n else ""
    return f"{cell.mean:.{digits}f}{plus_minus}{cell.std:.{digits}f}{fewer}"


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
                        + [f"{m}_{stat}" for m in metrics for stat in ("mean", "std", "n")])
        for row in rows:
            cells = [row.cell(m) for m in metrics]
            writer.writerow([row.label] + ([row.dataset] if with_dataset else []) + [row.n]
                            + [x for c in cells for x in ("" if c.mean is None else repr(c.mean),
                                                          "" if c.std is None else repr(c.std), c.n)])
        return out.getvalue()
    if fmt == "markdown":
        lines = ["| " + " | ".join(head + list(metrics)) + " |",
                 "|" + "|".join(["---"] * len(head) + ["---:"] * len(metrics)) + "|"]
        for row in rows:
            cells = [_number(row.cell(m), digits, " ± ", "–", row.n) for m in metrics]
            lines.append("| " + " | ".join([row.label] + ([row.dataset] if with_dataset else [])
                                           + [str(row.n)] + cells) + " |")
        return "\n".join(lines) + "\n"
    columns = "l" + ("l" if with_dataset else "") + "r" + "c" * len(metrics)
    lines = [rf"\begin{{tabular}}{{{columns}}}", r"\toprule",
             " & ".join(_latex_escape(h) for h in head + list(metrics)) + r" \\", r"\midrule"]
    for row in rows:
        cells = [_number(row.cell(m), digits, r" \pm ", "--", row.n) for m in metrics]
        cells = [f"${c}$" if c != "--" else c for c in cells]
        lines.append(" & ".join([_latex_escape(row.label)] + ([_latex_escape(row.dataset)] if with_dataset else [])
                                + [str(row.n)] + cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
