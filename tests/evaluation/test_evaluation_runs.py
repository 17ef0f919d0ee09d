"""scripts/evaluate.py's library: restoring trained runs and re-scoring them."""
from __future__ import annotations

import json

import pytest
import torch
from evaluation_fixtures import tiny_runs  # noqa: F401  (fixture)
from evaluation_helpers import tree_digest

from pyhighlights.evaluation.evaluate import evaluate_run
from pyhighlights.evaluation.outputs import OutputExists
from pyhighlights.evaluation.restore import RestoredRun, RunNotFound

SAME_AS_TRAINING = ("accuracy", "balanced_accuracy", "macro_f1", "highlight_precision", "highlight_recall",
                    "highlight_f1", "highlight_iou", "highlight_macro_f1", "sparsity", "sparsity_per_document",
                    "spans_per_document")


def test_reproduces_the_training_test_metrics_of_every_seed(tiny_runs):
    before = tree_digest(tiny_runs["rnp"], skip="evaluation")
    out_dir, payload = evaluate_run(tiny_runs["rnp"], tag="repro")
    assert out_dir == tiny_runs["rnp"] / "evaluation" / "test-repro"
    trained = json.loads((tiny_runs["rnp"] / "results.json").read_text())["seeds"]
    assert set(payload["seeds"]) == {"0", "1"}
    for seed, values in payload["seeds"].items():
        for name in SAME_AS_TRAINING:
            assert values[f"test/{name}"] == pytest.approx(trained[seed][f"test/{name}"], abs=1e-6), name
        for name in ("auprc", "iou_f1", "comprehensiveness", "sufficiency", "aopc_comprehensiveness",
                     "aopc_sufficiency"):
            assert f"test/{name}" in values
    assert payload["summary"]["test/highlight_f1"]["n"] == 2
    assert json.loads((out_dir / "metrics.json").read_text())["seeds"] == payload["seeds"]
    assert tree_digest(tiny_runs["rnp"], skip="evaluation") == before  # training outputs untouched


def test_refuses_to_overwrite_unless_asked(tiny_runs):
    evaluate_run(tiny_runs["classifier"], tag="twice")
    with pytest.raises(OutputExists, match="overwrite=true"):
        evaluate_run(tiny_runs["classifier"], tag="twice")
    out_dir, _ = evaluate_run(tiny_runs["classifier"], tag="twice", overwrite=True)
    assert (out_dir / "metrics.json").is_file()


def test_a_checkpoint_evaluates_its_seed_only(tiny_runs):
    checkpoint = next((tiny_runs["rnp"] / "seed1" / "checkpoints").glob("*.ckpt"))
    out_dir, payload = evaluate_run(checkpoint, tag="seed1")
    assert out_dir.parent == tiny_runs["rnp"] / "evaluation"
    assert list(payload["seeds"]) == ["1"]


def test_other_split_and_other_corpus(tiny_runs):
    _, payload = evaluate_run(tiny_runs["classifier"], split="val")
    run = RestoredRun(tiny_runs["classifier"])
    assert payload["documents"] == len(run.corpus().validation)
    assert all(key.startswith("val/") for key in payload["seeds"]["0"])

    out_dir, payload = evaluate_run(tiny_runs["classifier"], dataset={"data_dir": str(tiny_runs["other"])})
    assert out_dir.name == "test-other"
    assert payload["dataset"]["data_dir"] == str(tiny_runs["other"])
    other = run.corpus({"data_dir": str(tiny_runs["other"])})
    assert payload["documents"] == len(other.test)
    # the classifier keeps every word: sparsity 1 and sufficiency exactly 0 on any corpus
    assert payload["seeds"]["0"]["test/sparsity"] == 1.0
    assert payload["seeds"]["0"]["test/sufficiency"] == pytest.approx(0.0, abs=1e-7)


def test_faithfulness_with_a_separate_classifier_matches_a_direct_computation(tiny_runs):
    """comp = mean p(ŷ|x) - p(ŷ|x∖r), suff = mean p(ŷ|x) - p(ŷ|r), ŷ and p from the classifier,
    r the RNP's selection, computed here document by document."""
    _, payload = evaluate_run(tiny_runs["rnp"], faithfulness_model=tiny_runs["classifier"], tag="clf")
    rnp, classifier = RestoredRun(tiny_runs["rnp"]), RestoredRun(tiny_runs["classifier"])
    selector = rnp.load_model(rnp.checkpoint(0))
    scorer = classifier.load_model(classifier.checkpoint(0))
    comp, suff = [], []
    with torch.no_grad():
        for batch in rnp.loader(rnp.corpus(), "test", selector, batch_size=1):
            words = batch.word_mask.float()
            rationale = (selector.select(batch).mask > 0.5).float() * words

            def p(keep):
                return torch.softmax(scorer.predict(batch, keep), dim=-1)[0]

            full = p(words)
            y = int(full.argmax())
            comp.append(float(full[y] - p(words - rationale)[y]))
            suff.append(float(full[y] - p(rationale)[y]))
    assert payload["faithfulness_model"] == str(tiny_runs["classifier"])
    assert payload["seeds"]["0"]["test/comprehensiveness"] == pytest.approx(sum(comp) / len(comp), abs=1e-5)
    assert payload["seeds"]["0"]["test/sufficiency"] == pytest.approx(sum(suff) / len(suff), abs=1e-5)


def test_bad_paths_and_overrides_are_named(tiny_runs, tmp_path):
    with pytest.raises(RunNotFound, match="manifest.json"):
        evaluate_run(tmp_path)
    with pytest.raises(Exception, match=r"dataset\.aspekt"):
        evaluate_run(tiny_runs["classifier"], dataset={"aspekt": "aroma"})
    with pytest.raises(ValueError, match="split=dev2"):
        evaluate_run(tiny_runs["classifier"], split="dev2")
    assert not (tiny_runs["classifier"] / "evaluation" / "test-aspekt").exists()


def test_a_failed_rerun_keeps_the_earlier_output(tiny_runs, monkeypatch):
    out_dir, first = evaluate_run(tiny_runs["classifier"], tag="kept")
    import pyhighlights.evaluation.evaluate as evaluate_module

    def broken(*args, **kwargs):
        raise RuntimeError("interrupted")

    monkeypatch.setattr(evaluate_module, "evaluate_model", broken)
    with pytest.raises(RuntimeError, match="interrupted"):
        evaluate_run(tiny_runs["classifier"], tag="kept", overwrite=True)
    assert json.loads((out_dir / "metrics.json").read_text())["seeds"] == first["seeds"]
    assert sorted(p.name for p in out_dir.parent.iterdir() if p.name.startswith(".")) == []  # no scratch left
