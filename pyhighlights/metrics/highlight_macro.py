"""Macro (per-document) highlight precision / recall / F1, ERASER's "instance_macro".

Each document gets its own P/R/F1, then the values are averaged, so every
document counts once whatever its length (DeYoung et al., 2020, "ERASER: A
Benchmark to Evaluate Rationalized NLP Models", ACL).
"""
from __future__ import annotations

import torch
from torchmetrics import Metric

from pyhighlights.metrics._common import check_same_shape, safe_divide, scored_words, selected_words

_NAMES = ("precision", "recall", "f1")


def _highlight_macro_update(
    selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-batch ``(sums [3], counts [3])`` of the defined per-document P, R, F1.

    Counts differ per score because each score is undefined in different
    documents (see :func:`highlight_macro_scores`).
    """
    check_same_shape(selection=selection, highlights=highlights, word_mask=word_mask)
    scored = scored_words(highlights, word_mask)
    chosen = selected_words(selection, word_mask) & scored
    gold = (highlights == 1) & scored
    tp = (chosen & gold).sum(dim=1)
    fp = (chosen & ~gold).sum(dim=1)
    fn = (~chosen & gold).sum(dim=1)
    per_document = torch.stack(
        [safe_divide(tp, tp + fp), safe_divide(tp, tp + fn), safe_divide(2 * tp, 2 * tp + fp + fn)]
    )  # [3, B]
    # A document with no annotated real word is not scored at all (its
    # counts are all 0, so its three scores are already NaN and skipped).
    defined = ~torch.isnan(per_document)
    sums = torch.where(defined, per_document, torch.zeros_like(per_document)).sum(dim=1)
    return sums, defined.sum(dim=1)


def _highlight_macro_compute(sums: torch.Tensor, counts: torch.Tensor) -> dict[str, torch.Tensor]:
    means = safe_divide(sums, counts)
    return {f"macro_{name}": means[i] for i, name in enumerate(_NAMES)}


def highlight_macro_scores(
    selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor
) -> dict[str, torch.Tensor]:
    r"""Macro precision, recall and F1 of word selections against human highlights.

    For each document d, over its real annotated words (``word_mask`` 1 and
    ``highlights`` != -1), with token counts tp_d, fp_d, fn_d:

    .. math::
        P_d = \frac{tp_d}{tp_d+fp_d},\quad R_d = \frac{tp_d}{tp_d+fn_d},\quad
        F_{1,d} = \frac{2\,tp_d}{2\,tp_d+fp_d+fn_d}

    and each macro score is the mean of the per-document values **that are
    defined**:

    - a document with no annotated real word is skipped for all three;
    - precision skips documents with nothing selected (tp_d+fp_d = 0);
    - recall skips documents with no highlighted word (tp_d+fn_d = 0);
    - F1 skips documents with tp_d = fp_d = fn_d = 0 (nothing selected and
      nothing highlighted). A document with highlights but no selection has
      F1 = 0 and recall = 0 and is kept in those averages.

    Skipping (rather than scoring an undefined value as 0) means the three
    averages may be over different document sets. A score with no defined
    document at all is NaN.

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
        {'macro_precision': 0.5, 'macro_recall': 0.5, 'macro_f1': 0.333}
    """
    return _highlight_macro_compute(*_highlight_macro_update(selection, highlights, word_mask))


class HighlightMacroScores(Metric):
    """Module form of :func:`highlight_macro_scores`.

    State: the sums of the defined per-document P, R, F1 and how many documents
    each sum holds, so the average over all ranks is exact under DDP.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.add_state("sums", default=torch.zeros(len(_NAMES), dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("counts", default=torch.zeros(len(_NAMES), dtype=torch.long), dist_reduce_fx="sum")

    def update(self, selection: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor) -> None:
        sums, counts = _highlight_macro_update(selection, highlights, word_mask)
        self.sums += sums
        self.counts += counts

    def compute(self) -> dict[str, torch.Tensor]:
        return _highlight_macro_compute(self.sums, self.counts)
