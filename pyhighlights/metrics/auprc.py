"""ERASER's token-level AUPRC of soft rationale scores against human highlights."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torchmetrics import Metric

from pyhighlights.metrics._common import check_same_shape, descending_order, safe_divide, scored_words


def auprc_per_document(scores: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """Area under each document's precision-recall curve, [B] float64, NaN for
    documents without a highlighted (positive) annotated real word.

    The curve has one point per distinct score among the document's scored
    words (ties form one threshold), at threshold t: precision = tp(t) /
    #{score >= t}, recall = tp(t) / #positives; it starts at (recall 0,
    precision 1) like scikit-learn's ``precision_recall_curve``. The area is
    the trapezoid rule over consecutive points. Vectorised over the batch:
    each row is sorted once, and the previous curve point of every point is
    found with a running max of indices.
    """
    check_same_shape(scores=scores, highlights=highlights, word_mask=word_mask)
    scored = scored_words(highlights, word_mask)
    order = descending_order(scores.double(), scored)
    sorted_scores = scores.double().gather(1, order)
    sorted_scored = scored.gather(1, order)
    sorted_positive = ((highlights == 1) & scored).gather(1, order)

    true_pos = torch.cumsum(sorted_positive.double(), dim=1)
    ranked = torch.arange(1, scores.shape[1] + 1, device=scores.device, dtype=torch.float64)
    positives = sorted_positive.sum(dim=1, keepdim=True).double()
    precision = true_pos / ranked
    recall = true_pos / positives.clamp(min=1)

    # A curve point sits at the last word of each group of equal scores:
    # the next word has a different score or is not scored.
    next_scored = F.pad(sorted_scored, (0, 1), value=False)[:, 1:]
    next_score = F.pad(sorted_scores, (0, 1), value=0.0)[:, 1:]
    point = sorted_scored & (~next_scored | (next_score != sorted_scores))

    # Previous point of each position: running max of point indices, shifted by one.
    position = torch.arange(scores.shape[1], device=scores.device).expand_as(point)
    point_index = torch.where(point, position, torch.full_like(position, -1))
    previous = F.pad(torch.cummax(point_index, dim=1).values, (1, 0), value=-1)[:, :-1]
    has_previous = previous >= 0
    previous = previous.clamp(min=0)
    recall_before = torch.where(has_previous, recall.gather(1, previous), torch.zeros_like(recall))
    precision_before = torch.where(has_previous, precision.gather(1, previous), torch.ones_like(precision))

    trapezoids = (recall - recall_before) * (precision + precision_before) / 2
    area = torch.where(point, trapezoids, torch.zeros_like(trapezoids)).sum(dim=1)
    return torch.where(positives.squeeze(1) > 0, area, torch.full_like(area, float("nan")))


def _auprc_update(
    scores: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(sum of per-document AUPRC, number of documents scored)``."""
    per_document = auprc_per_document(scores, highlights, word_mask)
    defined = ~torch.isnan(per_document)
    return per_document[defined].sum(), defined.sum()


def _auprc_compute(auprc_sum: torch.Tensor, documents: torch.Tensor) -> torch.Tensor:
    return safe_divide(auprc_sum, documents)


def highlight_auprc(scores: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    r"""Mean per-document AUPRC of soft word scores (ERASER's "token_soft_metrics",
    DeYoung et al., 2020, "ERASER: A Benchmark to Evaluate Rationalized NLP Models", ACL).

    For each document, over its real annotated words, with curve points
    (R_0, P_0) = (0, 1), (R_1, P_1), ... at decreasing distinct score thresholds:

    .. math::
        AUPRC_d = \sum_{i \ge 1} (R_i - R_{i-1}) \frac{P_i + P_{i-1}}{2}

    averaged over documents with at least one highlighted word (others have
    no recall and are skipped; NaN when no document qualifies). Equals
    ``sklearn.metrics.auc(*precision_recall_curve(y, s)[1::-1])`` per document.

    Args:
        scores: [B, W] real-valued word scores (higher = more important).
        highlights: [B, W] 1 / 0, -1 unannotated or padding.
        word_mask: [B, W] 1 on real words.

    Example:
        >>> import torch
        >>> scores = torch.tensor([[0.9, 0.1, 0.8, 0.3]])
        >>> hl = torch.tensor([[1, 0, 0, 1]])
        >>> round(highlight_auprc(scores, hl, torch.ones(1, 4)).item(), 4)
        0.7917
    """
    return _auprc_compute(*_auprc_update(scores, highlights, word_mask))


class HighlightAUPRC(Metric):
    """Module form of :func:`highlight_auprc`; state is the AUPRC sum and document count."""

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.add_state("auprc_sum", default=torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("documents", default=torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")

    def update(self, scores: torch.Tensor, highlights: torch.Tensor, word_mask: torch.Tensor) -> None:
        auprc_sum, documents = _auprc_update(scores, highlights, word_mask)
        self.auprc_sum += auprc_sum
        self.documents += documents

    def compute(self) -> torch.Tensor:
        return _auprc_compute(self.auprc_sum, self.documents)
