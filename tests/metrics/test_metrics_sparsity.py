"""Sparsity (micro and per document) and spans per document."""
from __future__ import annotations

import math

import numpy as np
import torch
from metrics_test_helpers import assert_close_dict, pad_documents

from pyhighlights.metrics import Sparsity, sparsity_scores


def test_hand_counts(hand_batch):
    # selected real words / real words per document:
    #   doc0 3/6 (1 0 0 1 1 0: 2 spans)   doc1 3/4 (0 1 1 1, padding ignored: 1 span)
    #   doc2 2/3 (1 1 0: 1 span)          doc3 0/5 (0 spans)
    out = sparsity_scores(hand_batch["selection"], hand_batch["word_mask"])
    expected = {
        "sparsity": 8 / 18,
        "sparsity_per_document": (3 / 6 + 3 / 4 + 2 / 3 + 0) / 4,
        "spans_per_document": 4 / 4,
    }
    assert_close_dict(out, expected)


def test_padding_breaks_a_run_and_empty_rows_are_skipped():
    # doc0: real 1 1 0 1, selection 1 1 1 1 -> the unreal position splits it: 2 spans, 3/3
    # doc1: no real word at all -> not a document for the per-document means
    selection = torch.ones(2, 4)
    word_mask = torch.tensor([[1, 1, 0, 1], [0, 0, 0, 0]])
    out = sparsity_scores(selection, word_mask)
    assert_close_dict(out, {"sparsity": 1.0, "sparsity_per_document": 1.0, "spans_per_document": 2.0})


def test_no_real_words_is_nan():
    out = sparsity_scores(torch.ones(1, 3), torch.zeros(1, 3))
    assert all(math.isnan(v) for v in out.values())


def _numpy_reference(documents):
    selected = [int(d["selection"].sum()) for d in documents]
    lengths = [len(d["selection"]) for d in documents]
    spans = [int(np.sum(np.diff(np.concatenate([[0], d["selection"]])) == 1)) for d in documents]
    return {
        "sparsity": sum(selected) / sum(lengths),
        "sparsity_per_document": np.mean(np.array(selected) / np.array(lengths)),
        "spans_per_document": np.mean(spans),
    }


def test_random_documents_multi_batch_and_functional(documents):
    expected = _numpy_reference(documents)
    whole = pad_documents(documents, extra_padding=2)
    assert_close_dict(sparsity_scores(whole["selection"], whole["word_mask"]), expected)
    metric = Sparsity()
    for start in range(0, len(documents), 9):
        batch = pad_documents(documents[start : start + 9])
        metric.update(batch["selection"], batch["word_mask"])
    assert_close_dict(metric.compute(), expected)
