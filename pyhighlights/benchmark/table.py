"""The papers' table of a benchmark grid: methods as rows, per aspect (and level) S, P, R, F1, Acc.

Each entry is the mean (sample standard deviation) over the cell's seeds of
its run's ``results.json`` test metrics, read through
:func:`pyhighlights.reporting.read_results` and
:func:`pyhighlights.reporting.aggregate`; shown in percent, as the papers
print them (CSV keeps the fractions exactly). The highest mean of each
scored column (P, R, F1, Acc) is marked; S is the setting the protocol fixes,
not a score, so it is not. A cell that is not finished (not trained yet,
interrupted, or missing seeds) is marked missing, so a partial grid still
gives a table that says what it lacks.
"""
from __future__ import annotations

import csv
import html
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from pyhighlights.benchmark.grid import Cell
from pyhighlights.reporting.table import Cell as Stat

#: (heading, metric of results.json without the test/ prefix)
COLUMNS = (("S", "sparsity"), ("P", "highlight_precision"), ("R", "highlight_recall"), ("F1", "highlight_f1"),
           ("Acc", "accuracy"))
SCORED = ("P", "R", "F1", "Acc")
MISSING = "–"


@dataclass
class Entry:
    """One (row, aspect, level) of the table: a rationaliser's cell, or one post-hoc method's explanations of
    the classifier cell of that aspect at that level's rate."""

    cell: Cell
    run_dir: Path
    stats: dict[str, Stat] | None  # heading -> statistics; None: missing
    reason: str = ""
    row: str = ""
    level: str | None = None
    source: Path | None = None  # the metrics file read

    @property
    def group(self) -> tuple[str | None, str | None]:
        return self.cell.aspect, self.level

    @property
    def name(self) -> str:
        return self.cell.name if self.row == self.cell.model else f"{self.cell.name} {self.row} {self.level}"


@dataclass
class PaperTable:
    suite: str
    entries: list[Entry]
    rows: list[str] = field(default_factory=list)  # models, in grid order
    groups: list[tuple[str, str | None]] = field(default_factory=list)  # (aspect, level)

    def entry(self, row: str, group: tuple[str, str | None]) -> Entry | None:
        for item in self.entries:
            if item.row == row and item.group == group:
                return item
        return None

    @property
    def complete(self) -> bool:
        return all(item.stats is not None for item in self.entries)

    def best(self) -> dict[tuple[tuple[str, str | None], str], float]:
        """(group, heading) -> the highest mean of that scored column."""
        out: dict = {}
        for item in self.entries:
            if item.stats is None:
                continue
            key = item.group
            for heading in SCORED:
                stat = item.stats[heading]
                if stat.mean is not None and stat.mean > out.get((key, heading), float("-inf")):
                    out[(key, heading)] = stat.mean
        return out


def _missing_reason(run_dir: Path, seeds: Sequence[int]) -> str | None:
    import json

    from pyhighlights.run_files import read_state

    if not run_dir.exists():
        return "not trained"
    if read_state(run_dir) != "finished":
        return f"state {read_state(run_dir) or 'unknown'}"
    done = set(json.loads((run_dir / "results.json").read_text()).get("seeds", {}))
    lacking = [s for s in seeds if str(s) not in done]
    return f"seeds {lacking} missing" if lacking else None


def collect(cells_and_dirs: Sequence[tuple[Cell, Path]], suite: str = "") -> PaperTable:
    """The table of these cells from their run directories, finished or not."""
    entries = []
    for cell, run_dir in cells_and_dirs:
        reason = _missing_reason(run_dir, cell.seeds)
        if not cell.explanations:
            entry = Entry(cell, run_dir, None, reason or "", row=cell.model, level=cell.level,
                          source=run_dir / "results.json")
            if reason is None:
                entry.stats = _stats(run_dir, "train", ACCURACY)
            entries.append(entry)
            continue
        from pyhighlights.benchmark.runner import explanation_dir

        for item in cell.explanations:
            folder = explanation_dir(run_dir, item)
            entry = Entry(cell, run_dir, None, row=f"{cell.model} + {item['method']}", level=item["level"],
                          source=folder / "metrics.json")
            if reason is not None:
                entry.reason = f"{cell.model}: {reason}"
            elif not entry.source.is_file():
                entry.reason = f"not explained yet ({folder})"
            else:
                # the explained prediction is the classifier's on the whole document
                entry.stats = _stats(folder, "explain", FULL_INPUT_ACCURACY)
            entries.append(entry)
    table = PaperTable(suite, entries)
    for item in entries:
        if item.row not in table.rows:
            table.rows.append(item.row)
        if item.group not in table.groups:
            table.groups.append(item.group)
    return table


