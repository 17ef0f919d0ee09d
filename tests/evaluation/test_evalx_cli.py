"""``scripts/evaluate.py RUN evalx=...``: the encoding check's output, its evaluators, its refusals."""
from __future__ import annotations

import json
import shutil

import pytest
from evaluation_fixtures import tiny_runs  # noqa: F401  (fixture)

from pyhighlights.evaluation.cli import main as evaluate_main


@pytest.fixture
def rnp_copy(tiny_runs, tmp_path):
    """The shared two-seed RNP run, copied: the check writes into the run's evaluation folder."""
    return shutil.copytree(tiny_runs["rnp"], tmp_path / "rnp")


def test_evalx_train_scores_every_seed_and_reuses_its_evaluators(rnp_copy, capsys):
    assert evaluate_main([str(rnp_copy), "evalx=train", "evalx_epochs=1"]) == 0
    out = capsys.readouterr().out
    assert "test/evalx_encoding_gap" in out and "encoding check written to" in out
    payload = json.loads((rnp_copy / "evaluation" / "test-evalx" / "metrics.json").read_text())
    assert payload["kind"] == "evalx" and set(payload["seeds"]) == {"0", "1"}
    trained = json.loads((rnp_copy / "results.json").read_text())["seeds"]
    for seed, values in payload["seeds"].items():
        # the gap as defined; the run's own accuracy on its rationales is its (deterministic) test accuracy
        assert values["test/evalx_encoding_gap"] == pytest.approx(
            values["test/evalx_predictor_accuracy"] - values["test/evalx_accuracy"], abs=1e-12)
        assert values["test/evalx_predictor_accuracy"] == pytest.approx(trained[seed]["test/accuracy"], abs=1e-9)
        assert values["test/evalx_sparsity"] == pytest.approx(trained[seed]["test/sparsity"], abs=1e-6)
        for name in ("accuracy", "full_accuracy", "random_accuracy"):
            assert 0.0 <= values[f"test/evalx_{name}"] <= 1.0
    folder = rnp_copy / "evaluation" / "evalx-evaluators" / "epochs1-keep0.5"
    assert sorted(p.name for p in folder.iterdir()) == ["seed0.ckpt", "seed1.ckpt"]
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}

    # an earlier check is kept; a tagged one beside it reuses the saved evaluators (same numbers)
    with pytest.raises(SystemExit):
        evaluate_main([str(rnp_copy), "evalx=train", "evalx_epochs=1"])
    assert "already holds metrics.json" in capsys.readouterr().err
    assert evaluate_main([str(rnp_copy), "evalx=train", "evalx_epochs=1", "tag=again"]) == 0
    again = json.loads((rnp_copy / "evaluation" / "test-evalx-again" / "metrics.json").read_text())
    assert again["seeds"] == payload["seeds"]
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == stamps


def test_evalx_refuses_an_evaluator_that_was_not_trained_on_random_masks(tiny_runs, rnp_copy, capsys):
    with pytest.raises(SystemExit):
        evaluate_main([str(rnp_copy), f"evalx={tiny_runs['rnp']}"])
    assert "model=evalx run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        evaluate_main([str(rnp_copy), "evalx=train", "evalx_epochs=0"])
    assert "evalx_epochs=0" in capsys.readouterr().err
    assert not (rnp_copy / "evaluation" / "test-evalx").exists()
