"""scripts/benchmark.py on suite=synthetic: killed in the middle and started again it trains only what is missing;
the table's cells are the runs' results.json values; its LaTeX is well formed; its HTML opens in Chromium.

One benchmark (2 models × 2 aspects × 1 seed, and the classifier of each aspect explained by saliency; tiny
settings) is shared by the tests of this file.
"""
from __future__ import annotations

import csv
import io
import json
import logging
import os
import re
import statistics
from pathlib import Path

import pytest
from forked_scripts import run_script

from pyhighlights.benchmark.grid import build_grid, suite_from_config
from pyhighlights.benchmark.table import collect, markdown

TINY = ["dataset.n_train=80", "dataset.n_heldout=20", "dataset.n_test=20", "trainer.max_epochs=1", "layout=packed",
        "backbone.hidden_size=8", "embeddings.dim=8", "trainer.progress_bar=false"]
GRID = ["suite=synthetic", "models=[rnp,fr]", "seeds=[0]"]
CELLS = ["rnp/appearance/S15", "rnp/aroma/S15", "fr/appearance/S15", "fr/aroma/S15", "classifier/appearance",
         "classifier/aroma"]
ROWS = ["rnp", "fr", "classifier + saliency"]
HEADINGS = {"sparsity": "S", "highlight_precision": "P", "highlight_recall": "R", "highlight_f1": "F1",
            "accuracy": "Acc"}


def benchmark(out: Path, *extra: str, env: dict | None = None):
    return run_script("benchmark.py", *GRID, f"out={out}", *TINY, *extra,
                      env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})}, cwd=Path(__file__).parents[2],
                      timeout=600)


def mtimes(out: Path) -> dict[str, int]:
    return {name: (out / name / "results.json").stat().st_mtime_ns for name in CELLS
            if (out / name / "results.json").is_file()}


@pytest.fixture(scope="module")
def killed_and_finished(tmp_path_factory):
    """The benchmark SIGKILLed after the third cell's epoch (the first two finished), then the same command."""
    out = tmp_path_factory.mktemp("benchmark") / "synthetic"
    killed = benchmark(out, env={"PYHIGHLIGHTS_FAULT_AT": "epoch_end:3"})
    assert killed.returncode == -9, killed.stderr[-3000:]
    after_kill = mtimes(out)
    third_checkpointed = (out / CELLS[2] / "checkpoints" / "last.ckpt").is_file()
    fourth_absent = not (out / CELLS[3]).exists()
    from pyhighlights.cli.common import prepare
    from pyhighlights.config.compose import compose_config

    prepare()
    suite = suite_from_config(compose_config(["suite=synthetic"], config_name="benchmark").suite)
    cells = build_grid(suite, ["rnp", "fr"], [0], None, TINY)
    partial = markdown(collect([(cell, out / cell.name) for cell in cells], "synthetic"))
    restarted = benchmark(out)
    assert restarted.returncode == 0, restarted.stderr[-3000:]
    return out, after_kill, partial, restarted, third_checkpointed and fourth_absent


def test_a_killed_benchmark_restarted_trains_only_the_missing_cells(killed_and_finished, caplog):
    out, after_kill, partial, restarted, killed_in_the_third = killed_and_finished
    # the kill came in the third cell: two finished, the third holds its epoch's checkpoint, the fourth nothing
    assert sorted(after_kill) == sorted(CELLS[:2]) and killed_in_the_third
    # the partial table marks the missing cells and names them
    rows = {line.split(" | ")[0].lstrip("| "): line for line in partial.splitlines() if line.startswith("| ")}
    assert "PARTIAL" in partial and rows["rnp"].count("–") == 0 and rows["fr"].count("–") == 10
    assert rows["classifier + saliency"].count("–") == 10
    assert f"- {CELLS[2]}: state " in partial and f"- {CELLS[3]}: not trained" in partial
    assert "- classifier/aroma classifier + saliency S15: classifier: not trained" in partial
    log = restarted.stdout + restarted.stderr
    for name in CELLS[:2]:
        assert f"{name}: {out / name} already holds seeds [0]" in log
    assert f"{CELLS[2]}: resuming seeds [0]" in log and f"{CELLS[3]}: training seeds [0]" in log
    assert "classifier/aroma: explaining with saliency at rate 0.15" in log
    finished = mtimes(out)
    assert {name: finished[name] for name in CELLS[:2]} == after_kill  # not retrained
    assert sorted(finished) == sorted(CELLS)

    # run again: nothing trains, no results file is rewritten
    from pyhighlights.cli.benchmark import main

    with caplog.at_level(logging.INFO, logger="pyhighlights"):
        assert main([*GRID, f"out={out}", *TINY]) == 0
    assert mtimes(out) == finished
    assert sum("not training it again" in r.getMessage() for r in caplog.records) == len(CELLS)
    assert sum("is explained already" in r.getMessage() for r in caplog.records) == 2
    assert not any(word in r.getMessage() for r in caplog.records for word in ("training seeds", "resuming",
                                                                                 "explaining"))


def expected(path: Path) -> dict[str, tuple[float, float]]:
    """metric -> (mean, sample std) over the seeds of a results.json or an explanation's metrics.json, read here
    on its own (an explanation's accuracy is that of the full-input prediction it explains)."""
    seeds = json.loads(path.read_text())["seeds"]
    out = {}
    for metric in HEADINGS:
        key = "full_input_accuracy" if metric == "accuracy" and path.name == "metrics.json" else metric
        values = [s[f"test/{key}"] for s in seeds.values()]
        mean = sum(values) / len(values)
        std = statistics.stdev(values) if len(values) > 1 else 0.0
        out[metric] = (mean, std)
    return out


