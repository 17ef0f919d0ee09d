"""How much of the input a rationale keeps, and in how many pieces."""
from __future__ import annotations

import torch
from torchmetrics import Metric

from pyhighlights.metrics._common import check_same_shape, real_words, run_starts, safe_divide, selected_words


def _sparsity_update(
    selection: torch.Tensor, word_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Batch statistics ``(selected, real, rate_sum, documents, spans)``.

    ``rate_sum`` and ``spans`` only cover documents with at least one real word
    (a row of pure padding has no rate); ``documents`` counts those.
    """
    check_same_shape(selection=selection, word_mask=word_mask)
    real = real_words(word_mask)
    chosen = selected_words(selection, word_mask)
    selected_per_doc = chosen.sum(dim=1)
    real_per_doc = real.sum(dim=1)
    has_words = real_per_doc > 0
    rates = safe_divide(selected_per_doc, real_per_doc)
    rate_sum = torch.where(has_words, rates, torch.zeros_like(rates)).sum()
    # A span is a maximal run of selected real words; padding breaks runs.
    spans = run_starts(chosen).sum()
    return selected_per_doc.sum(), real_per_doc.sum(), rate_sum, has_words.sum(), spans


def _sparsity_compute(
    selected: torch.Tensor, real: torch.Tensor, rate_sum: torch.Tensor, documents: torch.Tensor, spans: torch.Tensor
) -> dict[str, torch.Tensor]:
    return {
        "sparsity": safe_divide(selected, real),
        "sparsity_per_document": safe_divide(rate_sum, documents),
        "spans_per_document": safe_divide(spans, documents),
    }


def sparsity_scores(selection: torch.Tensor, word_mask: torch.Tensor) -> dict[str, torch.Tensor]:
    r"""Selection rate and number of selected spans.

    .. math::
        S = \frac{\sum_d |sel_d|}{\sum_d |real_d|},\qquad
        S_{doc} = \frac{1}{D}\sum_d \frac{|sel_d|}{|real_d|},\qquad
        spans = \frac{1}{D}\sum_d \#\{\text{maximal runs of selected real words in } d\}

    ``sparsity`` is micro (the number G-RAT/RNP-style papers call S and compare
    with the target sparsity); ``sparsity_per_document`` weights every
    document once. D counts documents with at least one real word; all three
    are NaN when there is none.

    Args:
        selection: [B, W] 0/1 or bool.
        word_mask: [B, W] 1 on real words.

    Example:
        >>> import torch
        >>> sel = torch.tensor([[1, 0, 1, 1], [0, 0, 0, 0]])
        >>> wm = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])
        >>> {k: round(v.item(), 3) for k, v in sparsity_scores(sel, wm).items()}
        {'sparsity': 0.5, 'sparsity_per_document': 0.375, 'spans_per_document': 1.0}
    """
    return _sparsity_compute(*_sparsity_update(selection, word_mask))


class Sparsity(Metric):
    """Module form of :func:`sparsity_scores`; state is counts plus the sum of per-document rates."""

    is_differentiable = False
    higher_is_better = None
    full_state_update = False

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        for name in ("selected", "real", "documents", "spans"):
            self.add_state(name, default=torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")
        self.add_state("rate_sum", default=torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, selection: torch.Tensor, word_mask: torch.Tensor) -> None:
        selected, real, rate_sum, documents, spans = _sparsity_update(selection, word_mask)
        self.selected += selected
        self.real += real
        self.rate_sum += rate_sum
        self.documents += documents
        self.spans += spans

    def compute(self) -> dict[str, torch.Tensor]:
        return _sparsity_compute(self.selected, self.real, self.rate_sum, self.documents, self.spans)
