"""AOPC comprehensiveness and sufficiency of soft word scores over top-k% bins."""
from __future__ import annotations

from typing import Callable, Sequence

import torch
from torchmetrics import Metric

from pyhighlights.metrics._common import descending_order, real_words, safe_divide
from pyhighlights.metrics.faithfulness import _probability_drops

#: ERASER's bins: the top 1, 5, 10, 20 and 50 % of the words.
AOPC_FRACTIONS: tuple[float, ...] = (0.01, 0.05, 0.1, 0.2, 0.5)

# fraction * n is computed in floating point (0.1 * 30 = 3.0000000000000004);
# without this slack ceil would keep one word too many.
_CEIL_SLACK = 1e-9


def top_k_masks(
    scores: torch.Tensor, word_mask: torch.Tensor, fractions: Sequence[float] = AOPC_FRACTIONS
) -> torch.Tensor:
    """For each fraction f, a 0/1 mask [B, W] keeping the ceil(f * n_real)
    highest-scoring real words of each document.

    Ties in score go to the earlier position, so the masks are deterministic;
    padding is never kept. Returns [K, B, W] in ``word_mask``'s dtype
    (index it or iterate over it for one mask per fraction).

    Example:
        >>> import torch
        >>> scores = torch.tensor([[0.1, 0.5, 0.5, 0.9, 0.0]])
        >>> word_mask = torch.tensor([[1, 1, 1, 1, 0]])
        >>> top_k_masks(scores, word_mask, (0.25, 0.5)).tolist()
        [[[0, 0, 0, 1, 0]], [[0, 1, 0, 1, 0]]]
    """
    real = real_words(word_mask)
    order = descending_order(scores, real)
    # rank[b, w] = place of word w in document b's ordering (0 = best).
    places = torch.arange(order.shape[1], device=order.device).expand_as(order)
    rank = torch.empty_like(order).scatter_(1, order, places)
    n_real = real.sum(dim=1, keepdim=True).double()
    masks = []
    for fraction in fractions:
        keep = torch.ceil(n_real * fraction - _CEIL_SLACK).long()
        masks.append((rank < keep) & real)
    return torch.stack(masks).to(word_mask.dtype)


def aopc_probabilities(
    prob_fn: Callable[[torch.Tensor], torch.Tensor],
    scores: torch.Tensor,
    word_mask: torch.Tensor,
    fractions: Sequence[float] = AOPC_FRACTIONS,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Query ``prob_fn`` on the full input and on every bin.

    ``prob_fn(mask)`` receives a [B, W] mask of the words to **keep** (1 =
    present) and returns class probabilities [B, C]. Returns ``p_full`` [B, C],
    ``p_removed`` [K, B, C] (top-k% words removed) and ``p_kept`` [K, B, C]
    (only the top-k% words kept). Note a bin can remove every word of a very
    short document (ceil(0.5 * 1) = 1), so ``prob_fn`` must accept an empty mask.
    """
    real = real_words(word_mask)
    masks = top_k_masks(scores, word_mask, fractions).bool()
    p_full = prob_fn(word_mask)
    # Masks go to prob_fn in word_mask's dtype, whatever that is (bool, long, float).
    p_removed = torch.stack([prob_fn((real & ~top).to(word_mask.dtype)) for top in masks])
    p_kept = torch.stack([prob_fn(top.to(word_mask.dtype)) for top in masks])
    return p_full, p_removed, p_kept


def _aopc_update(
    p_full: torch.Tensor, p_removed: torch.Tensor, p_kept: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(AOPC comprehensiveness sum, AOPC sufficiency sum, examples)`` of a batch."""
    if p_removed.shape != p_kept.shape or p_removed.shape[1:] != p_full.shape:
        raise ValueError(
            f"expected p_full [B, C] and p_removed, p_kept [K, B, C]; got {tuple(p_full.shape)}, "
            f"{tuple(p_removed.shape)}, {tuple(p_kept.shape)}"
        )
    comprehensiveness = _probability_drops(p_full, p_removed).mean(dim=0)  # mean over bins, [B]
    sufficiency = _probability_drops(p_full, p_kept).mean(dim=0)
    return comprehensiveness.sum(), sufficiency.sum(), torch.tensor(p_full.shape[0], device=p_full.device)


def _aopc_compute(
    comprehensiveness_sum: torch.Tensor, sufficiency_sum: torch.Tensor, examples: torch.Tensor
) -> dict[str, torch.Tensor]:
    return {
        "aopc_comprehensiveness": safe_divide(comprehensiveness_sum, examples),
        "aopc_sufficiency": safe_divide(sufficiency_sum, examples),
    }


def aopc_faithfulness(
    prob_fn: Callable[[torch.Tensor], torch.Tensor],
    scores: torch.Tensor,
    word_mask: torch.Tensor,
    fractions: Sequence[float] = AOPC_FRACTIONS,
) -> dict[str, torch.Tensor]:
    r"""AOPC comprehensiveness and sufficiency (DeYoung et al., 2020, "ERASER: A
    Benchmark to Evaluate Rationalized NLP Models", ACL; AOPC after Samek et
    al., 2017).

    With ŷ the class predicted on the full input x, r_k the ceil(k·n) highest
    scoring words (see :func:`top_k_masks`) and bins k in ``fractions``:

    .. math::
        AOPC_{comp} = \frac{1}{|K|}\sum_{k \in K} p(\hat y|x) - p(\hat y|x \setminus r_k),\qquad
        AOPC_{suff} = \frac{1}{|K|}\sum_{k \in K} p(\hat y|x) - p(\hat y|r_k)

    averaged over the examples. The mean is over the given bins only; the
    ERASER paper writes the sum with an extra k = 0 term and divides by
    |K| + 1. ``prob_fn`` decides which model is probed (see
    :func:`aopc_probabilities`). NaN with no example.

    Example:
        >>> import torch
        >>> def prob_fn(mask):  # a toy model: p(class 1) = share of word 0 kept
        ...     p1 = mask[:, :1].double() * 0.5 + 0.25
        ...     return torch.cat([1 - p1, p1], dim=1)
        >>> scores = torch.tensor([[0.9, 0.1, 0.2, 0.3]])
        >>> out = aopc_faithfulness(prob_fn, scores, torch.ones(1, 4, dtype=torch.long), (0.25, 0.5))
        >>> {k: round(v.item(), 3) for k, v in out.items()}
        {'aopc_comprehensiveness': 0.5, 'aopc_sufficiency': 0.0}
    """
    return _aopc_compute(*_aopc_update(*aopc_probabilities(prob_fn, scores, word_mask, fractions)))


class AOPCFaithfulness(Metric):
    """Module form of :func:`aopc_faithfulness`, fed with the probabilities of
    :func:`aopc_probabilities` so they can be accumulated over batches.

    State: the two per-example AOPC sums and the example count.
    """

    is_differentiable = False
    higher_is_better = None  # comprehensiveness: higher; sufficiency: lower
    full_state_update = False

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.add_state("comprehensiveness_sum", default=torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("sufficiency_sum", default=torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("examples", default=torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, p_full: torch.Tensor, p_removed: torch.Tensor, p_kept: torch.Tensor) -> None:
        comprehensiveness_sum, sufficiency_sum, examples = _aopc_update(p_full, p_removed, p_kept)
        self.comprehensiveness_sum += comprehensiveness_sum
        self.sufficiency_sum += sufficiency_sum
        self.examples += examples

    def compute(self) -> dict[str, torch.Tensor]:
        return _aopc_compute(self.comprehensiveness_sum, self.sufficiency_sum, self.examples)
