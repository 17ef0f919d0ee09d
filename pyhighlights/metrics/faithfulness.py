"""ERASER comprehensiveness and sufficiency of a rationale."""
from __future__ import annotations

import torch
from torchmetrics import Metric

from pyhighlights.metrics._common import check_same_shape, safe_divide


def _probability_drops(p_full: torch.Tensor, p_other: torch.Tensor) -> torch.Tensor:
    """p(ŷ|x) − p(ŷ|x') per example, ŷ the class predicted on the full input.

    ``p_other`` may carry leading dimensions (e.g. [K, B, C] for AOPC bins).
    Anchoring on ŷ rather than the gold label follows ERASER: the metric asks
    how much the model's own decision depends on the rationale.
    """
    predicted = p_full.argmax(dim=-1, keepdim=True)  # [B, 1]
    p_predicted_full = p_full.gather(-1, predicted).squeeze(-1)  # [B]
    p_predicted_other = p_other.gather(-1, predicted.expand(*p_other.shape[:-1], 1)).squeeze(-1)
    return p_predicted_full.double() - p_predicted_other.double()


def _faithfulness_update(
    p_full: torch.Tensor, p_without_rationale: torch.Tensor, p_rationale_only: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(comprehensiveness sum, sufficiency sum, examples)`` of a batch."""
    check_same_shape(
        p_full=p_full, p_without_rationale=p_without_rationale, p_rationale_only=p_rationale_only
    )
    comprehensiveness = _probability_drops(p_full, p_without_rationale)
    sufficiency = _probability_drops(p_full, p_rationale_only)
    return comprehensiveness.sum(), sufficiency.sum(), torch.tensor(p_full.shape[0], device=p_full.device)


def _faithfulness_compute(
    comprehensiveness_sum: torch.Tensor, sufficiency_sum: torch.Tensor, examples: torch.Tensor
) -> dict[str, torch.Tensor]:
    return {
        "comprehensiveness": safe_divide(comprehensiveness_sum, examples),
        "sufficiency": safe_divide(sufficiency_sum, examples),
    }


def faithfulness_scores(
    p_full: torch.Tensor, p_without_rationale: torch.Tensor, p_rationale_only: torch.Tensor
) -> dict[str, torch.Tensor]:
    r"""Mean comprehensiveness and sufficiency (DeYoung et al., 2020, "ERASER: A
    Benchmark to Evaluate Rationalized NLP Models", ACL).

    With ŷ = argmax p(·|x) the class predicted on the **full** input x and r
    the rationale:

    .. math::
        comp = p(\hat y|x) - p(\hat y|x \setminus r),\qquad
        suff = p(\hat y|x) - p(\hat y|r)

    averaged over examples. High comprehensiveness (removing r hurts) and low
    sufficiency (r alone suffices) mean a faithful rationale. Which model gives
    the probabilities (the SPP predictor or a separate full-input classifier)
    is the caller's choice. NaN with no example.

    Args:
        p_full: [B, C] class probabilities on the full input.
        p_without_rationale: [B, C] probabilities with the rationale words removed.
        p_rationale_only: [B, C] probabilities on the rationale words alone.

    Example:
        >>> import torch
        >>> p_full = torch.tensor([[0.9, 0.1], [0.2, 0.8]])
        >>> p_without = torch.tensor([[0.5, 0.5], [0.4, 0.6]])
        >>> p_only = torch.tensor([[0.8, 0.2], [0.1, 0.9]])
        >>> {k: round(v.item(), 3) for k, v in faithfulness_scores(p_full, p_without, p_only).items()}
        {'comprehensiveness': 0.3, 'sufficiency': 0.0}
    """
    return _faithfulness_compute(*_faithfulness_update(p_full, p_without_rationale, p_rationale_only))


class Faithfulness(Metric):
    """Module form of :func:`faithfulness_scores`; state is the two sums and the example count."""

    is_differentiable = False
    higher_is_better = None  # comprehensiveness: higher; sufficiency: lower
    full_state_update = False

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.add_state("comprehensiveness_sum", default=torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("sufficiency_sum", default=torch.tensor(0.0, dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("examples", default=torch.tensor(0, dtype=torch.long), dist_reduce_fx="sum")

    def update(
        self, p_full: torch.Tensor, p_without_rationale: torch.Tensor, p_rationale_only: torch.Tensor
    ) -> None:
        comprehensiveness_sum, sufficiency_sum, examples = _faithfulness_update(
            p_full, p_without_rationale, p_rationale_only
        )
        self.comprehensiveness_sum += comprehensiveness_sum
        self.sufficiency_sum += sufficiency_sum
        self.examples += examples

    def compute(self) -> dict[str, torch.Tensor]:
        return _faithfulness_compute(self.comprehensiveness_sum, self.sufficiency_sum, self.examples)
