"""explain.py batches documents without changing any document's result, and says what its numbers mean."""
from __future__ import annotations

import json
import logging

import pytest
from evaluation_fixtures import tiny_runs  # noqa: F401  (fixture)

from pyhighlights.explain.cli import main as explain_main
from pyhighlights.explain.explain import NOTES, explain_run


def _rows(folder):
    return [json.loads(line) for line in (folder / "scores.jsonl").read_text().splitlines()]


def test_batched_and_one_document_at_a_time_give_the_same_scores_and_metrics(tiny_runs):
    run = tiny_runs["classifier"]
    common = dict(params={"n_steps": 8}, max_documents=10, infidelity_samples=4, sensitivity_samples=2, seed=3)
    one_dir, one = explain_run(run, "integrated_gradients", batch_size=1, tag="one", **common)
    many_dir, many = explain_run(run, "integrated_gradients", batch_size=8, tag="eight", **common)
    single, batched = _rows(one_dir), _rows(many_dir)
    assert [r["id"] for r in single] == [r["id"] for r in batched] and len(single) == 10
    lengths = {len(r["scores"]) for r in single}
    assert len(lengths) > 1  # documents of different lengths share the padded batches
    for a, b in zip(single, batched):
        assert b["scores"] == pytest.approx(a["scores"], rel=1e-4, abs=1e-6), a["id"]
        assert (a["selected"], a["prediction"]) == (b["selected"], b["prediction"])
    for key, value in one["seeds"]["0"].items():  # infidelity and sensitivity included
        assert many["seeds"]["0"][key] == pytest.approx(value, rel=1e-4, abs=1e-6), key


def test_the_output_names_the_full_input_prediction_and_each_metrics_direction(tiny_runs, capsys, caplog):
    run = tiny_runs["rnp"]  # a rationaliser: its own test accuracy is not the explained prediction's
    with caplog.at_level(logging.INFO, logger="pyhighlights.explain"):
        assert explain_main([str(run), "method=saliency", "max_documents=5", "batch_size=2", "progress_every=2",
                             "seed=0", "tag=notes"]) == 0
    out = capsys.readouterr().out
    payload = json.loads((run / "explain" / "saliency-notes" / "metrics.json").read_text())
    # the written metric is the accuracy of the explained predictions, and is named for what it is
    assert "test/accuracy" not in payload["summary"]
    for seed in ("0", "1"):
        rows = _rows(run / "explain" / "saliency-notes" / f"seed{seed}")
        accuracy = sum(r["prediction"] == r["label"] for r in rows) / len(rows)
        assert payload["seeds"][seed]["test/full_input_accuracy"] == pytest.approx(accuracy)
    assert payload["notes"] == NOTES
    lines = {line.split(" = ")[0]: line for line in out.splitlines() if " = " in line}
    assert "the model on the whole document" in lines["test/full_input_accuracy"]
    assert "higher is more faithful" in lines["test/comprehensiveness"]
    assert "lower is more faithful" in lines["test/sufficiency"]
    # one progress line per 2 documents and one at the end, per seed: 2, 4, 5
    progress = [r.getMessage() for r in caplog.records if "documents explained" in r.getMessage()]
    assert [p.split(": ")[1].split(" ")[0] for p in progress] == ["2/5", "4/5", "5/5"] * 2, progress
