"""Divergences between two predictors that both move: neither side is a fixed reference.

The project's ``jsd``, ``match`` and ``kl`` terms read their ``q`` detached (a teacher, a guider, the full
text). A2R (Yu et al., NeurIPS 2021, "Understanding Interlocking Dynamics of Cooperative Rationalization")
couples its hard-rationale predictor and its soft-attention predictor, and trains both on the gap, so here the
gradient reaches both ``p`` and ``q``. The roles are a divergence's, ``p`` and ``q``, so a slot bound for one
takes either term.
"""
from __future__ import annotations

import torch

from pyhighlights.components.losses import LossTerm, Role, WeightOnly, jensen_shannon
from pyhighlights.components.multiplier import world_size


class TwoSidedConfig(WeightOnly):
    roles = ("p", "q")
    p: str = Role("p", "one predictor's logits")
    q: str = Role("q", "the other predictor's logits (not detached: both sides move)")


def symmetric_kl(log_p: torch.Tensor, log_q: torch.Tensor) -> torch.Tensor:
    """KL(P‖Q) + KL(Q‖P) per row, natural log, from log-probabilities."""
    p, q = log_p.exp(), log_q.exp()
    return (p * (log_p - log_q)).sum(-1) + (q * (log_q - log_p)).sum(-1)


class SymmetricKLTerm(LossTerm):
    """KL(P‖Q) + KL(Q‖P), P = softmax(p), Q = softmax(q), averaged over the batch; gradients into both.

    What the A2R reference computes as its ``consistency_loss``: two ``F.kl_div(log(probs), probs_other,
    reduction='batchmean')`` calls, one each way (Gorov/Understanding_Interlocking,
    run_beer_arc2_sentence_level_neurips21.ipynb, training loop).
    """

    roles = TwoSidedConfig.roles

    def value(self, inputs):
        return symmetric_kl(torch.log_softmax(inputs["p"], dim=-1), torch.log_softmax(inputs["q"], dim=-1)).mean()


class TwoSidedJSDTerm(LossTerm):
    """JS(softmax(p), softmax(q)) = ½KL(P‖M) + ½KL(Q‖M), M = ½(P+Q), averaged over the batch; gradients into
    both. The divergence A2R's paper writes (Sec. 4); bounded by log 2."""

    roles = TwoSidedConfig.roles

    def value(self, inputs):
        return jensen_shannon(torch.softmax(inputs["p"], dim=-1), torch.softmax(inputs["q"], dim=-1)).mean()


def mixture_kl(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """½KL(M‖P) + ½KL(M‖Q) per row, M = ½(P+Q), natural log, from probabilities."""
    m = 0.5 * (p + q)
    return 0.5 * ((m * (m.log() - p.log())).sum(-1) + (m * (m.log() - q.log())).sum(-1))


class MixtureKLTerm(LossTerm):
    """½KL(M‖P) + ½KL(M‖Q), P = softmax(p), Q = softmax(q), M = ½(P+Q), **summed** over the batch; gradients
    into both. The noise-injection reference's ``js_div``, its proximity term (Storek et al., ACL 2023;
    adamstorek/noise_injection, ``model/models.py``): ``F.kl_div(X.log(), M, reduction='sum')`` is KL(M‖X),
    the mixture first, so this is the Jensen-Shannon divergence with each KL's arguments swapped.

    A sum over the batch is a sum over the *global* batch: under DDP each process's sum is scaled by the number
    of processes, since DDP averages the gradients (without it, two processes would halve the term's weight)."""

    roles = TwoSidedConfig.roles

    def value(self, inputs):
        return world_size() * mixture_kl(torch.softmax(inputs["p"], dim=-1), torch.softmax(inputs["q"], dim=-1)).sum()
