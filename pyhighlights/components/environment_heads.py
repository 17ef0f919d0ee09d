"""Environment-aware heads, and the straight-through selector and invariance penalty of InvRat.

InvRat (Chang, Zhang, Yu and Jaakkola, ICML 2020, "Invariant Rationalization") trains, beside the usual
predictor of the rationale, one that also reads the document's environment; the rationale must leave it no
better than the environment-agnostic one. An *environment head* is that second predictor's environment-aware
part: it says which per-word features its encoder reads besides the words (``word_features``) and turns the
pooled states and the environments into class logits (``forward``). Two kinds:

- ``input_onehot``: the environment's one-hot joins every real word's input of the encoder, then a linear layer
  over the pooled states (the reference, github.com/code-terminator/invariant_rationalization, commit
  e88eaef67cb1a4c3c4b9be2f08eaa2b8e55e4c6f, ``model.py InvRNN.call``: ``tf.concat([env_enable_rat_embeddings,
  envs_], axis=-1)`` into ``env_enable_encoder``, max-pool, ``env_enable_fc``); needs a recurrent backbone;
- ``pooled_onehot``: the one-hot joined to the pooled states before the linear layer (ours; any backbone, the
  transformer included).
"""
from __future__ import annotations

from abc import abstractmethod

import torch
import torch.nn.functional as F
from torch import nn

from pyhighlights.components.losses import LossTerm, WeightOnly, Role
from pyhighlights.components.selectors import Selection, Selector
from pyhighlights.registry import Configuration, Param, kind


def one_hot_environments(environments: torch.Tensor, num_environments: int) -> torch.Tensor:
    """[B] indices -> [B, E] float one-hot; an index outside 0..E-1 is refused, naming it."""
    bad = (environments < 0) | (environments >= num_environments)
    if bool(bad.any()):
        raise ValueError(f"environment {int(environments[bad][0])} is outside 0..{num_environments - 1}; set "
                         f"model.num_environments to the corpus's number of environments")
    return F.one_hot(environments, num_environments).float()


