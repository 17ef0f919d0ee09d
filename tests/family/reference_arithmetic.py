"""The Liu et al. reference arithmetic written out with plain tensor operations, for the replay tests.

Each function is the formula of the authors' code (jugechengzi on GitHub), independent of pyhighlights'
loss terms, selectors and models: ``metric.py`` get_sparsity_loss / get_continuity_loss, the
``model.py`` heads (LayerNorm -> linear, masked max-pool), ``kl_div(..., reduction='batchmean')``
and Adam's update rule.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

BETAS, EPS = (0.9, 0.999), 1e-8


def layer_norm(x, norm):
    return F.layer_norm(x, (x.shape[-1],), norm.weight, norm.bias, norm.eps)


def linear(x, layer):
    return x @ layer.weight.t() + layer.bias


def gumbel_keep(logits):
    """The keep column of a hard straight-through Gumbel-softmax sample (tau 1), from the global generator."""
    return F.gumbel_softmax(logits, tau=1.0, hard=True)[..., 1]


def pool_valid(states, word_mask):
    """Max over every real position (the reference fills padding with -1e6 before ``torch.max``)."""
    return states.masked_fill(word_mask.unsqueeze(-1) == 0, float("-inf")).max(dim=1).values


def sparsity(z, word_mask, target, counted):
    """|sum(z) / sum(mask) - s|; the reference sums z over the padded width (``counted``)."""
    selected = z.sum() if counted else (z * word_mask).sum()
    return (selected / word_mask.sum() - target).abs()


def continuity(z, word_mask, counted):
    """Mean |z_t - z_{t-1}|: over all B x (W - 1) pairs in the reference (``counted``), else real pairs."""
    if counted:
        return (z[:, 1:] - z[:, :-1]).abs().mean()
    z = z * word_mask
    pairs = word_mask[:, 1:] * word_mask[:, :-1]
    return ((z[:, 1:] - z[:, :-1]).abs() * pairs).sum() / pairs.sum()


def kl_batchmean(reference_logits, logits):
    """``kl_div(softmax(logits).log(), softmax(reference), reduction='batchmean')`` = mean KL(P_ref || P)."""
    p = torch.softmax(reference_logits, dim=-1)
    return (p * (p.log() - torch.log_softmax(logits, dim=-1))).sum() / logits.shape[0]


def adam(theta, grads, lr):
    """Parameter after Adam steps from a zero state with the gradients ``grads`` (one per step)."""
    m = torch.zeros_like(theta)
    v = torch.zeros_like(theta)
    for t, g in enumerate(grads, start=1):
        m = BETAS[0] * m + (1 - BETAS[0]) * g
        v = BETAS[1] * v + (1 - BETAS[1]) * g * g
        m_hat = m / (1 - BETAS[0] ** t)
        v_hat = v / (1 - BETAS[1] ** t)
        theta = theta - lr * m_hat / (v_hat.sqrt() + EPS)
    return theta


def counted(model) -> bool:
    """Whether the model's sparsity term counts padding (the reference's convention)."""
    return getattr(model.losses.terms["sparsity"], "padding", "excluded") == "counted"