ACCURACY, FULL_INPUT_ACCURACY = "accuracy", "full_input_accuracy"


def _stats(path: Path, kind: str, accuracy: str) -> dict[str, Stat]:
    from pyhighlights.reporting.reader import read_results
    from pyhighlights.reporting.table import aggregate

    metrics = [accuracy if heading == "Acc" else metric for heading, metric in COLUMNS]
    sets = [s for s in read_results([path], evaluation=None) if s.kind == kind]
    rows = aggregate(sets, metrics)
    if len(rows) != 1:
        raise ValueError(f"{path}: expected one {kind} result set, found {len(rows)}")
    return {heading: rows[0].cell(metric) for (heading, _), metric in zip(COLUMNS, metrics)}


def _group_title(table: PaperTable, group: tuple[str, str | None]) -> str:
    aspect, level = group
    several = len({lv for a, lv in table.groups if a == aspect}) > 1
    return f"{aspect} {level}" if several and level else str(aspect)


def _percent(stat: Stat) -> str:
    return f"{100 * stat.mean:.1f} ({100 * stat.std:.1f})"


def _texts(table: PaperTable, model: str, group, mark) -> list[str]:
    item = table.entry(model, group)
    if item is None or item.stats is None:
        return [MISSING] * len(COLUMNS)
    best = table.best()
    out = []
    for heading, _ in COLUMNS:
        stat = item.stats[heading]
        if stat.mean is None:
            out.append(MISSING)
            continue
        text = _percent(stat) + (f" [n={stat.n}]" if stat.n != len(item.cell.seeds) else "")
        out.append(mark(text) if heading in SCORED and best.get((group, heading)) == stat.mean else text)
    return out


def _missing_notes(table: PaperTable) -> list[str]:
    return [f"{item.name}: {item.reason} ({item.run_dir})" for item in table.entries if item.stats is None]


def _caption(table: PaperTable) -> str:
    seeds = sorted({len(item.cell.seeds) for item in table.entries})
    state = "complete" if table.complete else "PARTIAL: cells marked – are missing"
    return (f"Benchmark {table.suite}: test S (sparsity), P, R, F1 (highlight precision, recall, F1) and Acc "
            f"(accuracy) in percent, mean (std) over {'/'.join(map(str, seeds))} seeds; best of each scored "
            f"column in bold{_posthoc_note(table)}. {state}.")


def _posthoc_note(table: PaperTable) -> str:
    if all(item.row == item.cell.model for item in table.entries):
        return ""
    return ("; a row 'classifier + <method>' is the full-input classifier explained post hoc by that method at "
            "the level's rate (its Acc is the classifier's on whole documents)")


def markdown(table: PaperTable) -> str:
    heads = ["method"] + [f"{_group_title(table, g)} {h}" for g in table.groups for h, _ in COLUMNS]
    lines = [_caption(table), "", "| " + " | ".join(heads) + " |",
             "|---|" + "|".join(["---:"] * (len(heads) - 1)) + "|"]
    for model in table.rows:
        cells = [t for g in table.groups for t in _texts(table, model, g, lambda s: f"**{s}**")]
        lines.append("| " + " | ".join([model, *cells]) + " |")
    notes = _missing_notes(table)
    if notes:
        lines += ["", "Missing cells:", *(f"- {note}" for note in notes)]
    return "\n".join(lines) + "\n"


