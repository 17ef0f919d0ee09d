"""Selectors: per-word logits [B, W, 2] -> a 0/1 mask over words.

Column 1 of the logits is "keep". Training draws a hard Gumbel-softmax sample
with straight-through gradients (Jang et al., 2017; Maddison et al., 2017).
Evaluation is one switch shared by every selector (``evaluation``):
``threshold`` keeps a word when p(keep) >= 0.5; ``sample`` draws a Gumbel
sample in eval mode too, as the Liu et al. reference code does (its model
calls ``gumbel_softmax`` whatever the mode, e.g. FR ``code/model.py``). A
sampled evaluation draws from the global generator, so a seeded run repeats
it exactly. Padding is never selected.
"""
from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import Literal

import torch
import torch.nn.functional as F
from torch import nn

from pyhighlights.registry import Configuration, Param, Real, kind


def log_odds(logits: torch.Tensor) -> torch.Tensor:
    """log p(keep) - log p(drop) of logits [..., 2] (column 1 is "keep")."""
    return logits[..., 1] - logits[..., 0]


@dataclass
class Selection:
    logits: torch.Tensor  # [B, W, 2]
    mask: torch.Tensor  # [B, W] in {0, 1}, float, carries straight-through gradients in training
    raw_mask: torch.Tensor | None = None  # the sample before padding is removed (None: same as mask)
    label_logits: torch.Tensor | None = None  # [B, C]: a selector that also classifies the text (introspection)
    # [B, W, 2], detached: in training, the logits without the selector's own dropout, the ones its evaluation
    # thresholds (None: the same as ``logits``)
    decision_logits: torch.Tensor | None = None

    @property
    def keep_logit(self) -> torch.Tensor:
        """log p(keep) - log p(drop): the logit of a Bernoulli keep decision."""
        return log_odds(self.logits)

    @property
    def keep_probability(self) -> torch.Tensor:
        return torch.softmax(self.logits, dim=-1)[..., 1]


@kind("selector", runtime=("input_size",))
class Selector(nn.Module):
    """Chooses words: ``forward(word_states [B, W, input_size], word_mask [B, W]) -> Selection``."""

    @abstractmethod
    def forward(self, word_states: torch.Tensor, word_mask: torch.Tensor) -> Selection:
        """The selection over words; padding (``word_mask`` 0) is never selected."""


def hard_gumbel_mask(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """One-hot Gumbel-softmax sample over the last dim; returns its "keep" column."""
    return F.gumbel_softmax(logits, tau=temperature, hard=True, dim=-1)[..., 1]


def deterministic_mask(logits: torch.Tensor) -> torch.Tensor:
    return (logits[..., 1] >= logits[..., 0]).to(logits.dtype)


EVALUATION_MODES = ("threshold", "sample")


def evaluation_mask(logits: torch.Tensor, mode: str, temperature: float) -> torch.Tensor:
    """The eval-mode mask: p(keep) >= 0.5, or a hard Gumbel sample (``mode == "sample"``)."""
    return hard_gumbel_mask(logits, temperature) if mode == "sample" else deterministic_mask(logits)


def samples_at_evaluation(module: nn.Module) -> bool:
    """Whether any selector inside ``module`` draws a random sample in eval mode."""
    return any(getattr(m, "evaluation", None) == "sample" for m in module.modules())


class GumbelSelectorConfig(Configuration):
    temperature: float = Real(1.0, gt=0.0, description="Gumbel-softmax temperature")
    dropout: float = Real(0.0, ge=0.0, lt=1.0)
    evaluation: Literal["threshold", "sample"] = Param(
        "threshold", description="eval-mode mask: p(keep) >= 0.5, or a Gumbel sample (the Liu et al. reference)")


class GumbelSelector(Selector):
    """A linear layer over word states, sampled with hard Gumbel-softmax in training."""

    def __init__(self, *, input_size: int, temperature: float = 1.0, dropout: float = 0.0,
                 evaluation: str = "threshold"):
        super().__init__()
        if evaluation not in EVALUATION_MODES:
            raise ValueError(f"selector.evaluation: expected one of {EVALUATION_MODES}, got {evaluation!r}")
        self.temperature = temperature
        self.evaluation = evaluation
        self.dropout = nn.Dropout(dropout)
        self.scorer = nn.Linear(input_size, 2)

    def forward(self, word_states, word_mask):
        logits = self.scorer(self.dropout(word_states))
        decision = None
        if self.training:
            raw = hard_gumbel_mask(logits, self.temperature)
            if self.dropout.p > 0:  # one more linear map, no random draw: read by a constraint on the rate
                with torch.no_grad():
                    decision = self.scorer(word_states)
        else:
            raw = evaluation_mask(logits, self.evaluation, self.temperature)
        return Selection(logits=logits, mask=raw * word_mask.to(raw.dtype), raw_mask=raw, decision_logits=decision)


class RandomSelectorConfig(Configuration):
    rate: float = Real(0.15, gt=0.0, le=1.0, description="probability of keeping each word")


class RandomSelector(Selector):
    """EVAL-X style sanity baseline: keeps each word independently with probability ``rate``.

    Evaluation is seeded per batch content so repeated scoring is reproducible.
    """

    def __init__(self, *, input_size: int, rate: float = 0.15):
        super().__init__()
        self.rate = rate
        self.register_buffer("_anchor", torch.zeros(()), persistent=False)

    def forward(self, word_states, word_mask):
        batch, words = word_mask.shape
        p = torch.full((batch, words), self.rate, device=word_mask.device)
        generator = None
        if not self.training:
            generator = torch.Generator(device=word_mask.device).manual_seed(int(word_mask.sum().item()) * 7919 + words)
        mask = torch.bernoulli(p, generator=generator) * word_mask.to(p.dtype)
        logit = torch.logit(p.clamp(1e-6, 1 - 1e-6))
        logits = torch.stack([torch.zeros_like(logit), logit], dim=-1) + self._anchor
        return Selection(logits=logits, mask=mask)
