"""HardKuma's two selection terms, each a constraint held by its own Lagrange multiplier (Bastings, Aziz and Titov,
ACL 2019, section 4).

Both read P(z_t != 0) per word: the selector's ``keep_probability`` (softmax of its [drop, keep] logits; for the
HardKuma gate that is the closed-form expected L0, for a Bernoulli selector its keep probability).

- ``hardkuma_l0``: the expected selection rate, per document sum_t P(z_t != 0) / length, averaged over the
  batch's documents;
- ``hardkuma_transitions``: the expected number of changes between neighbouring gates (the fused-lasso /
  continuity term), per document sum_t [P(z_t = 0) P(z_t+1 != 0) + P(z_t != 0) P(z_t+1 = 0)] / length over the
  pairs whose first word is real (a pair ending in padding contributes 0), averaged over documents.

``mode=constraint`` (the paper's): the term holds c = value - target below 0 by a multiplier lambda updated by
dual ascent on a moving average of c (the reference's ``latent_rationale/beer/models/latent.py
LatentRationaleModel.get_loss``, which follows Algorithm 1 of Rezende and Viola, 2018). Per training step, in the
reference's order::

    c_hat  = value - target
    ma     = alpha * ma + (1 - alpha) * c_hat           # moving average (alpha: ``smoothing``)
    c      = c_hat + (ma - c_hat).detach()              # the value of ma, the gradient of c_hat
    lambda = clamp(lambda * exp(lr * c), min, max)      # updated *before* it is used
    term   = lambda.detach() * c

``mode=penalty``: the term is the expected value itself, times the term's weight (a fixed L0 / fused-lasso
penalty, as in Louizos et al., 2018), with no multiplier.

The multiplier and moving average move only on calls with gradients enabled (training steps): the reference also
moves them while it evaluates (its ``beer/evaluate.py evaluate_loss`` calls ``get_loss``); ``update=every_call``
does that. Under DDP the batch constraint is averaged over processes before the update, so every process holds
the same multiplier (the reference trains on one device). A model saves the terms' :meth:`state_dict` in its
checkpoints (``model=hardkuma`` does) for an exact resume.
"""
from __future__ import annotations

import math
from typing import Literal

import torch

from pyhighlights.components.losses import LossTerm, Role, WeightOnly
from pyhighlights.components.multiplier import process_sums
from pyhighlights.registry import Param, Real


