"""Top-k highlights of word scores, and the rate taken from a rationaliser's run."""
from __future__ import annotations

import json

import pytest
import torch

from pyhighlights.explain.selection import rate_of_run, top_k_selection


def test_top_k_by_hand():
    scores = torch.tensor([[0.1, 0.9, 0.5, 0.5, 0.3, 7.0],
                           [0.4, -1.0, 2.0, 0.0, 0.0, 0.0]])
    word_mask = torch.tensor([[1, 1, 1, 1, 1, 0],
                              [1, 1, 1, 0, 0, 0]])
    # doc 0: n = 5, rate 0.5 -> k = round(2.5) = 3 (halves up): 0.9, then the tie 0.5/0.5 (both), padding 7.0 never
    # doc 1: n = 3, k = round(1.5) = 2: 2.0 and 0.4
    assert top_k_selection(scores, word_mask, 0.5).tolist() == [[0, 1, 1, 1, 0, 0], [1, 0, 1, 0, 0, 0]]
    # rate 0.3: doc 0 k = round(1.5) = 2 -> 0.9 and the earlier of the tied 0.5s; doc 1 k = round(0.9) = 1
    assert top_k_selection(scores, word_mask, 0.3).tolist() == [[0, 1, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0]]
    assert top_k_selection(scores, word_mask, 0.0).sum() == 0
    assert top_k_selection(scores, word_mask, 1.0).tolist() == word_mask.tolist()
    with pytest.raises(ValueError):
        top_k_selection(scores, word_mask, 1.5)


def test_rate_of_run_reads_the_test_sparsity(tmp_path):
    (tmp_path / "results.json").write_text(json.dumps({"summary": {"test/sparsity": {"mean": 0.123, "std": 0.0}}}))
    assert rate_of_run(tmp_path) == pytest.approx(0.123)
    with pytest.raises(FileNotFoundError, match="results.json"):
        rate_of_run(tmp_path / "nowhere")
    (tmp_path / "results.json").write_text(json.dumps({"summary": {}}))
    with pytest.raises(ValueError, match="test/sparsity"):
        rate_of_run(tmp_path)
