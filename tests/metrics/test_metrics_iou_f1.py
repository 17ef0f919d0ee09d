"""ERASER IOU-F1 on spans."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from metrics_test_helpers import assert_close_dict, make_documents, pad_documents

from pyhighlights.metrics import IouF1, iou_f1_scores


def _spans_tensor(*documents):
    """[B, S, 2] gold spans from lists of (start, end), padded with (-1, -1)."""
    width = max(1, max(len(d) for d in documents))
    out = torch.full((len(documents), width, 2), -1, dtype=torch.long)
    for row, spans in enumerate(documents):
        for i, span in enumerate(spans):
            out[row, i] = torch.tensor(span)
    return out


def test_hand_counts(hand_batch):
    # Spans as word-position sets; doc2 is unannotated and skipped.
    #   doc0: pred {0}, {3,4};  gold {0,1}, {4}
    #         IoU({0},{0,1}) = 1/2, IoU({3,4},{4}) = 1/2 -> both preds matched: m 2, p 2, g 2
    #   doc1: pred {1,2,3} (padding 4,5 ignored); gold {1}, {3}: IoU 1/3 each -> m 0, p 1, g 2
    #   doc3: no pred; gold {0} -> m 0, p 0, g 1
    # micro P 2/3, R 2/5, F1 = 2PR/(P+R) = 1/2
    # macro P: docs with a pred (doc0 1, doc1 0) -> 1/2; R: docs with gold (1, 0, 0) -> 1/3;
    # macro F1 = 2 (1/2)(1/3) / (1/2 + 1/3) = 2/5
    out = iou_f1_scores(hand_batch["selection"], hand_batch["highlights"], hand_batch["word_mask"])
    assert_close_dict(out, {"iou_precision": 2 / 3, "iou_recall": 2 / 5, "iou_f1": 0.5,
                            "iou_macro_precision": 0.5, "iou_macro_recall": 1 / 3, "iou_macro_f1": 0.4})



def _adjacent_spans_against(start: int, end: int) -> tuple[dict, dict]:
    """Scores of a prediction [start, end) against human spans [18,24), [24,34), [34,44), written as three
    spans and, for contrast, as the mask's one maximal run [18,44)."""
    highlights = torch.zeros(1, 50, dtype=torch.long)
    highlights[0, 18:44] = 1
    selection = torch.zeros(1, 50, dtype=torch.long)
    selection[0, start:end] = 1
    spans = _spans_tensor([(18, 24), (24, 34), (34, 44)])
    as_written = iou_f1_scores(selection, highlights, torch.ones(1, 50), highlight_spans=spans)
    return as_written, iou_f1_scores(selection, highlights, torch.ones(1, 50))

def test_adjacent_human_spans_are_not_merged():
    # Human spans [18,24), [24,34), [34,44) written as three spans; prediction [19,48).
    # IoU by hand: [18,24): |[19,24)| = 5 over |[18,48)| = 30 -> 1/6
    #              [24,34): 10 over |[19,48)| = 29 -> 10/29;  [34,44): 10/29
    # best 10/29 < 0.5: no match, P = 0/1, R = 0/3, F1 = 0 (ERASER's _f1, not NaN).
    # Merging the three into [18,44) would give IoU 25/30 and F1 = 1.
    out, merged = _adjacent_spans_against(19, 48)
    assert_close_dict(out, {name: 0.0 for name in out})
    assert merged["iou_f1"] == 1.0


def test_a_prediction_matching_one_of_adjacent_spans():
    # Same human spans; prediction [24,33): IoU with [24,34) = 9/10 -> matched.
    # P = 1/1, R = 1/3 (ERASER divides matched predictions by #gold), F1 = 2 (1/3) / (4/3) = 1/2.
    # Against the merged run [18,44) the IoU would be 9/26 and nothing would match.
    out, merged = _adjacent_spans_against(24, 33)
    assert_close_dict(out, {"iou_precision": 1.0, "iou_recall": 1 / 3, "iou_f1": 0.5,
                            "iou_macro_precision": 1.0, "iou_macro_recall": 1 / 3, "iou_macro_f1": 0.5})
    assert merged["iou_f1"] == 0.0


def test_overlapping_and_repeated_gold_spans():
    # doc0: gold [0,6) and [3,9) overlap; pred [0,6) has IoU 1 with the first: m 1, p 1, g 2.
    # doc1: gold [2,5) written twice counts once (ERASER keeps evidence in a set): m 1, p 1, g 1.
    # micro P 2/2, R 2/3, F1 4/5; macro P 1, R (1/2 + 1)/2 = 3/4, F1 = 2 (3/4) / (7/4) = 6/7.
    highlights = torch.tensor([[1] * 9 + [0], [0, 0, 1, 1, 1, 0, 0, 0, 0, 0]])
    selection = torch.tensor([[1] * 6 + [0] * 4, [0, 0, 1, 1, 1, 0, 0, 0, 0, 0]])
    spans = _spans_tensor([(0, 6), (3, 9)], [(2, 5), (2, 5)])
    out = iou_f1_scores(selection, highlights, torch.ones(2, 10), highlight_spans=spans)
    assert_close_dict(out, {"iou_precision": 1.0, "iou_recall": 2 / 3, "iou_f1": 0.8,
                            "iou_macro_precision": 1.0, "iou_macro_recall": 0.75, "iou_macro_f1": 6 / 7})