@kind("environment_head", runtime=("input_size", "num_classes", "num_environments"))
class EnvironmentHead(nn.Module):
    """``forward(pooled [B, input_size], environments [B]) -> logits``; its encoder also reads
    ``word_features`` ([B, T, extra_inputs], or None when ``extra_inputs`` is 0)."""

    extra_inputs: int = 0

    def word_features(self, environments: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor | None:
        return None

    @abstractmethod
    def forward(self, pooled: torch.Tensor, environments: torch.Tensor) -> torch.Tensor:
        """Class logits [B, num_classes]."""


class EnvironmentHeadConfig(Configuration):
    dropout: float = Param(0.0, ge=0.0, lt=1.0, description="dropout on the pooled states (the reference: none)")


class InputOneHotHead(EnvironmentHead):
    """The reference's: the environment one-hot at every real word of the encoder's input."""

    def __init__(self, *, input_size: int, num_classes: int, num_environments: int, dropout: float = 0.0):
        super().__init__()
        self.num_environments = self.extra_inputs = num_environments
        self.dropout = nn.Dropout(dropout)
        self.linear = nn.Linear(input_size, num_classes)

    def word_features(self, environments, attention_mask):
        one_hot = one_hot_environments(environments, self.num_environments)
        return one_hot.unsqueeze(1).expand(-1, attention_mask.shape[1], -1)

    def forward(self, pooled, environments):
        return self.linear(self.dropout(pooled))


class PooledOneHotHead(EnvironmentHead):
    """The environment one-hot joined to the pooled states, then a linear layer (any backbone)."""

    def __init__(self, *, input_size: int, num_classes: int, num_environments: int, dropout: float = 0.0):
        super().__init__()
        self.num_environments = num_environments
        self.dropout = nn.Dropout(dropout)
        self.linear = nn.Linear(input_size + num_environments, num_classes)

    def forward(self, pooled, environments):
        one_hot = one_hot_environments(environments, self.num_environments).to(pooled.dtype)
        return self.linear(torch.cat([self.dropout(pooled), one_hot], dim=-1))


class StraightThroughSelectorConfig(Configuration):
    dropout: float = Param(0.0, ge=0.0, lt=1.0)


class StraightThroughSelector(Selector):
    """A linear layer over word states; keep where p(keep) >= p(drop), with the softmax's gradient (no noise).

    The InvRat reference's ``_independent_straight_through_sampling``: ``z = softmax(logits)``, the hard one-hot
    of its maximum, ``stop_gradient(z_hard - z) + z``; padding is "drop". Deterministic in training too (the
    ``gumbel`` selector adds noise).
    """

    def __init__(self, *, input_size: int, dropout: float = 0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.scorer = nn.Linear(input_size, 2)

    def forward(self, word_states, word_mask):
        logits = self.scorer(self.dropout(word_states))
        keep = torch.softmax(logits, dim=-1)[..., 1]
        hard = (logits[..., 1] >= logits[..., 0]).to(keep.dtype)
        # hard + (keep - keep.detach()) is exactly 0/1; the reference's stop_gradient(hard - keep) + keep is 0/1
        # only up to rounding, and |z_t - z_{t-1}| between equal neighbours then takes a +-1 subgradient from the
        # sign of that noise (which also differs between a batch and its halves under DDP). Same gradient else.
        # raw_mask stays None: the mask with padding dropped, as the reference's z (continuity over the padded
        # width reads it, padding counted as 0)
        return Selection(logits=logits, mask=(hard + (keep - keep.detach())) * word_mask.to(keep.dtype))


class InvarianceConfig(WeightOnly):
    roles = ("logits", "env_logits", "labels")
    logits: str = Role("logits", "the environment-agnostic predictor's logits")
    env_logits: str = Role("env_logits", "the environment-aware predictor's logits")
    labels: str = Role("labels", "the gold labels")
    penalty: str = Param("relu", pattern="^(relu|identity)$",
                         description="h in the paper's Eq. 8: relu (the reference's tf.math.maximum(0., ...)) or "
                                     "identity (the paper's other choice)")


class InvarianceTerm(LossTerm):
    """h(CE(agnostic) - CE(aware)), each CE the batch mean: how much the environment-aware predictor beats the
    agnostic one (the reference's ``diff_loss`` in ``utils.py inv_rat_loss``; h = ReLU there)."""

    roles = InvarianceConfig.roles

    def __init__(self, *, weight: float = 1.0, penalty: str = "relu", **inputs: str):
        super().__init__(weight=weight, **inputs)
        if penalty not in ("relu", "identity"):
            raise ValueError(f"invariance penalty: expected relu or identity, got {penalty!r}")
        self.penalty = penalty

    def value(self, inputs):
        gap = F.cross_entropy(inputs["logits"], inputs["labels"]) - F.cross_entropy(inputs["env_logits"],
                                                                                    inputs["labels"])
        return gap.clamp(min=0.0) if self.penalty == "relu" else gap


class KerasAdam(torch.optim.Optimizer):
    """Adam as TensorFlow's ``ApplyAdam`` (and so ``tf.keras.optimizers.Adam``) computes it:
    ``lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)``, ``p -= lr_t m / (sqrt(v) + eps)``, eps 1e-7 on sqrt(v).

    ``torch.optim.Adam`` adds its eps to sqrt(v / (1 - b2^t)) instead; where a gradient is small against eps the
    two steps differ (on a first step, by eps / sqrt(1 - b2) = 3e-6 against |g| here). ``weight_decay`` is added
    to the gradient, as torch's Adam does.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-7, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad if not group["weight_decay"] else p.grad.add(p, alpha=group["weight_decay"])
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["m"] = torch.zeros_like(p)
                    state["v"] = torch.zeros_like(p)
                state["step"] += 1
                t = state["step"]
                state["m"].mul_(beta1).add_(grad, alpha=1 - beta1)
                state["v"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                lr_t = group["lr"] * (1 - beta2 ** t) ** 0.5 / (1 - beta1 ** t)
                p.addcdiv_(state["m"], state["v"].sqrt().add_(group["eps"]), value=-lr_t)
        return loss
