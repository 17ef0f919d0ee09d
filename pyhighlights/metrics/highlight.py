"""Micro highlight precision / recall / F1 / IoU against human highlights.

This is the plausibility number rationalization papers report (RNP, DMR, FR,
G-RAT, ...): token counts are pooled over every annotated real word of the
split before dividing, so long documents weigh more than short ones.
"""
from __future__ import annotations

import torch
from torchmetrics import Metric

from pyhighlights.metrics._common import check_same_shape, safe_divide, scored_words, selected_words


def _highlight_update(
    selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Token counts ``(tp, fp, fn)`` over real words whose highlight is not -1."""
    check_same_shape(selection=selection, highlights=highlights, word_mask=word_mask)
    scored = scored_words(highlights, word_mask)
    chosen = selected_words(selection, word_mask) & scored
    gold = (highlights == 1) & scored
    tp = (chosen & gold).sum()
    fp = (chosen & ~gold).sum()
    fn = (~chosen & gold).sum()
    return tp, fp, fn


def _highlight_compute(tp: torch.Tensor, fp: torch.Tensor, fn: torch.Tensor) -> dict[str, torch.Tensor]:
    return {
        "precision": safe_divide(tp, tp + fp),
        "recall": safe_divide(tp, tp + fn),
        "f1": safe_divide(2 * tp, 2 * tp + fp + fn),
        "iou": safe_divide(tp, tp + fp + fn),
    }


def highlight_scores(
    selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor
) -> dict[str, torch.Tensor]:
    r"""Micro precision, recall, F1 and IoU of a word selection against human highlights.

    Only real words (``word_mask`` 1) with an annotation (``highlights`` 0 or 1,
    not -1) are scored. With token counts tp, fp, fn pooled over all of them:

    .. math::
        P = \frac{tp}{tp+fp},\quad R = \frac{tp}{tp+fn},\quad
        F_1 = \frac{2\,tp}{2\,tp+fp+fn},\quad IoU = \frac{tp}{tp+fp+fn}

    A value whose denominator is 0 is NaN (e.g. precision when nothing annotated
    was selected, everything when nothing is annotated).

    Args:
        selection: [B, W] 0/1 or bool, the words the model kept.
        highlights: [B, W] 1 highlighted, 0 not, -1 unannotated or padding.
        word_mask: [B, W] 1 on real words.

    Returns:
        dict with float64 scalars ``precision``, ``recall``, ``f1``, ``iou``.

    Example:
        >>> import torch
        >>> sel = torch.tensor([[1, 1, 0, 0]])
        >>> hl = torch.tensor([[1, 0, 1, -1]])
        >>> wm = torch.tensor([[1, 1, 1, 0]])
        >>> {k: round(v.item(), 3) for k, v in highlight_scores(sel, hl, wm).items()}
        {'precision': 0.5, 'recall': 0.5, 'f1': 0.5, 'iou': 0.333}
    """
    return _highlight_compute(*_highlight_update(selection, highlights, word_mask))


class HighlightScores(Metric):
    """Module form of :func:`highlight_scores`; state is the (tp, fp, fn) token counts.

    Example:
        >>> import torch
        >>> metric = HighlightScores()
        >>> metric.update(torch.tensor([[1, 0]]), torch.tensor([[1, 1]]), torch.tensor([[1, 1]]))
        >>> metric.update(torch.tensor([[1, 1]]), torch.tensor([[0, -1]]), torch.tensor([[1, 1]]))
        >>> {k: round(v.item(), 3) for k, v in metric.compute().items()}
        {'precision': 0.5, 'recall': 0.5, 'f1': 0.5, 'iou': 0.333}
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        for name in ("tp", "fp", "fn"):
            self.add_state(name, default=torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor) -> None:
        tp, fp, fn = _highlight_update(selection, highlights, word_mask)
        self.tp += tp
        self.fp += fp
        self.fn += fn

    def compute(self) -> dict[str, torch.Tensor]:
        return _highlight_compute(self.tp, self.fp, self.fn)
