"""The complement's large-margin gap as a differentiable loss term (Yu et al., EMNLP 2019, "Rethinking
Cooperative Rationalization", the hinge of their Eq. 7): the generator is penalised unless the words it leaves
out predict the label worse, by a margin h, than the words it keeps::

    max(h - (CE(complement logits, y) - CE(logits, y)), 0), averaged over documents

Read through a straight-through mask, its gradient reaches the generator along both predictors' inputs.
"""
from __future__ import annotations

import torch.nn.functional as F

from pyhighlights.components.losses import LossTerm, Role, WeightOnly
from pyhighlights.registry import Real


class ComplementGapConfig(WeightOnly):
    roles = ("logits", "complement_logits", "labels")
    logits: str = Role("logits", "the predictor's class logits on the rationale")
    complement_logits: str = Role("complement_logits", "the complement predictor's class logits on the rest")
    labels: str = Role("labels", "the gold labels")
    margin: float = Real(0.2, ge=0.0, description="the margin h (the 3PLAYER script's args.margin 0.2)")


class ComplementGapTerm(LossTerm):
    """mean_b max(h - (CE_c,b - CE_b), 0)."""

    roles = ComplementGapConfig.roles

    def __init__(self, *, weight: float = 1.0, margin: float = 0.2, **inputs: str):
        super().__init__(weight=weight, **inputs)
        self.margin = margin

    def value(self, inputs):
        ce = F.cross_entropy(inputs["logits"], inputs["labels"], reduction="none")
        ce_c = F.cross_entropy(inputs["complement_logits"], inputs["labels"], reduction="none")
        return (self.margin - (ce_c - ce)).clamp_min(0.0).mean()