def csv_text(table: PaperTable) -> str:
    """One line per cell and metric, the numbers as fractions, exactly as computed."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["method", "aspect", "level", "metric", "mean", "std", "n", "best", "status", "run_dir",
                     "source"])
    best = table.best()
    for item in table.entries:
        group = item.group
        for heading, metric in COLUMNS:
            stat = item.stats[heading] if item.stats else None
            has = stat is not None and stat.mean is not None
            if heading == "Acc" and item.row != item.cell.model:
                metric = FULL_INPUT_ACCURACY
            writer.writerow([item.row, item.cell.aspect, item.level, metric,
                             repr(stat.mean) if has else "", repr(stat.std) if has else "", stat.n if stat else 0,
                             str(has and heading in SCORED and best.get((group, heading)) == stat.mean).lower(),
                             "finished" if item.stats else f"missing: {item.reason}", str(item.run_dir),
                             str(item.source)])
    return out.getvalue()


_LATEX = {"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _tex(text: str) -> str:
    return "".join(_LATEX.get(char, char) for char in text)


def latex(table: PaperTable) -> str:
    """A booktabs ``table`` float, ready to paste (needs ``\\usepackage{booktabs}``)."""
    width = len(COLUMNS)
    spec = "l" + "r" * width * len(table.groups)
    lines = [r"\begin{table}", r"\centering", r"\small", rf"\caption{{{_tex(_caption(table))}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(["", *(rf"\multicolumn{{{width}}}{{c}}{{{_tex(_group_title(table, g))}}}"
                              for g in table.groups)]) + r" \\",
             "".join(rf"\cmidrule(lr){{{2 + i * width}-{1 + (i + 1) * width}}}" for i in range(len(table.groups))),
             " & ".join(["Method", *(h for _ in table.groups for h, _ in COLUMNS)]) + r" \\", r"\midrule"]
    for model in table.rows:
        cells = [t for g in table.groups for t in _texts(table, model, g, lambda s: rf"\textbf{{{s}}}")]
        lines.append(" & ".join([_tex(model), *(c if c != MISSING else "--" for c in cells)]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def html_page(table: PaperTable, out_dir: Path, viewer_pages: dict[str, Path]) -> str:
    """A standalone page; each cell's numbers link to the viewer page of its run (relative links)."""
    best = table.best()
    head = "".join(f'<th colspan="{len(COLUMNS)}">{html.escape(_group_title(table, g))}</th>' for g in table.groups)
    sub = "".join(f"<th>{h}</th>" for _ in table.groups for h, _ in COLUMNS)
    body = []
    for model in table.rows:
        tds = [f"<th>{html.escape(model)}</th>"]
        for group in table.groups:
            item = table.entry(model, group)
            if item is None or item.stats is None:
                why = html.escape(item.reason if item else "not in the grid")
                tds += [f'<td class="missing" title="{why}">{MISSING}</td>'] * len(COLUMNS)
                continue
            page = viewer_pages.get(item.cell.name)
            link = os.path.relpath(page, out_dir) if page is not None else None
            for heading, _ in COLUMNS:
                stat = item.stats[heading]
                text = MISSING if stat.mean is None else _percent(stat)
                strong = stat.mean is not None and heading in SCORED and best.get((group, heading)) == stat.mean
                text = f"<strong>{text}</strong>" if strong else text
                tds.append(f'<td><a href="{html.escape(link)}">{text}</a></td>' if link else f"<td>{text}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in _missing_notes(table))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(table.suite)} benchmark</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; }}
th, td {{ padding: 0.2em 0.6em; text-align: right; border-bottom: 1px solid #ddd; }}
tbody th {{ text-align: left; }}
td.missing {{ color: #a00; text-align: center; }}
a {{ color: inherit; }}
</style></head>
<body>
<p>{html.escape(_caption(table))} Each number links to the highlights of its run.</p>
<table>
<thead><tr><th></th>{head}</tr><tr><th>method</th>{sub}</tr></thead>
<tbody>
{chr(10).join(body)}
</tbody>
</table>
{f"<h2>Missing cells</h2><ul>{notes}</ul>" if notes else ""}
</body></html>
"""