def test_no_predicted_span_scores_zero_not_nan():
    # one gold span {1, 2}, nothing selected: ERASER gives P = 0 (no prediction), R = 0/1, F1 = 0
    out = iou_f1_scores(torch.zeros(1, 4), torch.tensor([[0, 1, 1, 0]]), torch.ones(1, 4))
    assert_close_dict(out, {name: 0.0 for name in out})


@pytest.mark.filterwarnings("ignore:The ``compute`` method")
def test_empty_split_is_nan():
    out = iou_f1_scores(torch.ones(1, 3), torch.full((1, 3), -1), torch.ones(1, 3))
    assert all(math.isnan(v) for v in out.values())
    assert all(math.isnan(v) for v in IouF1().compute().values())


def test_unannotated_document_is_skipped():
    # doc1 has a predicted span but no annotation: it must not add an unmatched prediction
    selection = torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]])
    highlights = torch.tensor([[0, 1, 1, 0], [-1, -1, -1, -1]])
    out = iou_f1_scores(selection, highlights, torch.ones(2, 4))
    assert_close_dict(out, {name: 1.0 for name in out})


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


def _random_gold_spans(document, rng):
    """Gold spans written by hand-like annotators: random intervals inside the document,
    sometimes adjacent, overlapping or repeated; none for an unannotated document."""
    length = len(document["highlights"])
    if not (document["highlights"] >= 0).any():
        return []
    spans = []
    for _ in range(int(rng.integers(0, 4))):
        start = int(rng.integers(0, length))
        spans.append((start, int(rng.integers(start + 1, length + 1))))
    if spans and rng.random() < 0.3:
        spans.append(spans[0])
    if spans and rng.random() < 0.3 and spans[-1][1] < length:
        spans.append((spans[-1][1], length))  # adjacent to the previous one
    return spans


def _reference(documents, golds, threshold):
    """ERASER's partial-match counts, by plain loops over sets of positions."""
    matched = n_pred = n_gold = 0
    precisions, recalls = [], []
    for document, gold in zip(documents, golds):
        if not (document["highlights"] >= 0).any():
            continue
        preds = _spans(list(document["selection"]))
        gold = {frozenset(range(a, b)) for a, b in gold}
        m = sum(1 for p in preds if gold and max(len(p & g) / len(p | g) for g in gold) >= threshold)
        matched, n_pred, n_gold = matched + m, n_pred + len(preds), n_gold + len(gold)
        if preds:
            precisions.append(m / len(preds))
        if gold:
            recalls.append(m / len(gold))
    f1 = lambda p, r: 2 * p * r / (p + r) if p and r else 0.0  # noqa: E731
    p, r = matched / n_pred, matched / n_gold
    mp, mr = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    return {"iou_precision": p, "iou_recall": r, "iou_f1": f1(p, r),
            "iou_macro_precision": mp, "iou_macro_recall": mr, "iou_macro_f1": f1(mp, mr)}


@pytest.mark.parametrize("threshold", [0.5, 0.25, 0.9])
@pytest.mark.parametrize("written_spans", [False, True])
def test_random_documents_against_loop_reference(threshold, written_spans):
    documents = make_documents(60, seed=3, max_len=25)
    rng = np.random.default_rng(7)
    if written_spans:
        golds = [_random_gold_spans(d, rng) for d in documents]
    else:  # mask-only corpora: the gold spans are the maximal runs of the mask
        golds = [[(min(s), max(s) + 1) for s in _spans(list(d["highlights"]))] for d in documents]
    expected = _reference(documents, golds, threshold)

    whole = pad_documents(documents, extra_padding=1)
    spans = _spans_tensor(*golds) if written_spans else None
    assert_close_dict(iou_f1_scores(whole["selection"], whole["highlights"], whole["word_mask"], threshold=threshold,
                                    highlight_spans=spans), expected)
    metric = IouF1(threshold=threshold)
    for start in range(0, len(documents), 16):
        batch = pad_documents(documents[start : start + 16])
        metric.update(batch["selection"], batch["highlights"], batch["word_mask"],
                      _spans_tensor(*golds[start : start + 16]) if written_spans else None)
    assert_close_dict(metric.compute(), expected)