def test_table_cells_are_the_results_json_values_and_the_best_is_marked(killed_and_finished):
    out = killed_and_finished[0]
    rows = list(csv.DictReader(io.StringIO((out / "table.csv").read_text())))
    assert len(rows) == len(CELLS) * len(HEADINGS) and [r["method"] for r in rows[::5]] == [
        "rnp", "rnp", "fr", "fr", "classifier + saliency", "classifier + saliency"]
    md = (out / "table.md").read_text()
    lines = {line.split(" | ")[0].lstrip("| "): line.strip("| \n").split(" | ") for line in md.splitlines()
             if line.startswith("| ") and not line.startswith("| method")}
    heads = [h for h in md.splitlines() if h.startswith("| method")][0].strip("| ").split(" | ")
    values = {(model, aspect): expected(out / model / aspect / "S15" / "results.json")
              for model in ("rnp", "fr") for aspect in ("appearance", "aroma")}
    for aspect in ("appearance", "aroma"):
        explained = out / "classifier" / aspect / "explain" / "saliency-S15" / "metrics.json"
        values[("classifier + saliency", aspect)] = expected(explained)
    for row in rows:
        metric = "accuracy" if row["metric"] == "full_input_accuracy" else row["metric"]
        mean, std = values[(row["method"], row["aspect"])][metric]
        assert float(row["mean"]) == pytest.approx(mean, rel=1e-12, abs=1e-15)
        assert float(row["std"]) == pytest.approx(std, abs=1e-15) and row["n"] == "1"
        posthoc = row["method"] == ROWS[2]
        folder = out / "classifier" / row["aspect"] if posthoc else out / row["method"] / row["aspect"] / "S15"
        assert row["status"] == "finished" and Path(row["run_dir"]) == folder
        assert (row["metric"] == "full_input_accuracy") == (metric == "accuracy" and posthoc)
        shown = lines[row["method"]][heads.index(f"{row['aspect']} {HEADINGS[metric]}")]
        assert shown.strip("*") == f"{100 * mean:.1f} ({100 * std:.1f})"
        if metric != "sparsity":  # the best of each scored column, by the means read here
            rivals = [values[(m, row["aspect"])][metric][0] for m in ROWS]
            assert (row["best"] == "true") == (mean == max(rivals)) == shown.startswith("**")
        else:
            assert row["best"] == "false" and not shown.startswith("**")
    assert "complete" in md and "PARTIAL" not in md
    for aspect in ("appearance", "aroma"):
        assert (out / f"table_sparsity_f1_{aspect}.png").stat().st_size > 0


def test_latex_table_is_well_formed_booktabs(killed_and_finished):
    tex = (out := killed_and_finished[0] / "table.tex").read_text()
    assert tex.count("{") - tex.count(r"\{") == tex.count("}") - tex.count(r"\}")
    assert [line for line in tex.splitlines() if line.startswith("\\") and "rule" in line] == [
        r"\toprule", r"\cmidrule(lr){2-6}\cmidrule(lr){7-11}", r"\midrule", r"\bottomrule"]
    spec = re.search(r"\\begin\{tabular\}\{([lrc]+)\}", tex).group(1)
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    header = [line for line in tex.splitlines() if line.startswith("Method &")][0]
    for line in [header, *body]:
        assert line.endswith(r"\\") and len(re.split(r"(?<!\\)&", line)) == len(spec)
    spans = [int(n) for n in re.findall(r"\\multicolumn\{(\d+)\}", tex)]
    assert sum(spans) == len(spec) - 1 and len(body) == len(ROWS)
    assert tex.index(r"\begin{table}") < tex.index(r"\begin{tabular}") < tex.index(r"\end{tabular}") < tex.index(
        r"\end{table}") and r"\textbf{" in tex
    assert "_" not in tex.replace(r"\_", "")  # every underscore escaped
    assert out.is_file()


def test_html_table_opens_in_chromium_and_every_cell_links_to_its_runs_viewer_page(killed_and_finished, browser):
    from selenium.webdriver.common.by import By

    out = killed_and_finished[0]
    page = out / "table.html"
    browser.get(page.as_uri())
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    links = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "tbody td a")]
    assert len(links) == len(ROWS) * 2 * len(HEADINGS)
    targets = sorted(set(links))
    assert [Path(t.removeprefix("file://")).name for t in targets] == sorted(
        name.replace("/", "__") + ".html" for name in CELLS)
    browser.get(targets[0])  # the viewer page of one cell opens without errors either
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert browser.find_elements(By.CSS_SELECTOR, "article.doc")


@pytest.mark.slow
def test_the_local_submitit_launcher_trains_the_missing_cell_and_gives_the_same_table(killed_and_finished):
    import shutil

    out = killed_and_finished[0]
    before = (out / "table.csv").read_text()
    finished = mtimes(out)
    shutil.rmtree(out / CELLS[1])
    launched = benchmark(out, "hydra/launcher=local")
    assert launched.returncode == 0, launched.stderr[-3000:]
    assert (out / "launcher" / "1").is_dir()  # the launcher's job of cell 1, and only that one
    jobs = [p.name for p in (out / "launcher").iterdir() if p.is_dir() and not p.name.startswith(".")]
    assert jobs == ["1"]
    after = mtimes(out)
    assert {k: v for k, v in after.items() if k != CELLS[1]} == {k: v for k, v in finished.items() if k != CELLS[1]}
    assert (out / "table.csv").read_text() == before  # seeded: the same numbers again
