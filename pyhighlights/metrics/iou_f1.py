"""ERASER's IOU-F1: span-level partial-match F1 of rationales against human highlights."""
from __future__ import annotations

import torch
from torchmetrics import Metric

from pyhighlights.metrics._common import (
    check_same_shape,
    real_words,
    safe_divide,
    scored_words,
    selected_words,
    span_ids,
)


def _best_iou(
    pred_ids: torch.Tensor, pred_lengths: torch.Tensor, gold_ids: torch.Tensor, gold_lengths: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Best IoU of every predicted span with any gold span, and of every gold span
    with any predicted span (0 when it overlaps none).

    Spans only overlap within a document, so the intersections are counted on
    the positions where both a predicted and a gold span lie: one
    ``unique(pred_id, gold_id)`` over those positions gives every overlapping
    pair with its intersection size, without a loop over documents.
    """
    best_pred = torch.zeros(len(pred_lengths), dtype=torch.float64, device=pred_ids.device)
    best_gold = torch.zeros(len(gold_lengths), dtype=torch.float64, device=pred_ids.device)
    both = (pred_ids >= 0) & (gold_ids >= 0)
    if not both.any():
        return best_pred, best_gold
    pair_keys = pred_ids[both] * len(gold_lengths) + gold_ids[both]
    pairs, intersections = torch.unique(pair_keys, return_counts=True)
    pred_of_pair, gold_of_pair = pairs // len(gold_lengths), pairs % len(gold_lengths)
    unions = pred_lengths[pred_of_pair] + gold_lengths[gold_of_pair] - intersections
    ious = intersections.double() / unions.double()
    best_pred.scatter_reduce_(0, pred_of_pair, ious, reduce="amax")
    best_gold.scatter_reduce_(0, gold_of_pair, ious, reduce="amax")
    return best_pred, best_gold


def _iou_f1_update(
    selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor, threshold: float = 0.5
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Span counts ``(matched_pred, n_pred, matched_gold, n_gold)`` of a batch."""
    check_same_shape(selection=selection, highlights=highlights, word_mask=word_mask)
    # Only documents with a human annotation are scored (as in ERASER, which
    # scores the annotated documents); unannotated ones would add unmatched
    # predicted spans that no human could have confirmed.
    annotated = scored_words(highlights, word_mask).any(dim=1, keepdim=True)
    pred = selected_words(selection, word_mask) & annotated
    gold = (highlights == 1) & real_words(word_mask)
    pred_ids, pred_lengths = span_ids(pred)
    gold_ids, gold_lengths = span_ids(gold)
    best_pred, best_gold = _best_iou(pred_ids, pred_lengths, gold_ids, gold_lengths)
    return (
        (best_pred >= threshold).sum(),
        torch.tensor(len(pred_lengths), device=selection.device),
        (best_gold >= threshold).sum(),
        torch.tensor(len(gold_lengths), device=selection.device),
    )


def _iou_f1_compute(
    matched_pred: torch.Tensor, n_pred: torch.Tensor, matched_gold: torch.Tensor, n_gold: torch.Tensor
) -> dict[str, torch.Tensor]:
    precision = safe_divide(matched_pred, n_pred)
    recall = safe_divide(matched_gold, n_gold)
    return {
        "iou_precision": precision,
        "iou_recall": recall,
        "iou_f1": safe_divide(2 * precision * recall, precision + recall),
    }


def iou_f1_scores(
    selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor, threshold: float = 0.5
) -> dict[str, torch.Tensor]:
    r"""ERASER IOU-F1 (DeYoung et al., 2020, "ERASER: A Benchmark to Evaluate
    Rationalized NLP Models", ACL).

    A span is a maximal run of contiguous words: predicted spans are runs of
    selected real words, gold spans runs of ``highlights == 1``. For spans a, b
    of the same document, IoU(a, b) = |a ∩ b| / |a ∪ b| over word positions.

    .. math::
        P = \frac{\#\{p : \max_g IoU(p, g) \ge t\}}{\#pred},\quad
        R = \frac{\#\{g : \max_p IoU(p, g) \ge t\}}{\#gold},\quad
        F_1 = \frac{2PR}{P+R}

    micro over all scored documents. Recall counts the gold spans that some
    prediction matches. For t >= 0.5 (ERASER's setting) matching is one-to-one
    between maximal runs — two disjoint runs cannot both reach IoU 0.5 with
    one run without being adjacent, i.e. one run — so the two numerators are
    equal and this is exactly ERASER's count of matched predictions divided
    by the number of gold spans. For t < 0.5 the numerators may differ and
    recall stays <= 1.

    Documents with no annotated real word are skipped. P is NaN with no
    predicted span, R with no gold span, F1 when either is NaN or P+R = 0.

    Args:
        selection: [B, W] 0/1 or bool.
        highlights: [B, W] 1 / 0, -1 unannotated or padding.
        word_mask: [B, W] 1 on real words.
        threshold: minimum IoU for a match (ERASER: 0.5).

    Returns:
        dict with float64 scalars ``iou_precision``, ``iou_recall``, ``iou_f1``.

    Example:
        >>> import torch
        >>> sel = torch.tensor([[1, 1, 0, 0, 1, 0]])
        >>> hl = torch.tensor([[1, 1, 1, 0, 0, 0]])
        >>> {k: round(v.item(), 3) for k, v in iou_f1_scores(sel, hl, torch.ones(1, 6)).items()}
        {'iou_precision': 0.5, 'iou_recall': 1.0, 'iou_f1': 0.667}
    """
    return _iou_f1_compute(*_iou_f1_update(selection, highlights, word_mask, threshold))


class IouF1(Metric):
    """Module form of :func:`iou_f1_scores`; state is the four span counts."""

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    def __init__(self, threshold: float = 0.5, **kwargs) -> None:
        super().__init__(**kwargs)
        self.threshold = threshold
        for name in ("matched_pred", "n_pred", "matched_gold", "n_gold"):
            self.add_state(name, default=torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor) -> None:
        matched_pred, n_pred, matched_gold, n_gold = _iou_f1_update(selection, highlights, word_mask, self.threshold)
        self.matched_pred += matched_pred
        self.n_pred += n_pred
        self.matched_gold += matched_gold
        self.n_gold += n_gold

    def compute(self) -> dict[str, torch.Tensor]:
        return _iou_f1_compute(self.matched_pred, self.n_pred, self.matched_gold, self.n_gold)
