"""Loss terms of distribution matching between a rationale and its full text (DMR).

Huang, Chen, Du and Yang, AAAI 2021, "Distribution Matching for Rationalization"; reference code
github.com/kochsnow/distribution-matching-rationality (``core/distance.py``, ``core/train_utils.py``):

- :class:`CMDTerm`: the central moment discrepancy (Zellinger et al., ICLR 2017) between two batches of
  features, the rationale's and the full text's; gradients into both;
- :class:`SoftCrossEntropyTerm`: cross-entropy of the student's logits against the teacher's softened
  distribution, softmax(q / T) (Hinton et al.'s distillation; the teacher read detached).

The generators' objective is CAR's, ``target_probability`` (:mod:`pyhighlights.components.classwise`).
"""
from __future__ import annotations

from typing import Literal

import torch

from pyhighlights.components.losses import LossTerm, Role, WeightOnly
from pyhighlights.registry import Param, Real


class CMDConfig(WeightOnly):
    roles = ("p", "q")
    p: str = Role("p", "one batch of features [B, H] (the rationale's)")
    q: str = Role("q", "the other batch of features [B, H] (the full text's); not detached")
    moments: int = Param(5, ge=1, description="the highest moment K (reference: cmd(n_moments=5))")
    central: Literal["scaled", "powered"] = Param(
        "scaled", description="the k-th term's statistic: scaled, mean(k (x - mean)) as the reference's "
                              "moment_diff computes it (sx * k, which vanishes: only the means are matched); "
                              "powered, the central moment mean((x - mean)^k) of the CMD's definition")


def difference_norm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """||a - b||_2; at a zero difference its gradient is 0 (the reference's sqrt gives NaN there)."""
    return torch.linalg.vector_norm(a - b)


def central_moment_discrepancy(x1: torch.Tensor, x2: torch.Tensor, moments: int = 5,
                               central: str = "scaled") -> torch.Tensor:
    """||E x1 - E x2|| + sum_{k=2..K} ||c_k(x1) - c_k(x2)||, the expectations over the batch (dim 0).

    ``central="powered"``: c_k(x) = E (x - E x)^k (the CMD of Zellinger et al., on features in [0, 1]);
    "scaled": c_k(x) = E k (x - E x), what ``core/distance.py moment_diff`` computes (``sx1 * k``).
    """
    m1, m2 = x1.mean(0), x2.mean(0)
    s1, s2 = x1 - m1, x2 - m2
    total = difference_norm(m1, m2)
    for k in range(2, moments + 1):
        if central == "powered":
            total = total + difference_norm((s1 ** k).mean(0), (s2 ** k).mean(0))
        else:
            total = total + difference_norm((s1 * k).mean(0), (s2 * k).mean(0))
    return total


class CMDTerm(LossTerm):
    """The central moment discrepancy between the features ``p`` and ``q`` of one batch.

    Its moments are the batch's, so under DDP each process matches its own share of the batch (the reference
    runs one batch on one GPU)."""

    roles = CMDConfig.roles

    def __init__(self, *, weight: float = 1.0, moments: int = 5, central: str = "scaled", **inputs: str):
        super().__init__(weight=weight, **inputs)
        if central not in ("scaled", "powered"):
            raise ValueError(f"cmd central: expected scaled or powered, got {central!r}")
        self.moments, self.central = moments, central

    def value(self, inputs):
        return central_moment_discrepancy(inputs["p"], inputs["q"], self.moments, self.central)


class SoftCrossEntropyConfig(WeightOnly):
    roles = ("p", "q")
    p: str = Role("p", "the student's logits")
    q: str = Role("q", "the teacher's logits (detached)")
    temperature: float = Real(1.0, gt=0.0, description="T of the teacher's softmax(q / T); the student's logits "
                                                       "are not divided (reference: params_t 3)")


class SoftCrossEntropyTerm(LossTerm):
    """-sum_c softmax(q / T)_c log softmax(p)_c, averaged over the batch (``softmax_cross_entropy_with_logits_v2``
    against ``softmax(teacher_logits / params_t)``). It differs from KL(teacher || student) by the teacher's
    entropy, a constant: the same gradient, another value."""

    roles = SoftCrossEntropyConfig.roles

    def __init__(self, *, weight: float = 1.0, temperature: float = 1.0, **inputs: str):
        super().__init__(weight=weight, **inputs)
        self.temperature = temperature

    def value(self, inputs):
        soft = torch.softmax(inputs["q"].detach() / self.temperature, dim=-1)
        return -(soft * torch.log_softmax(inputs["p"], dim=-1)).sum(-1).mean()
