"""Macro (per-document) highlight precision / recall / F1, ERASER's "instance_macro".

Each document gets its own P/R/F1, then the values are averaged, so every
document counts once whatever its length (DeYoung et al., 2020, "ERASER: A
Benchmark to Evaluate Rationalized NLP Models", ACL).
"""
from __future__ import annotations

import torch
from torchmetrics import Metric

from pyhighlights.metrics._common import check_same_shape, eraser_f1, safe_divide, scored_words, selected_words

_NAMES = ("precision", "recall", "f1")


def _highlight_macro_update(
    selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-batch ``(sums [3] of the per-document P, R, F1, number of documents scored)``."""
    check_same_shape(selection=selection, highlights=highlights, word_mask=word_mask)
    scored = scored_words(highlights, word_mask)
    chosen = selected_words(selection, word_mask) & scored
    gold = (highlights == 1) & scored
    tp = (chosen & gold).sum(dim=1)
    fp = (chosen & ~gold).sum(dim=1)
    fn = (~chosen & gold).sum(dim=1)
    zero = torch.zeros((), dtype=torch.float64, device=tp.device)
    precision = torch.where(tp + fp > 0, safe_divide(tp, tp + fp), zero)
    recall = torch.where(tp + fn > 0, safe_divide(tp, tp + fn), zero)
    per_document = torch.stack([precision, recall, eraser_f1(precision, recall)])  # [3, B]
    # ERASER scores a document when it has a human or a predicted rationale.
    counted = (tp + fp + fn) > 0
    sums = torch.where(counted, per_document, zero).sum(dim=1)
    return sums, counted.sum()


def _highlight_macro_compute(sums: torch.Tensor, documents: torch.Tensor) -> dict[str, torch.Tensor]:
    means = safe_divide(sums, documents)
    return {f"macro_{name}": means[i] for i, name in enumerate(_NAMES)}


def highlight_macro_scores(
    selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor
) -> dict[str, torch.Tensor]:
    r"""Macro precision, recall and F1 of word selections against human highlights,
    with the conventions of ERASER's scorer ("instance_macro").

    For each document d, over its real annotated words (``word_mask`` 1 and
    ``highlights`` != -1), with token counts tp_d, fp_d, fn_d:

    .. math::
        P_d = \frac{tp_d}{tp_d+fp_d},\quad R_d = \frac{tp_d}{tp_d+fn_d},\quad
        F_{1,d} = \frac{2 P_d R_d}{P_d + R_d}

    where a ratio with a zero denominator is 0 and F1 is 0 when P_d or R_d is
    0. So a document that selects nothing has precision 0 and still counts.
    Each macro score is the mean over the documents ERASER scores: those with
    a highlighted or a selected annotated word (tp_d + fp_d + fn_d > 0);
    documents without either, and documents with no annotated word, are left
    out. NaN only when no document is scored.

    Args:
        selection: [B, W] 0/1 or bool.
        highlights: [B, W] 1 / 0, -1 unannotated or padding.
        word_mask: [B, W] 1 on real words.

    Returns:
        dict with float64 scalars ``macro_precision``, ``macro_recall``, ``macro_f1``.

    Example:
        >>> import torch
        >>> sel = torch.tensor([[1, 1, 0], [0, 0, 0]])
        >>> hl = torch.tensor([[1, 0, 0], [1, 0, -1]])
        >>> wm = torch.ones(2, 3)
        >>> {k: round(v.item(), 3) for k, v in highlight_macro_scores(sel, hl, wm).items()}
        {'macro_precision': 0.25, 'macro_recall': 0.5, 'macro_f1': 0.333}
    """
    return _highlight_macro_compute(*_highlight_macro_update(selection, highlights, word_mask))


class HighlightMacroScores(Metric):
    """Module form of :func:`highlight_macro_scores`.

    State: the sums of the per-document P, R, F1 and the number of documents
    scored, so the average over all ranks is exact under DDP.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.add_state("sums", default=torch.zeros(len(_NAMES), dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("documents", default=torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor) -> None:
        sums, documents = _highlight_macro_update(selection, highlights, word_mask)
        self.sums += sums
        self.documents += documents

    def compute(self) -> dict[str, torch.Tensor]:
        return _highlight_macro_compute(self.sums, self.documents)
