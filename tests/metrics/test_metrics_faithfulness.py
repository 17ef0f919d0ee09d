"""Comprehensiveness / sufficiency, top-k masks and their AOPC versions."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import torch
from metrics_test_helpers import assert_close_dict

from pyhighlights.metrics import (
    AOPC_FRACTIONS,
    AOPCFaithfulness,
    Faithfulness,
    aopc_faithfulness,
    aopc_probabilities,
    faithfulness_scores,
    top_k_masks,
)


def test_hand_values_anchor_on_full_input_prediction():
    # ŷ = argmax p_full: doc0 -> class 0 (0.6), doc1 -> class 2 (0.5); the labels play no part.
    # comp: doc0 0.6 - 0.1 = 0.5, doc1 0.5 - 0.3 = 0.2 -> mean 0.35
    # suff: doc0 0.6 - 0.7 = -0.1, doc1 0.5 - 0.4 = 0.1 -> mean 0.0
    p_full = torch.tensor([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]])
    p_without = torch.tensor([[0.1, 0.8, 0.1], [0.3, 0.4, 0.3]])
    p_only = torch.tensor([[0.7, 0.2, 0.1], [0.3, 0.3, 0.4]])
    out = faithfulness_scores(p_full, p_without, p_only)
    assert_close_dict(out, {"comprehensiveness": 0.35, "sufficiency": 0.0})


@pytest.mark.filterwarnings("ignore:The ``compute`` method")
def test_module_multi_batch_equals_numpy_and_empty_is_nan():
    rng = np.random.default_rng(4)
    p_full, p_without, p_only = (torch.from_numpy(rng.dirichlet(np.ones(3), size=23)) for _ in range(3))
    predicted = p_full.numpy().argmax(1)
    rows = np.arange(23)
    expected = {
        "comprehensiveness": np.mean(p_full.numpy()[rows, predicted] - p_without.numpy()[rows, predicted]),
        "sufficiency": np.mean(p_full.numpy()[rows, predicted] - p_only.numpy()[rows, predicted]),
    }
    metric = Faithfulness()
    assert all(math.isnan(v) for v in metric.compute().values())
    for start in (0, 10, 20):
        metric.update(p_full[start : start + 10], p_without[start : start + 10], p_only[start : start + 10])
    assert_close_dict(metric.compute(), expected)
    assert_close_dict(faithfulness_scores(p_full, p_without, p_only), expected)


def _reference_top_k(scores, length, fraction):
    """Positions kept: ceil(fraction * length) best scores, earlier position first on ties."""
    keep = math.ceil(Fraction(str(fraction)) * length)
    order = sorted(range(length), key=lambda i: (-scores[i], i))
    return set(order[:keep])


def test_top_k_masks_hand_example():
    # 30 real words: 10% is exactly 3 words (0.1 * 30 in floats is 3.0000000000000004)
    scores = torch.zeros(2, 32)
    scores[0, :30] = torch.arange(30.0)  # best words are the last ones
    scores[0, 30:] = 100.0  # padding with the best score must never be kept
    word_mask = torch.zeros(2, 32, dtype=torch.long)
    word_mask[0, :30] = 1
    word_mask[1, :3] = 1  # doc1: 3 real words, all scores tied at 0
    masks = top_k_masks(scores, word_mask, (0.01, 0.1, 0.5))
    assert masks.shape == (3, 2, 32) and masks.dtype == torch.long
    assert masks[0, 0].nonzero().flatten().tolist() == [29]  # ceil(0.3) = 1
    assert masks[1, 0].nonzero().flatten().tolist() == [27, 28, 29]
    assert masks[2, 0].sum() == 15
    # doc1, ties broken by position: 1% and 10% keep 1 word, 50% keeps ceil(1.5) = 2
    assert [m[1].nonzero().flatten().tolist() for m in masks] == [[0], [0], [0, 1]]


def test_top_k_masks_random_against_reference():
    rng = np.random.default_rng(8)
    lengths = [1, 2, 7, 19, 40, 100]
    scores = torch.from_numpy(np.round(rng.random((len(lengths), 100)), 1))  # many ties
    word_mask = torch.zeros(len(lengths), 100, dtype=torch.bool)
    for row, length in enumerate(lengths):
        word_mask[row, :length] = True
    masks = top_k_masks(scores, word_mask)
    assert masks.dtype == torch.bool
    for k, fraction in enumerate(AOPC_FRACTIONS):
        for row, length in enumerate(lengths):
            kept = set(masks[k, row].nonzero().flatten().tolist())
            assert kept == _reference_top_k(scores[row].tolist(), length, fraction), (fraction, length)


def _toy_model(weights):
    """p(c | kept words) = softmax(sum of the kept words' weight vectors)."""

    def prob_fn(mask):
        assert mask.dtype == torch.long  # masks come in word_mask's dtype
        return torch.softmax((mask.unsqueeze(-1).double() * weights).sum(dim=1), dim=-1)

    return prob_fn


def test_aopc_against_loop_reference():
    rng = np.random.default_rng(9)
    lengths, width, classes = [3, 12, 25, 40], 42, 3
    weights = torch.from_numpy(rng.normal(size=(len(lengths), width, classes)))
    scores = torch.from_numpy(np.round(rng.random((len(lengths), width)), 1))
    word_mask = torch.zeros(len(lengths), width, dtype=torch.long)
    for row, length in enumerate(lengths):
        word_mask[row, :length] = 1

    def probabilities(row, positions):
        logits = weights[row, sorted(positions)].sum(dim=0).numpy()
        return np.exp(logits) / np.exp(logits).sum()

    comprehensiveness, sufficiency = [], []
    for row, length in enumerate(lengths):
        everything = set(range(length))
        full = probabilities(row, everything)
        predicted = full.argmax()
        drops_removed, drops_kept = [], []
        for fraction in AOPC_FRACTIONS:
            top = _reference_top_k(scores[row].tolist(), length, fraction)
            drops_removed.append(full[predicted] - probabilities(row, everything - top)[predicted])
            drops_kept.append(full[predicted] - probabilities(row, top)[predicted])
        comprehensiveness.append(np.mean(drops_removed))
        sufficiency.append(np.mean(drops_kept))
    expected = {"aopc_comprehensiveness": np.mean(comprehensiveness), "aopc_sufficiency": np.mean(sufficiency)}

    prob_fn = _toy_model(weights)
    assert_close_dict(aopc_faithfulness(prob_fn, scores, word_mask), expected)

    metric = AOPCFaithfulness()
    for rows in (slice(0, 1), slice(1, 4)):
        sub_weights = _toy_model(weights[rows])
        p_full, p_removed, p_kept = aopc_probabilities(sub_weights, scores[rows], word_mask[rows])
        assert p_removed.shape == (len(AOPC_FRACTIONS), rows.stop - rows.start, classes)
        metric.update(p_full, p_removed, p_kept)
    assert_close_dict(metric.compute(), expected)


def test_aopc_shape_check():
    with pytest.raises(ValueError, match="p_removed"):
        AOPCFaithfulness().update(torch.ones(2, 3), torch.ones(5, 2, 3), torch.ones(4, 2, 3))
