"""A new two-input loss term: the Jensen-Shannon divergence between two predictors, both sides moving.

A2R (Yu et al., NeurIPS 2021, Sec. 4) couples its two predictors by JS(P_hard ‖ P_soft) =
½ KL(P ‖ M) + ½ KL(Q ‖ M), M = ½ (P + Q). The project's ``jsd`` reads its ``q`` as a fixed reference
(detached); here neither distribution is the reference, so the gradient reaches the selector through both
predictors. The roles are a divergence's, ``p`` and ``q``, so the term fits any slot bound for one.
"""
from __future__ import annotations

import torch

from pyhighlights.components.losses import LossTerm, Role, WeightOnly, jensen_shannon


class TwoSidedJSDConfig(WeightOnly):
    roles = ("p", "q")
    p: str = Role("p", "one predictor's logits")
    q: str = Role("q", "the other predictor's logits (not detached: both sides move)")


class TwoSidedJSDTerm(LossTerm):
    """JS(softmax(p), softmax(q)), natural log, averaged over the batch; gradients flow into p and q."""

    roles = TwoSidedJSDConfig.roles

    def value(self, inputs):
        return jensen_shannon(torch.softmax(inputs["p"], dim=-1), torch.softmax(inputs["q"], dim=-1)).mean()
