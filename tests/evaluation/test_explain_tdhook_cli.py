"""scripts/explain.py backend=tdhook on a trained classifier run: the same scores as captum.

Tolerance as in tests/explain/test_explain_tdhook.py (same float32 function,
sums in another order), on scores.jsonl's 6 significant digits.
"""
from __future__ import annotations

import json

import pytest
import torch
from evaluation_fixtures import tiny_runs  # noqa: F401  (fixture)


def test_explain_cli_with_tdhook_matches_captum(tiny_runs):
    from pyhighlights.explain.cli import main

    classifier = tiny_runs["classifier"]
    # max_documents=5 with batch_size=4 leaves a last batch of one document; robustness metrics on
    common = ["method=integrated_gradients", "method.n_steps=8", "max_documents=5", "batch_size=4",
              "infidelity_samples=3", "sensitivity_samples=2", "rate=0.3"]
    assert main([str(classifier), *common, "backend=tdhook", "tag=cmp"]) == 0
    assert main([str(classifier), *common, "tag=cmp"]) == 0
    td_dir, captum_dir = classifier / "explain" / "integrated_gradients-tdhook-cmp", classifier / "explain" / \
        "integrated_gradients-cmp"
    payload = json.loads((td_dir / "metrics.json").read_text())
    assert payload["backend"] == "tdhook" and payload["documents"] == 5
    td_rows = [json.loads(line) for line in (td_dir / "scores.jsonl").read_text().splitlines()]
    captum_rows = [json.loads(line) for line in (captum_dir / "scores.jsonl").read_text().splitlines()]
    assert len(td_rows) == len(captum_rows) == 5
    for td_row, captum_row in zip(td_rows, captum_rows):
        # scores.jsonl keeps 6 significant digits
        torch.testing.assert_close(torch.tensor(td_row["scores"]), torch.tensor(captum_row["scores"]),
                                   rtol=1e-5, atol=1e-6)
    captum_summary = json.loads((captum_dir / "metrics.json").read_text())["summary"]
    for name in ("test/highlight_f1", "test/auprc", "test/comprehensiveness", "test/sensitivity",
                 "test/infidelity", "test/convergence_delta"):
        assert payload["summary"][name]["mean"] == pytest.approx(captum_summary[name]["mean"], abs=1e-6)
