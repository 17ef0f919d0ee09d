"""Infidelity and sensitivity of word scores (Yeh et al., 2019, "On the (In)fidelity
and Sensitivity of Explanations", NeurIPS), with captum's definitions
(``captum.metrics.infidelity(normalize=True)`` and ``sensitivity_max``).

Both work in the word-presence space of :mod:`forward`, so every method, and
any score vector over words, is judged by the same perturbations:

- **infidelity** (normalised, so invariant to the scale of the scores):
  E[(β Iᵀa − (f(x) − f(x − I)))²] with I a random subset of the words (each
  dropped with probability ``drop``), a the word scores, f the attributed
  output of the predicted class and β = E[Iᵀa Δf] / E[(Iᵀa)²] the best
  rescaling of the scores;
- **sensitivity** (max): the largest relative change ‖a(x') − a(x)‖ / ‖a(x)‖
  of the scores (a zero ‖a(x)‖ counted as 1) when every word's presence is
  scaled by a factor drawn uniformly in [1 − r, 1 + r].

Computed here rather than through ``captum.metrics`` for two reasons: the
unperturbed scores a(x) are the ones already computed (captum recomputes
them, one more Integrated Gradients per batch), and each document's
perturbations are drawn from its own generator, seeded by the run's seed
and the document's index in the split, so a document's values do not
depend on which documents share its batch (batched and one-at-a-time runs
agree). Both return one value per document.
"""
from __future__ import annotations

from collections.abc import Callable

import torch

from pyhighlights.explain.forward import CaptumForward

#: keeps the two metrics' random streams apart for one document
_INFIDELITY, _SENSITIVITY = 1, 2


def document_uniforms(seed: int, sample_ids: torch.Tensor, lengths: torch.Tensor, n_samples: int, width: int,
                      stream: int) -> torch.Tensor:
    """U(0, 1) draws [B, n_samples, width]: document b's first ``lengths[b]`` columns come from its own
    generator (seeded by ``seed``, its index ``sample_ids[b]`` and ``stream``); the padding columns are 0."""
    out = torch.zeros(len(sample_ids), n_samples, width)
    for row, (sample, length) in enumerate(zip(sample_ids.tolist(), lengths.tolist())):
        generator = torch.Generator().manual_seed(((seed * 1_000_003 + sample) * 8 + stream) % (2 ** 63))
        out[row, :, :length] = torch.rand(n_samples, length, generator=generator)
    return out


def _lengths(keep: torch.Tensor) -> torch.Tensor:
    return (keep > 0).sum(dim=1)  # words are left-aligned: a document's real words are its first n columns


def _output(forward: CaptumForward, keep: torch.Tensor, fields: tuple, target: torch.Tensor) -> torch.Tensor:
    return forward.presence(keep, *fields).gather(1, target.reshape(-1, 1)).squeeze(1)


def word_infidelity(forward: CaptumForward, keep: torch.Tensor, fields: tuple, scores: torch.Tensor,
                    target: torch.Tensor, sample_ids: torch.Tensor, seed: int = 0, n_samples: int = 10,
                    drop: float = 0.25, full: torch.Tensor | None = None) -> torch.Tensor:
    """Normalised infidelity [B] of ``scores`` [B, W]; all perturbations in one forward pass. ``full``: the
    forward's outputs [B, C] at ``keep`` when already computed (else one more forward pass)."""
    size, width = keep.shape
    draws = document_uniforms(seed, sample_ids, _lengths(keep), n_samples, width, _INFIDELITY).to(keep.device)
    dropped = (draws < drop).to(keep.dtype) * keep.unsqueeze(1)  # I, [B, S, W]
    perturbed = (keep.unsqueeze(1) - dropped).reshape(size * n_samples, width)
    repeated = tuple(f.repeat_interleave(n_samples, dim=0) for f in fields)
    with torch.no_grad():
        full = (_output(forward, keep, fields, target) if full is None
                else full.gather(1, target.reshape(-1, 1)).squeeze(1))
        changed = _output(forward, perturbed, repeated, target.repeat_interleave(n_samples))
    difference = (full.unsqueeze(1) - changed.reshape(size, n_samples)).double()  # f(x) − f(x − I)
    explained = (dropped.double() * scores.double().unsqueeze(1)).sum(dim=-1)  # Iᵀa
    squares, cross = explained.pow(2).sum(-1), (explained * difference).sum(-1)
    beta = torch.where(squares == 0, torch.zeros_like(cross), cross / torch.where(squares == 0, 1.0, squares))
    return ((beta * beta * squares - 2 * beta * cross + difference.pow(2).sum(-1)) / n_samples).float()


def presence_perturbations(keep: torch.Tensor, sample_ids: torch.Tensor, seed: int, n_samples: int,
                           radius: float) -> torch.Tensor:
    """[B, S, W]: each real word's presence times U(1 − r, 1 + r), padding left at 0."""
    draws = document_uniforms(seed, sample_ids, _lengths(keep), n_samples, keep.shape[1], _SENSITIVITY)
    noise = (draws.to(keep.device) * 2 - 1) * radius
    return keep.unsqueeze(1) + noise * (keep > 0).to(keep.dtype).unsqueeze(1)


def word_sensitivity(explain: Callable, keep: torch.Tensor, fields: tuple, target: torch.Tensor,
                     scores: torch.Tensor, sample_ids: torch.Tensor, seed: int = 0, n_samples: int = 3,
                     radius: float = 0.02) -> torch.Tensor:
    """Max sensitivity [B] of ``explain(keep, fields, target) -> scores [B, W]`` around ``scores`` = a(x)."""
    perturbed = presence_perturbations(keep, sample_ids, seed, n_samples, radius)
    norm = scores.double().norm(dim=1)
    norm = torch.where(norm == 0, torch.ones_like(norm), norm)
    worst = torch.zeros_like(norm)
    for sample in range(n_samples):  # one perturbation of every document per call: the batch's own size
        changed = explain(perturbed[:, sample], fields, target).double()
        worst = torch.maximum(worst, (changed - scores.double()).norm(dim=1) / norm)
    return worst.float()
