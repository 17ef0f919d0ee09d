"""The issue's acceptance workflow on a tiny corpus: classifier, post-hoc methods, RNP, one report."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from evaluation_fixtures import tiny_runs  # noqa: F401  (fixture)

from pyhighlights.evaluation.cli import main as evaluate_main
from pyhighlights.explain.cli import main as explain_main

ROOT = Path(__file__).resolve().parents[2]


def test_classifier_posthoc_rnp_report(tiny_runs, capsys):
    classifier, rnp = tiny_runs["classifier"], tiny_runs["rnp"]
    assert evaluate_main([str(rnp)]) == 0
    assert evaluate_main([str(classifier)]) == 0
    for method in ("integrated_gradients", "feature_ablation"):
        assert explain_main([str(classifier), f"method={method}", f"rate_from={rnp}", "method.n_steps=8"
                             if method == "integrated_gradients" else "batch_size=8"]) == 0
    capsys.readouterr()

    # scores.jsonl: one row per test document, round(rate * n) words selected, scores over real words
    rate = json.loads((rnp / "results.json").read_text())["summary"]["test/sparsity"]["mean"]
    ig = classifier / "explain" / "integrated_gradients"
    payload = json.loads((ig / "metrics.json").read_text())
    assert payload["rate"] == pytest.approx(rate) and payload["parameters"]["n_steps"] == 8
    rows = [json.loads(line) for line in (ig / "scores.jsonl").read_text().splitlines()]
    assert len(rows) == payload["documents"] > 0
    for row in rows:
        n = len(row["scores"])
        assert len(row["selected"]) == int(n * rate + 0.5)
        top = sorted(range(n), key=lambda i: (-row["scores"][i], i))[:len(row["selected"])]
        assert sorted(top) == row["selected"]
    summary = payload["summary"]
    for name in ("highlight_f1", "auprc", "comprehensiveness", "sufficiency", "infidelity", "sensitivity",
                 "convergence_delta"):
        assert summary[f"test/{name}"]["mean"] is not None, name

    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "report.py"), str(classifier), str(rnp),
                          "--metrics", "highlight_f1,auprc,comprehensiveness,sufficiency"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    lines = out.strip().splitlines()
    assert lines[0] == "| model / method | n | highlight_f1 | auprc | comprehensiveness | sufficiency |"
    body = {line.split("|")[1].strip(): line for line in lines[2:]}
    assert set(body) == {"classifier", "integrated_gradients", "feature_ablation", "rnp"}
    assert body["rnp"].split("|")[2].strip() == "2"  # two seeds
    for label in ("integrated_gradients", "feature_ablation", "rnp"):
        assert "–" not in body[label], body[label]  # every metric present


def test_clis_report_mistakes_without_a_traceback(tiny_runs, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        explain_main([str(tiny_runs["classifier"]), "method=gradcam"])
    assert exit_info.value.code != 0
    err = capsys.readouterr().err
    assert "Could not find 'method/gradcam'" in err and "integrated_gradients" in err and "Traceback" not in err
    with pytest.raises(SystemExit):
        evaluate_main([str(tmp_path)])
    assert "manifest.json" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        evaluate_main([str(tiny_runs["classifier"]), "splt=test"])
    assert "Could not override 'splt'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        evaluate_main(["split=test"])
    assert exit_info.value.code == 2 and "first argument" in capsys.readouterr().err
    assert evaluate_main(["--help"]) == 0
    assert "faithfulness_model" in capsys.readouterr().out
    assert explain_main(["--help"]) == 0
    assert "integrated_gradients: output=probability, n_steps=20" in capsys.readouterr().out


def test_evaluate_takes_a_checkpoint_path_with_an_equals_sign_and_hydra_overrides(tiny_runs, capsys):
    checkpoint = tiny_runs["rnp"] / "seed1" / "checkpoints" / "best-epoch=1.ckpt"
    assert evaluate_main([str(checkpoint), f"dataset.data_dir={tiny_runs['other']}", "split=val"]) == 0
    out_dir = tiny_runs["rnp"] / "evaluation" / "validation-other"  # the tag is made from the field changed
    payload = json.loads((out_dir / "metrics.json").read_text())
    assert list(payload["seeds"]) == ["1"] and payload["checkpoints"] == {"1": str(checkpoint)}
    assert payload["dataset"]["data_dir"] == str(tiny_runs["other"]) and payload["split"] == "validation"
    assert payload["command"][1:] == [str(checkpoint), f"dataset.data_dir={tiny_runs['other']}", "split=val"]
    assert "evaluation written to" in capsys.readouterr().out


def test_explain_options_and_refusal(tiny_runs):
    from pyhighlights.evaluation.outputs import OutputExists
    from pyhighlights.explain.explain import explain_run

    out_dir, payload = explain_run(tiny_runs["rnp"], "lime", params={"n_samples": 10}, rate=0.5, max_documents=3,
                                   infidelity_samples=0, sensitivity_samples=0, tag="quick")
    assert out_dir == tiny_runs["rnp"] / "explain" / "lime-quick"
    assert payload["documents"] == 3 and payload["rate_source"] == "given" and payload["model"] == "rnp"
    assert set(payload["seeds"]) == {"0", "1"}  # every seed of the run, one scores.jsonl each
    assert all(len((out_dir / f"seed{s}" / "scores.jsonl").read_text().splitlines()) == 3 for s in (0, 1))
    assert "test/infidelity" not in payload["summary"] and "test/sensitivity" not in payload["summary"]
    with pytest.raises(OutputExists):
        explain_run(tiny_runs["rnp"], "lime", tag="quick")
    with pytest.raises(ValueError, match="not both"):
        explain_run(tiny_runs["rnp"], "lime", rate=0.1, rate_from=tiny_runs["rnp"])
