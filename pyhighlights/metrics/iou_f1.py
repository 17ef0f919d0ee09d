"""ERASER's IOU-F1: span-level partial-match F1 of rationales against human evidence spans."""
from __future__ import annotations

import torch
from torchmetrics import Metric

from pyhighlights.metrics._common import (
    check_same_shape,
    eraser_f1,
    mask_spans,
    real_words,
    safe_divide,
    scored_words,
    selected_words,
)

def _unique_spans(spans: torch.Tensor) -> torch.Tensor:
    """``spans`` [B, S, 2] with repeats of a span within its row set to padding.

    ERASER keeps a document's evidence in a set, so a span written twice counts once.
    """
    same = (spans.unsqueeze(2) == spans.unsqueeze(1)).all(dim=-1)  # [B, S, S]
    earlier = torch.ones(spans.shape[1], spans.shape[1], dtype=torch.bool, device=spans.device).tril(-1)
    repeated = (same & earlier).any(dim=-1) & (spans[..., 0] >= 0)
    return spans.masked_fill(repeated.unsqueeze(-1), -1)


def _best_iou(pred: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
    """Best IoU [B, P] of every predicted span with a gold span of its document (0 if none).

    Spans are word intervals, so |a ∩ b| and |a ∪ b| are interval arithmetic.
    """
    pred_start, pred_end = pred[..., 0].unsqueeze(2), pred[..., 1].unsqueeze(2)  # [B, P, 1]
    gold_start, gold_end = gold[..., 0].unsqueeze(1), gold[..., 1].unsqueeze(1)  # [B, 1, G]
    intersection = (torch.minimum(pred_end, gold_end) - torch.maximum(pred_start, gold_start)).clamp(min=0)
    union = (pred_end - pred_start) + (gold_end - gold_start) - intersection
    valid = (pred_start >= 0) & (gold_start >= 0) & (union > 0)
    iou = torch.where(valid, intersection.double() / union.clamp(min=1).double(), 0.0)
    if iou.shape[2] == 0:
        return torch.zeros(pred.shape[:2], dtype=torch.float64, device=pred.device)
    return iou.amax(dim=2)


def _iou_f1_update(
    selection: torch.Tensor,
    highlights: torch.Tensor,
    word_mask: torch.Tensor,
    threshold: float = 0.5,
    highlight_spans: torch.Tensor | None = None,
) -> tuple[torch.Tensor, ...]:
    """Counts of a batch: scored documents, matched predicted spans, predicted spans, gold
    spans, and the sums of per-document matched/#pred and matched/#gold with how many
    documents each sum holds (for the macro average)."""
    check_same_shape(selection=selection, highlights=highlights, word_mask=word_mask)
    # Only documents with a human annotation are scored, as ERASER scores the
    # annotated documents of its test sets.
    annotated = scored_words(highlights, word_mask).any(dim=1)
    pred = mask_spans(selected_words(selection, word_mask) & annotated.unsqueeze(1))
    if highlight_spans is None:
        gold = mask_spans((highlights == 1) & real_words(word_mask))
    else:
        shape = tuple(highlight_spans.shape)
        if len(shape) != 3 or shape[0] != selection.shape[0] or shape[2] != 2:
            raise ValueError(f"highlight_spans: expected [B, S, 2] with B = {selection.shape[0]}, "
                             f"got {shape}")
        gold = _unique_spans(highlight_spans.long().masked_fill(~annotated.view(-1, 1, 1), -1))
    matched_per_pred = (_best_iou(pred, gold) >= threshold) & (pred[..., 0] >= 0)
    matched = matched_per_pred.sum(dim=1)  # [B]: ERASER counts matched predictions, also for recall
    n_pred, n_gold = (pred[..., 0] >= 0).sum(dim=1), (gold[..., 0] >= 0).sum(dim=1)
    # per-document ratios for the macro averages; a document enters each only if its denominator is > 0
    precision_d = matched.double() / n_pred.clamp(min=1).double()
    recall_d = matched.double() / n_gold.clamp(min=1).double()
    return (
        annotated.sum(),
        matched.sum(),
        n_pred.sum(),
        n_gold.sum(),
        torch.stack([precision_d.double().sum(), recall_d.double().sum()]),
        torch.stack([(n_pred > 0).sum(), (n_gold > 0).sum()]),
    )


def _ratio_or_zero(numerator: torch.Tensor, denominator: torch.Tensor) -> torch.Tensor:
    return torch.where(torch.as_tensor(denominator) > 0, safe_divide(numerator, denominator),
                       torch.zeros((), dtype=torch.float64))


def _iou_f1_compute(documents, matched, n_pred, n_gold, macro_sums, macro_counts) -> dict[str, torch.Tensor]:
    precision, recall = _ratio_or_zero(matched, n_pred), _ratio_or_zero(matched, n_gold)
    macro_precision = _ratio_or_zero(macro_sums[0], macro_counts[0])
    macro_recall = _ratio_or_zero(macro_sums[1], macro_counts[1])
    values = {
        "iou_precision": precision,
        "iou_recall": recall,
        "iou_f1": eraser_f1(precision, recall),
        "iou_macro_precision": macro_precision,
        "iou_macro_recall": macro_recall,
        "iou_macro_f1": eraser_f1(macro_precision, macro_recall),
    }
    if int(documents) == 0:  # an empty split: nothing to average
        values = {name: torch.tensor(float("nan"), dtype=torch.float64) for name in values}
    return values


def iou_f1_scores(
    selection: torch.Tensor,
    highlights: torch.Tensor,
    word_mask: torch.Tensor,
    threshold: float = 0.5,
    *,
    highlight_spans: torch.Tensor | None = None,
) -> dict[str, torch.Tensor]:
    r"""ERASER IOU-F1 (DeYoung et al., 2020, "ERASER: A Benchmark to Evaluate
    Rationalized NLP Models", ACL), with its scorer's conventions.

    Predicted spans are the maximal runs of selected real words. Gold spans are
    the human evidence spans **as written** (``highlight_spans``): adjacent or
    overlapping spans stay separate, a span repeated in a document counts once.
    Without ``highlight_spans`` (corpora that give only a 0/1 mask) the gold
    spans are the maximal runs of ``highlights == 1``. For spans a, b of one
    document IoU(a, b) = |a ∩ b| / |a ∪ b| over word positions; a predicted
    span p is matched when max_g IoU(p, g) >= t. With m_d matched predictions,
    p_d predicted and g_d gold spans in document d:

    .. math::
        P = \frac{\sum_d m_d}{\sum_d p_d},\quad R = \frac{\sum_d m_d}{\sum_d g_d},\quad
        F_1 = \frac{2PR}{P+R}

    (ERASER counts matched *predictions* for recall too), and the macro
    versions: P_macro the mean of m_d/p_d over documents with a predicted span,
    R_macro the mean of m_d/g_d over documents with a gold span, F1_macro the
    harmonic mean of the two. As in ERASER a ratio with a zero denominator is
    0 and F1 is 0 when P or R is 0. Only documents with an annotated real word
    are scored; all values are NaN when there is none (an empty split).

    Args:
        selection: [B, W] 0/1 or bool.
        highlights: [B, W] 1 / 0, -1 unannotated or padding.
        word_mask: [B, W] 1 on real words.
        threshold: minimum IoU for a match (ERASER: 0.5).
        highlight_spans: [B, S, 2] gold (start, end) word spans, end exclusive,
            (-1, -1) padding; None = maximal runs of the highlight mask.

    Returns:
        dict with float64 scalars ``iou_precision``, ``iou_recall``, ``iou_f1`` and
        ``iou_macro_precision``, ``iou_macro_recall``, ``iou_macro_f1``.

    Example:
        >>> import torch
        >>> sel = torch.tensor([[1, 1, 0, 0, 1, 0]])
        >>> hl = torch.tensor([[1, 1, 1, 0, 0, 0]])
        >>> out = iou_f1_scores(sel, hl, torch.ones(1, 6))
        >>> [round(out[k].item(), 3) for k in ("iou_precision", "iou_recall", "iou_f1")]
        [0.5, 1.0, 0.667]
    """
    return _iou_f1_compute(*_iou_f1_update(selection, highlights, word_mask, threshold, highlight_spans))


class IouF1(Metric):
    """Module form of :func:`iou_f1_scores`; state is span and document counts and
    the sums of per-document ratios, all summed across processes."""

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    def __init__(self, threshold: float = 0.5, **kwargs) -> None:
        super().__init__(**kwargs)
        self.threshold = threshold
        for name in ("documents", "matched", "n_pred", "n_gold"):
            self.add_state(name, default=torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")
        self.add_state("macro_sums", default=torch.zeros(2, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("macro_counts", default=torch.zeros(2, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor,
               highlight_spans: torch.Tensor | None = None) -> None:
        documents, matched, n_pred, n_gold, macro_sums, macro_counts = _iou_f1_update(
            selection, highlights, word_mask, self.threshold, highlight_spans)
        self.documents += documents
        self.matched += matched
        self.n_pred += n_pred
        self.n_gold += n_gold
        self.macro_sums += macro_sums
        self.macro_counts += macro_counts

    def compute(self) -> dict[str, torch.Tensor]:
        return _iou_f1_compute(self.documents, self.matched, self.n_pred, self.n_gold, self.macro_sums,
                               self.macro_counts)
