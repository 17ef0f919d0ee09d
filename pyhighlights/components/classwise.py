"""The class-wise generators' objective of CAR (Chang, Zhang, Yu and Jaakkola, NeurIPS 2019, "A Game Theoretic
Approach to Class-wise Selective Rationalization").

Each generator of CAR serves one class t: its rationales should make the discriminator answer t, whatever the
document's label (a factual rationale when the label is t, a counterfactual one otherwise). The reference
(github.com/code-terminator/classwise_rationale, commit 9da3d7014f04a5645f4085efcb9151cbf7300919,
``core/train_utils.py gen_nl_loss``) maximises the discriminator's *probability* of t, not its log: the loss is
``-mean_b softmax(logits_b)[t_b]`` ("likelihood does not take log").
"""
from __future__ import annotations

import torch

from pyhighlights.components.losses import LossTerm, Role, WeightOnly


class TargetProbabilityConfig(WeightOnly):
    roles = ("logits", "targets")
    logits: str = Role("generator_logits", "the discriminator's logits on the generator's rationale")
    targets: str = Role("targets", "the class each rationale argues for (the generator's class)")


class TargetProbabilityTerm(LossTerm):
    """``-mean_b p(targets_b | logits_b)``: minus the discriminator's mean probability of the targeted class."""

    roles = TargetProbabilityConfig.roles

    def value(self, inputs):
        probabilities = torch.softmax(inputs["logits"], dim=-1)
        return -probabilities.gather(1, inputs["targets"].long().unsqueeze(1)).mean()
