"""Token-level AUPRC of soft scores, checked against scikit-learn."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from metrics_test_helpers import make_documents, pad_documents
from sklearn.metrics import auc, precision_recall_curve

from pyhighlights.metrics import HighlightAUPRC, auprc_per_document, highlight_auprc


def _sklearn_auprc(document):
    """Per-document AUPRC the ERASER way: sklearn's PR curve, trapezoid area."""
    scored = document["highlights"] >= 0
    gold, scores = document["highlights"][scored], document["scores"][scored]
    if not (gold == 1).any():
        return math.nan
    precision, recall, _ = precision_recall_curve(gold, scores)
    return auc(recall, precision)


def test_hand_example_with_ties():
    # scores 0.8 (pos), 0.8 (neg), 0.5 (pos), 0.2 (neg), last word is padding.
    # Curve: (R 0, P 1) -> t=0.8: (1/2, 1/2) -> t=0.5: (1, 2/3) -> t=0.2: (1, 1/2)
    # area = 1/2 * (1 + 1/2)/2 + 1/2 * (1/2 + 2/3)/2 + 0 = 3/8 + 7/24 = 2/3
    scores = torch.tensor([[0.8, 0.8, 0.5, 0.2, 0.99]])
    highlights = torch.tensor([[1, 0, 1, 0, -1]])
    word_mask = torch.tensor([[1, 1, 1, 1, 0]])
    assert highlight_auprc(scores, highlights, word_mask).item() == pytest.approx(2 / 3)


def test_documents_without_positive_are_skipped_and_empty_is_nan():
    scores = torch.tensor([[0.1, 0.9], [0.5, 0.4]])
    highlights = torch.tensor([[0, 0], [1, -1]])  # doc0: no positive; doc1: one positive word only
    per_document = auprc_per_document(scores, highlights, torch.ones(2, 2))
    assert math.isnan(per_document[0]) and per_document[1] == 1.0
    assert highlight_auprc(scores, highlights, torch.ones(2, 2)) == 1.0
    assert math.isnan(highlight_auprc(scores[:1], highlights[:1], torch.ones(1, 2)))


def test_random_documents_against_sklearn():
    documents = make_documents(80, seed=5, max_len=30)
    expected = [_sklearn_auprc(d) for d in documents]
    batch = pad_documents(documents, extra_padding=2)
    per_document = auprc_per_document(batch["scores"], batch["highlights"], batch["word_mask"])
    np.testing.assert_allclose(per_document.numpy(), np.array(expected), rtol=1e-12, equal_nan=True)

    metric = HighlightAUPRC()
    for start in range(0, len(documents), 25):
        part = pad_documents(documents[start : start + 25])
        metric.update(part["scores"].float(), part["highlights"], part["word_mask"])
    assert metric.compute().item() == pytest.approx(np.nanmean(expected), rel=1e-6)
    assert highlight_auprc(batch["scores"], batch["highlights"], batch["word_mask"]).item() == pytest.approx(
        np.nanmean(expected), rel=1e-12
    )


def test_continuous_scores_against_sklearn():
    rng = np.random.default_rng(11)
    scores = torch.from_numpy(rng.normal(size=(6, 40)))
    highlights = torch.from_numpy((rng.random((6, 40)) < 0.3).astype(np.int64))
    expected = [auc(*precision_recall_curve(h, s)[1::-1]) for h, s in zip(highlights.numpy(), scores.numpy())]
    np.testing.assert_allclose(
        auprc_per_document(scores, highlights, torch.ones(6, 40)).numpy(), expected, rtol=1e-12
    )
