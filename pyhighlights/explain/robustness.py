"""Infidelity and sensitivity of word scores (Yeh et al., 2019, "On the (In)fidelity
and Sensitivity of Explanations", NeurIPS), through ``captum.metrics``.

Both work in the word-presence space of :mod:`forward`, so every method, and
any score vector over words, is judged by the same perturbations:

- **infidelity** (normalised, so invariant to the scale of the scores):
  E[(Iᵀa − (f(x) − f(x − I)))²] with I a random subset of the words (each
  dropped with probability ``drop``), a the word scores and f the attributed
  output of the predicted class;
- **sensitivity** (max): the largest relative change ‖a(x') − a(x)‖ / ‖a(x)‖
  of the scores when every word's presence is scaled by a factor drawn
  uniformly in [1 − r, 1 + r] (its embedding scaled likewise).

Both return one value per document.
"""
from __future__ import annotations

from collections.abc import Callable

import torch

from pyhighlights.explain.forward import CaptumForward


def word_drop_perturbation(drop: float) -> Callable:
    """Perturbation of captum's infidelity: I = random words of ``keep`` (probability ``drop``), x − I."""

    def perturb(keep: torch.Tensor):
        dropped = (torch.rand_like(keep) < drop).to(keep.dtype) * keep
        return dropped, keep - dropped

    return perturb


def presence_noise(radius: float) -> Callable:
    """Perturbation of captum's sensitivity: real words' presence times U(1 − r, 1 + r)."""

    def perturb(keep: torch.Tensor):
        noise = (torch.rand_like(keep) * 2 - 1) * radius
        return keep + noise * (keep > 0).to(keep.dtype)

    return perturb


def word_infidelity(forward: CaptumForward, keep: torch.Tensor, fields: tuple, scores: torch.Tensor,
                    target: torch.Tensor, n_samples: int = 10, drop: float = 0.25) -> torch.Tensor:
    """Normalised infidelity [B] of ``scores`` [B, W]."""
    from captum.metrics import infidelity

    return infidelity(forward.presence, word_drop_perturbation(drop), keep, scores,
                      additional_forward_args=fields, target=target, n_perturb_samples=n_samples,
                      normalize=True).reshape(-1)


def word_sensitivity(explain: Callable, keep: torch.Tensor, fields: tuple, target: torch.Tensor,
                     n_samples: int = 3, radius: float = 0.02) -> torch.Tensor:
    """Max sensitivity [B] of ``explain(keep, fields, target) -> scores [B, W]``."""
    from captum.metrics import sensitivity_max

    def explanation(inputs, additional_forward_args, target):
        inputs = inputs[0] if isinstance(inputs, tuple) else inputs
        return (explain(inputs, tuple(additional_forward_args), target),)  # captum iterates over a tuple

    return sensitivity_max(explanation, keep, perturb_func=presence_noise(radius), n_perturb_samples=n_samples,
                           additional_forward_args=fields, target=target).reshape(-1)
