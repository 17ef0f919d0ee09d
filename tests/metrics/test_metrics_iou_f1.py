"""ERASER IOU-F1 on spans."""
from __future__ import annotations

import math

import pytest
import torch
from metrics_test_helpers import assert_close_dict, make_documents, pad_documents

from pyhighlights.metrics import IouF1, iou_f1_scores


def test_hand_counts(hand_batch):
    # Spans as word-position sets; doc2 is unannotated and skipped.
    #   doc0: pred {0}, {3,4};  gold {0,1}, {4}
    #         IoU({0},{0,1}) = 1/2, IoU({3,4},{4}) = 1/2 -> both preds and both golds matched
    #   doc1: pred {1,2,3} (padding 4,5 ignored); gold {1}, {3} (position 2 is -1)
    #         IoU = 1/3 with each gold -> nothing matched
    #   doc3: no pred; gold {0}
    # preds 3, golds 5, matched 2 of each: P 2/3, R 2/5, F1 = 2PR/(P+R) = 1/2
    out = iou_f1_scores(hand_batch["selection"], hand_batch["highlights"], hand_batch["word_mask"])
    assert_close_dict(out, {"iou_precision": 2 / 3, "iou_recall": 2 / 5, "iou_f1": 0.5})


def test_low_threshold_counts_gold_matches_for_recall(hand_batch):
    # threshold 0.3: doc1's pred now matches both golds (IoU 1/3 each).
    # matched preds 3 of 3; matched golds 4 of 5 (2 in doc0, 2 in doc1).
    # (ERASER's numerator for recall would be the 3 matched predictions.)
    out = iou_f1_scores(hand_batch["selection"], hand_batch["highlights"], hand_batch["word_mask"], threshold=0.3)
    assert_close_dict(out, {"iou_precision": 1.0, "iou_recall": 4 / 5, "iou_f1": 2 * 0.8 / 1.8})


def test_no_predicted_span_is_nan():
    # one gold span {1, 2}, nothing selected: P = 0/0, R = 0/1
    out = iou_f1_scores(torch.zeros(1, 4), torch.tensor([[0, 1, 1, 0]]), torch.ones(1, 4))
    assert math.isnan(out["iou_precision"]) and math.isnan(out["iou_f1"])
    assert out["iou_recall"] == 0


def test_unannotated_document_is_skipped():
    # doc1 has a predicted span but no annotation: it must not add an unmatched prediction
    selection = torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]])
    highlights = torch.tensor([[0, 1, 1, 0], [-1, -1, -1, -1]])
    out = iou_f1_scores(selection, highlights, torch.ones(2, 4))
    assert_close_dict(out, {"iou_precision": 1.0, "iou_recall": 1.0, "iou_f1": 1.0})


def _spans(values):
    """Maximal runs of 1 in a list, as sets of positions (plain Python loop)."""
    spans, current = [], set()
    for position, value in enumerate(values):
        if value == 1:
            current.add(position)
        elif current:
            spans.append(current)
            current = set()
    if current:
        spans.append(current)
    return spans


def _reference(documents, threshold):
    matched_pred = matched_gold = n_pred = n_gold = 0
    for document in documents:
        if not (document["highlights"] >= 0).any():
            continue
        preds, golds = _spans(list(document["selection"])), _spans(list(document["highlights"]))
        iou = [[len(p & g) / len(p | g) for g in golds] for p in preds]
        matched_pred += sum(1 for row in iou if row and max(row) >= threshold)
        matched_gold += sum(1 for j in range(len(golds)) if preds and max(r[j] for r in iou) >= threshold)
        n_pred, n_gold = n_pred + len(preds), n_gold + len(golds)
    return matched_pred, n_pred, matched_gold, n_gold


@pytest.mark.parametrize("threshold", [0.5, 0.25, 0.9])
def test_random_documents_against_loop_reference(threshold):
    documents = make_documents(60, seed=3, max_len=25)
    matched_pred, n_pred, matched_gold, n_gold = _reference(documents, threshold)
    if threshold >= 0.5:
        # maximal runs match one-to-one at IoU >= 0.5: ERASER's single TP count is well defined
        assert matched_pred == matched_gold
    p, r = matched_pred / n_pred, matched_gold / n_gold
    expected = {"iou_precision": p, "iou_recall": r, "iou_f1": 2 * p * r / (p + r)}

    whole = pad_documents(documents, extra_padding=1)
    assert_close_dict(
        iou_f1_scores(whole["selection"], whole["highlights"], whole["word_mask"], threshold=threshold), expected
    )
    metric = IouF1(threshold=threshold)
    for start in range(0, len(documents), 16):
        batch = pad_documents(documents[start : start + 16])
        metric.update(batch["selection"], batch["highlights"], batch["word_mask"])
    assert_close_dict(metric.compute(), expected)
    assert (metric.matched_pred.item(), metric.n_pred.item()) == (matched_pred, n_pred)
    assert (metric.matched_gold.item(), metric.n_gold.item()) == (matched_gold, n_gold)