def per_document_mean(per_word: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """sum_t per_word / length per document, averaged over documents (the reference adds 1e-9 to the length)."""
    return (per_word.sum(dim=1) / (word_mask.sum(dim=1) + 1e-9)).mean()


def nonzero_probability(selector_logits: torch.Tensor, word_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(P(z = 0), P(z != 0)) per word, 0 at padding."""
    p = torch.softmax(selector_logits, dim=-1) * word_mask.unsqueeze(-1)
    return p[..., 0], p[..., 1]


def expected_l0(selector_logits: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """The expected selection rate: mean over documents of sum_t P(z_t != 0) / length."""
    return per_document_mean(nonzero_probability(selector_logits, word_mask)[1], word_mask)


def expected_transitions(selector_logits: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """The expected number of 0 <-> non-0 changes between neighbours per word (see the module docstring)."""
    zero, nonzero = nonzero_probability(selector_logits, word_mask)
    changes = zero[:, :-1] * nonzero[:, 1:] + nonzero[:, :-1] * zero[:, 1:]
    return per_document_mean(changes * word_mask[:, :-1], word_mask)


class LagrangianConfig(WeightOnly):
    roles = ("selector_logits", "word_mask")
    selector_logits: str = Role("selector_logits", "the selector's [log P(z = 0), log P(z != 0)] per word")
    word_mask: str = Role("word_mask", "1 on real words")
    mode: Literal["constraint", "penalty"] = Param(
        "constraint", description="constraint: value <= target held by a Lagrange multiplier (the paper); "
                                  "penalty: weight x value, no multiplier")
    multiplier_init: float = Real(1e-5, gt=0.0, description="initial lambda (the reference's --lambda_init)")
    multiplier_lr: float = Real(0.05, gt=0.0, description="dual-ascent rate: lambda *= exp(lr x c) (--lagrange_lr)")
    multiplier_min: float = Real(1e-12, gt=0.0, description="lower clamp of lambda (--lambda_min)")
    multiplier_max: float = Real(5.0, gt=0.0, description="upper clamp of lambda (--lambda_max)")
    smoothing: float = Real(0.5, ge=0.0, lt=1.0, description="alpha of the constraint's moving average "
                                                             "(--lagrange_alpha)")
    update: Literal["training", "every_call"] = Param(
        "training", description="when lambda moves: training steps only, or on every call (the reference also "
                                "moves it while evaluating)")


class ExpectedL0Config(LagrangianConfig):
    target: float = Real(0.13, ge=0.0, le=1.0, description="the selection rate held below (--selection; the "
                                                           "reference's Beer command: 0.13)")


class ExpectedTransitionsConfig(LagrangianConfig):
    target: float = Real(0.02, ge=0.0, le=1.0, description="the transition rate held below (--lasso; the "
                                                           "reference's Beer command: 0.02)")


class LagrangianTerm(LossTerm):
    """A selection statistic held below ``target`` (see the module docstring); subclasses give the statistic."""

    roles = LagrangianConfig.roles

    def __init__(self, *, weight: float = 1.0, target: float, mode: str = "constraint", multiplier_init: float = 1e-5,
                 multiplier_lr: float = 0.05, multiplier_min: float = 1e-12, multiplier_max: float = 5.0,
                 smoothing: float = 0.5, update: str = "training", **inputs: str):
        super().__init__(weight=weight, **inputs)
        if mode not in ("constraint", "penalty"):
            raise ValueError(f"mode: expected constraint or penalty, got {mode!r}")
        if not multiplier_min <= multiplier_init <= multiplier_max:
            raise ValueError(f"multiplier_init {multiplier_init} must lie in [multiplier_min {multiplier_min}, "
                             f"multiplier_max {multiplier_max}]")
        self.target, self.mode, self.update = target, mode, update
        self.rate, self.low, self.high, self.smoothing = multiplier_lr, multiplier_min, multiplier_max, smoothing
        self.multiplier, self.moving_average = float(multiplier_init), 0.0
        #: the statistic of the last call (for logging)
        self.last_value: float | None = None

    def statistic(self, selector_logits: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def value(self, inputs):
        statistic = self.statistic(inputs["selector_logits"], inputs["word_mask"])
        self.last_value = float(statistic.detach())
        if self.mode == "penalty":
            return statistic
        c_hat = statistic - self.target
        if not (self.update == "every_call" or torch.is_grad_enabled()):
            return self.multiplier * c_hat  # evaluation: the current Lagrangian, nothing moves
        self.moving_average = self.smoothing * self.moving_average + (1 - self.smoothing) * _mean_over_processes(c_hat)
        c = c_hat + (self.moving_average - c_hat.detach())
        self.multiplier = min(max(self.multiplier * math.exp(self.rate * self.moving_average), self.low), self.high)
        return self.multiplier * c

    def state_dict(self, shared: bool = False) -> dict[str, float]:
        # Saved in checkpoints with every loss term's state (SPPModel.on_save_checkpoint), by any model using it;
        # the multiplier moves from the all-reduced constraint, so every process holds the same one.
        return {"multiplier": self.multiplier, "moving_average": self.moving_average}

    def load_state_dict(self, state: dict[str, float]) -> None:
        self.multiplier, self.moving_average = float(state["multiplier"]), float(state["moving_average"])



def _mean_over_processes(value: torch.Tensor) -> float:
    total, processes = process_sums(float(value.detach()), 1.0)  # the sparsity constraint's one all-reduce
    return total / processes


class ExpectedL0Term(LagrangianTerm):
    """The expected selection rate held below ``target`` (the paper's L0 constraint)."""

    def statistic(self, selector_logits, word_mask):
        return expected_l0(selector_logits, word_mask)


class ExpectedTransitionsTerm(LagrangianTerm):
    """The expected transition rate held below ``target`` (the paper's fused-lasso constraint)."""

    def statistic(self, selector_logits, word_mask):
        return expected_transitions(selector_logits, word_mask)
