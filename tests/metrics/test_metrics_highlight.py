"""Micro and macro highlight precision / recall / F1 / IoU."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from metrics_test_helpers import assert_close_dict, pad_documents

from pyhighlights.metrics import HighlightMacroScores, HighlightScores, highlight_macro_scores, highlight_scores

NAN = float("nan")


def test_micro_hand_counts(hand_batch):
    # Scored positions (real, highlight != -1) and their counts:
    #   doc0: sel 1 0 0 1 1 0 vs hl 1 1 0 0 1 0 -> tp 2 (pos 0, 4), fp 1 (pos 3), fn 1 (pos 1)
    #   doc1: scored pos 0, 1, 3; sel at 1, 3, both highlighted -> tp 2
    #         (pos 2 is -1, pos 4-5 padding: their selection does not count)
    #   doc2: nothing annotated -> nothing
    #   doc3: empty selection, one highlight -> fn 1
    # total tp 4, fp 1, fn 2
    out = highlight_scores(hand_batch["selection"], hand_batch["highlights"], hand_batch["word_mask"])
    assert_close_dict(out, {"precision": 4 / 5, "recall": 4 / 6, "f1": 8 / 11, "iou": 4 / 7})


def test_macro_hand_counts(hand_batch):
    # Per document (from the counts above), ERASER's conventions:
    #   doc0: P 2/3, R 2/3, F1 2/3        doc1: P 1, R 1, F1 1
    #   doc2: skipped (not annotated)      doc3: nothing selected -> P 0, R 0, F1 0, still counted
    out = highlight_macro_scores(hand_batch["selection"], hand_batch["highlights"], hand_batch["word_mask"])
    expected = {
        "macro_precision": (2 / 3 + 1 + 0) / 3,
        "macro_recall": (2 / 3 + 1 + 0) / 3,
        "macro_f1": (2 / 3 + 1 + 0) / 3,
    }
    assert_close_dict(out, expected)


def test_empty_selection_has_macro_precision_zero_and_counts():
    # ERASER's instance_macro: doc0 selects nothing -> P 0, R 0, F1 0 and is averaged in;
    # doc1 selects 1 of its 2 highlighted words -> P 1, R 1/2, F1 2/3.
    # Skipping doc0's undefined precision instead would give macro P = 1.
    selection = torch.tensor([[0, 0, 0, 0], [0, 1, 0, 0]])
    highlights = torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]])
    out = highlight_macro_scores(selection, highlights, torch.ones(2, 4))
    assert_close_dict(out, {"macro_precision": 0.5, "macro_recall": 0.25, "macro_f1": 1 / 3})


def test_empty_selection_micro_precision_is_nan_macro_is_zero():
    selection = torch.zeros(2, 3, dtype=torch.long)
    highlights = torch.tensor([[1, 0, -1], [0, 1, 1]])
    word_mask = torch.ones(2, 3)
    micro = highlight_scores(selection, highlights, word_mask)
    assert math.isnan(micro["precision"])
    assert micro["recall"] == 0 and micro["f1"] == 0 and micro["iou"] == 0
    macro = highlight_macro_scores(selection, highlights, word_mask)
    assert macro["macro_precision"] == 0 and macro["macro_recall"] == 0 and macro["macro_f1"] == 0


@pytest.mark.filterwarnings("ignore:The ``compute`` method")
def test_nothing_annotated_is_all_nan():
    selection = torch.tensor([[1, 1, 0]])
    highlights = torch.full((1, 3), -1)
    for out in (
        highlight_scores(selection, highlights, torch.ones(1, 3)),
        highlight_macro_scores(selection, highlights, torch.ones(1, 3)),
        HighlightScores().compute(),  # never updated
    ):
        assert all(math.isnan(v) for v in out.values()), out


def test_macro_skips_documents_with_nothing_selected_nor_highlighted():
    # doc0: annotated, no highlight, no selection -> not a document ERASER scores
    # doc1: tp 1, fp 1, fn 0 -> P 1/2, R 1, F1 2/3
    selection = torch.tensor([[0, 0], [1, 1]])
    highlights = torch.tensor([[0, 0], [1, 0]])
    out = highlight_macro_scores(selection, highlights, torch.ones(2, 2))
    assert_close_dict(out, {"macro_precision": 0.5, "macro_recall": 1.0, "macro_f1": 2 / 3})


def _numpy_reference(documents):
    """Micro and macro scores by direct counting over unpadded documents."""
    tp = fp = fn = 0
    precisions, recalls, f1s = [], [], []
    for document in documents:
        scored = document["highlights"] >= 0
        if not scored.any():
            continue
        sel = document["selection"][scored] == 1
        gold = document["highlights"][scored] == 1
        d_tp, d_fp, d_fn = int(np.sum(sel & gold)), int(np.sum(sel & ~gold)), int(np.sum(~sel & gold))
        tp, fp, fn = tp + d_tp, fp + d_fp, fn + d_fn
        if d_tp + d_fp + d_fn:  # ERASER: 0 for a zero denominator, F1 0 when P or R is 0
            p = d_tp / (d_tp + d_fp) if d_tp + d_fp else 0.0
            r = d_tp / (d_tp + d_fn) if d_tp + d_fn else 0.0
            precisions.append(p)
            recalls.append(r)
            f1s.append(2 * p * r / (p + r) if p and r else 0.0)
    micro = {
        "precision": tp / (tp + fp),
        "recall": tp / (tp + fn),
        "f1": 2 * tp / (2 * tp + fp + fn),
        "iou": tp / (tp + fp + fn),
    }
    macro = {"macro_precision": np.mean(precisions), "macro_recall": np.mean(recalls), "macro_f1": np.mean(f1s)}
    return micro, macro


def test_random_documents_against_numpy(documents):
    micro, macro = _numpy_reference(documents)
    batch = pad_documents(documents, extra_padding=3)
    assert_close_dict(highlight_scores(batch["selection"], batch["highlights"], batch["word_mask"]), micro)
    assert_close_dict(highlight_macro_scores(batch["selection"], batch["highlights"], batch["word_mask"]), macro)


@pytest.mark.filterwarnings("ignore:The ``compute`` method")
def test_module_accumulates_batches_like_one_batch(documents):
    micro, macro = _numpy_reference(documents)
    micro_metric, macro_metric = HighlightScores(), HighlightMacroScores()
    # Uneven batches, each padded to its own width, bool and float inputs mixed.
    for start, stop in ((0, 7), (7, 8), (8, 30), (30, 40)):
        batch = pad_documents(documents[start:stop])
        selection = batch["selection"].bool() if start % 2 else batch["selection"].float()
        micro_metric.update(selection, batch["highlights"], batch["word_mask"])
        macro_metric.update(selection, batch["highlights"], batch["word_mask"])
    assert_close_dict(micro_metric.compute(), micro)
    assert_close_dict(macro_metric.compute(), macro)
    micro_metric.reset()
    assert math.isnan(micro_metric.compute()["precision"])


def test_module_equals_functional(hand_batch):
    metric = HighlightScores()
    metric.update(hand_batch["selection"], hand_batch["highlights"], hand_batch["word_mask"])
    assert_close_dict(
        metric.compute(), highlight_scores(hand_batch["selection"], hand_batch["highlights"], hand_batch["word_mask"])
    )
    macro = HighlightMacroScores()
    batch_value = macro(hand_batch["selection"], hand_batch["highlights"], hand_batch["word_mask"])  # forward
    assert_close_dict(
        batch_value,
        highlight_macro_scores(hand_batch["selection"], hand_batch["highlights"], hand_batch["word_mask"]),
    )


def test_shape_mismatch_raises():
    with pytest.raises(ValueError, match="same shape"):
        highlight_scores(torch.ones(2, 3), torch.ones(2, 4), torch.ones(2, 3))
