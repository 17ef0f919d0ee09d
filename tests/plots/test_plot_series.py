"""What the plots draw, from hand-made metrics.csv and predictions; the PNGs they write."""
from __future__ import annotations

import json
import logging

import pytest
from PIL import Image

from pyhighlights.plots import plot_run, plot_run_safely, plot_tradeoff
from pyhighlights.plots.series import (highlight_positions, per_epoch, read_metrics_csv, sparsity_target,
                                       training_series)
from pyhighlights.plots.tradeoff import tradeoff_points
from pyhighlights.reporting.reader import read_results

# Two epochs as Lightning's CSV logger writes them: step rows (train/*), one validation row per epoch,
# and the test row at the end; epoch 0 of G-RAT logs no selection rate (guider only).
METRICS_CSV = """epoch,step,train/loss,train/loss/task,train/selection_rate,train/annealing,val/loss,val/loss/task,\
val/sparsity,val/highlight_f1,val/accuracy,test/accuracy
0,4,1.0,0.5,,1.0,,,,,,
0,9,3.0,0.7,,0.9,,,,,,
0,9,,,,,2.5,0.6,0.40,nan,0.5,
1,14,0.5,0.2,0.30,0.8,,,,,,
1,19,0.7,0.4,0.10,0.7,,,,,,
1,24,0.9,0.3,0.20,0.6,,,,,,
1,24,,,,,1.5,0.4,0.20,0.55,0.75,
1,25,,,,,,,,,,0.8
"""


@pytest.fixture
def run_folder(tmp_path):
    (tmp_path / "metrics.csv").write_text(METRICS_CSV)
    rows = [{"id": "a", "label": 0, "prediction": 0, "words": list("abcdefghij"), "selected": [9, 8],
             "highlight": [0, 1, 5]},
            {"id": "b", "label": 1, "prediction": 0, "words": list("abcde"), "selected": [0], "highlight": None}]
    (tmp_path / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path


def test_per_epoch_means_of_logged_steps(run_folder):
    rows = read_metrics_csv(run_folder / "metrics.csv")
    assert per_epoch(rows, "train/loss") == ([0, 1], [pytest.approx(2.0), pytest.approx(0.7)])
    assert per_epoch(rows, "train/selection_rate") == ([1], [pytest.approx(0.2)])
    assert per_epoch(rows, "val/highlight_f1") == ([1], [0.55])  # the NaN of epoch 0 is left out
    panels = training_series(rows)
    assert set(panels) == {"losses", "selection", "validation", "annealing"}
    assert set(panels["losses"]) == {"train/loss", "val/loss", "train/loss/task", "val/loss/task"}
    assert panels["losses"]["train/loss/task"] == ([0, 1], [pytest.approx(0.6), pytest.approx(0.3)])
    assert panels["selection"]["val/sparsity"] == ([0, 1], [0.40, 0.20])
    assert panels["validation"]["val/accuracy"] == ([0, 1], [0.5, 0.75])
    assert panels["annealing"]["train/annealing"] == ([0, 1], [pytest.approx(0.95), pytest.approx(0.7)])
    assert not any(series.startswith("test/") for panel in panels.values() for series in panel)


def test_no_annealing_panel_without_annealing_and_a_bad_cell_is_named(tmp_path):
    (tmp_path / "m.csv").write_text("epoch,step,train/loss\n0,1,0.5\n")
    assert set(training_series(read_metrics_csv(tmp_path / "m.csv"))) == {"losses"}
    (tmp_path / "bad.csv").write_text("epoch,step,train/loss\n0,1,0.5\n0,2,oops\n")
    with pytest.raises(ValueError, match=r"bad.csv:3: column train/loss: expected a number, got 'oops'"):
        read_metrics_csv(tmp_path / "bad.csv")


def test_highlight_positions_by_tenth_of_the_document():
    rows = [{"words": list("abcdefghij"), "selected": [9, 8], "highlight": [0, 1, 5]},
            {"words": list("abcde"), "selected": [0], "highlight": None}]
    shares = highlight_positions(rows)
    # Human: words 0, 1, 5 of 10 -> tenths 0, 1, 5. Model: 9, 8 of 10 -> tenths 9, 8; word 0 of 5 -> (0.5/5) = tenth 1.
    assert shares["human"] == pytest.approx([1 / 3, 1 / 3, 0, 0, 0, 1 / 3, 0, 0, 0, 0])
    assert shares["model"] == pytest.approx([0, 1 / 3, 0, 0, 0, 0, 0, 0, 1 / 3, 1 / 3])


def test_sparsity_target_from_the_model_spec():
    assert sparsity_target({"losses": {"sparsity": {"target": 0.15, "weight": 2}}}) == 0.15
    assert sparsity_target({"name": "classifier"}) is None


def assert_png(path):
    with Image.open(path) as image:
        image.verify()
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size[0] > 300 and image.size[1] > 200


def test_plot_run_writes_every_png(run_folder):
    written = plot_run(run_folder, sparsity_target=0.15)
    assert sorted(p.name for p in written) == ["annealing.png", "highlight_positions.png", "losses.png",
                                              "selection_rate.png", "validation.png"]
    for path in written:
        assert path.parent == run_folder / "plots"
        assert_png(path)


def test_a_plotting_failure_is_a_warning_not_an_error(tmp_path, caplog):
    (tmp_path / "metrics.csv").write_text("epoch,step,train/loss\n0,1,zero\n")
    with caplog.at_level(logging.WARNING, logger="pyhighlights"):
        assert plot_run_safely(tmp_path) == []
    assert "training plots of" in caplog.text and "expected a number" in caplog.text


def write_run(root, model, seeds):
    root.mkdir(parents=True)
    (root / "results.json").write_text(json.dumps({"seeds": seeds, "summary": {}}))
    (root / "manifest.json").write_text(json.dumps({"parameters": {
        "model": {"name": model}, "dataset": {"name": "beer", "aspect": "aroma", "data_dir": None}}}))


def test_tradeoff_points_pool_seeds_with_sample_std(tmp_path):
    write_run(tmp_path / "rnp0", "rnp", {"0": {"test/sparsity": 0.1, "test/highlight_f1": 0.5}})
    write_run(tmp_path / "rnp1", "rnp", {"1": {"test/sparsity": 0.3, "test/highlight_f1": 0.7}})
    write_run(tmp_path / "grat", "grat", {"0": {"test/sparsity": 0.2, "test/highlight_f1": 0.8}})
    write_run(tmp_path / "clf", "classifier", {"0": {"test/accuracy": 0.9}})  # nothing to plot: left out
    points = tradeoff_points(read_results([tmp_path]))
    assert [(p.label, p.n) for p in points] == [("grat", 1), ("rnp", 2)]
    rnp = next(p for p in points if p.label == "rnp")
    assert (rnp.sparsity, rnp.f1) == (pytest.approx(0.2), pytest.approx(0.6))
    assert rnp.sparsity_std == pytest.approx(2 ** 0.5 * 0.1) and rnp.f1_std == pytest.approx(2 ** 0.5 * 0.1)
    assert_png(plot_tradeoff(read_results([tmp_path]), tmp_path / "out" / "tradeoff.png"))
    with pytest.raises(ValueError, match="no run has both test/sparsity and test/highlight_f1"):
        plot_tradeoff(read_results([tmp_path / "clf"]), tmp_path / "none.png")
