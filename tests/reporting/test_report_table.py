"""Aggregation and formatting of report tables, against numbers worked out by hand."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyhighlights.reporting.reader import ResultSet
from pyhighlights.reporting.table import aggregate, format_table


def result(label, dataset, seeds):
    return ResultSet(label=label, kind="train", dataset=dataset, source=Path(label), seeds=seeds)


SETS = [
    # rnp over two runs: seeds 0.5, 0.7 (run A) and 0.9 (run B) -> mean 0.7, sample std 0.2
    result("rnp", "beer/aroma", {"0": {"test/highlight_f1": 0.5, "test/auprc": 0.25},
                                 "1": {"test/highlight_f1": 0.7, "test/auprc": float("nan")}}),
    result("ig", "beer/aroma", {"0": {"test/highlight_f1": 0.4, "test/auprc": 0.125}}),
    result("rnp", "beer/aroma", {"2": {"test/highlight_f1": 0.9, "test/auprc": None}}),
]


def test_rows_pool_seeds_across_runs():
    rows = aggregate(SETS, ["highlight_f1", "auprc", "sparsity"])
    assert [r.label for r in rows] == ["rnp", "ig"]
    rnp = rows[0]
    assert rnp.n == 3
    cell = rnp.cell("highlight_f1")
    assert cell.mean == pytest.approx(0.7) and cell.std == pytest.approx(0.2) and cell.n == 3
    auprc = rnp.cell("auprc")  # NaN and None are left out
    assert (auprc.mean, auprc.std, auprc.n) == (0.25, 0.0, 1)
    assert rnp.cell("sparsity").mean is None


def test_markdown():
    rows = aggregate(SETS, ["highlight_f1", "auprc"])
    assert format_table(rows, ["highlight_f1", "auprc"]) == (
        "| model / method | n | highlight_f1 | auprc |\n"
        "|---|---|---:|---:|\n"
        "| rnp | 3 | 0.700 ± 0.200 | 0.250 ± 0.000 (n=1) |\n"
        "| ig | 1 | 0.400 ± 0.000 | 0.125 ± 0.000 |\n")


def test_latex_and_csv():
    rows = aggregate(SETS, ["highlight_f1", "sparsity"])
    assert format_table(rows, ["highlight_f1", "sparsity"], "latex", digits=2) == (
        "\\begin{tabular}{lrcc}\n\\toprule\n"
        "model / method & n & highlight\\_f1 & sparsity \\\\\n\\midrule\n"
        "rnp & 3 & $0.70 \\pm 0.20$ & -- \\\\\n"
        "ig & 1 & $0.40 \\pm 0.00$ & -- \\\\\n"
        "\\bottomrule\n\\end{tabular}\n")
    lines = format_table(rows, ["highlight_f1"], "csv").splitlines()
    assert lines[0] == "row,n,highlight_f1_mean,highlight_f1_std,highlight_f1_n"
    label, n, mean, std, cell_n = lines[1].split(",")
    assert (label, n, cell_n) == ("rnp", "3", "3")
    assert float(mean) == pytest.approx(0.7) and float(std) == pytest.approx(0.2)


def test_dataset_column_when_rows_span_datasets_and_full_keys():
    sets = SETS + [result("rnp", "hotel/0", {"0": {"test/highlight_f1": 0.1, "val/highlight_f1": 0.3}})]
    rows = aggregate(sets, ["highlight_f1", "val/highlight_f1"])
    assert [(r.label, r.dataset) for r in rows] == [("rnp", "beer/aroma"), ("ig", "beer/aroma"), ("rnp", "hotel/0")]
    text = format_table(rows, ["highlight_f1", "val/highlight_f1"])
    assert text.splitlines()[0] == "| model / method | dataset | n | highlight_f1 | val/highlight_f1 |"
    assert text.splitlines()[-1] == "| rnp | hotel/0 | 1 | 0.100 ± 0.000 | 0.300 ± 0.000 |"
    with pytest.raises(ValueError, match="format"):
        format_table(rows, ["highlight_f1"], "html")


def configured(label, lr, seeds, source):
    return ResultSet(label=label, kind="train", dataset="beer/aroma", source=Path(source) / "results.json",
                     seeds=seeds, configuration=json.dumps({"run": {"model": {"name": label, "lr": lr}}}))


def test_runs_of_different_configurations_are_rows_of_their_own():
    sets = [configured("rnp", 0.1, {"0": {"test/highlight_f1": 0.5}}, "A"),
            configured("rnp", 0.2, {"0": {"test/highlight_f1": 0.9}}, "B")]
    rows = aggregate(sets, ["highlight_f1"])
    assert [(r.label, r.n, r.cell("highlight_f1").mean) for r in rows] == [
        ("rnp (model.lr=0.1)", 1, 0.5), ("rnp (model.lr=0.2)", 1, 0.9)]


def test_one_configuration_run_twice_with_the_same_seed_is_not_pooled():
    sets = [configured("rnp", 0.1, {"0": {"test/highlight_f1": 0.5}}, "A"),
            configured("rnp", 0.1, {"0": {"test/highlight_f1": 0.9}}, "B")]
    rows = aggregate(sets, ["highlight_f1"])
    assert [(r.label, r.n) for r in rows] == [("rnp (A)", 1), ("rnp (B)", 1)]
    # distinct seeds of one configuration are pooled: n counts seeds, and each cell the seeds that have it
    sets = [configured("rnp", 0.1, {"0": {"test/highlight_f1": 0.5, "test/auprc": 0.3}}, "A"),
            configured("rnp", 0.1, {"1": {"test/highlight_f1": 0.9}}, "B")]
    (row,) = aggregate(sets, ["highlight_f1", "auprc"])
    assert (row.label, row.n, row.cell("highlight_f1").n, row.cell("auprc").n) == ("rnp", 2, 2, 1)
    assert format_table([row], ["highlight_f1", "auprc"]).splitlines()[-1] == \
        "| rnp | 2 | 0.700 ± 0.283 | 0.300 ± 0.000 (n=1) |"
