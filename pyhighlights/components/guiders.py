"""Guiders (G-RAT, Hu and Yu, AAAI 2024): read the full input, return attention over tokens and class logits.

Both guiders score every token, add half-normal noise |N(0, sigma^2)| to the
scores in training mode only, exclude padding from the softmax (the attention
sums to 1 over valid tokens) and classify from the attended states.

- ``reference``: the architecture of the G-RAT reference code
  (model/common/modules.py, GuidanceModule): a linear projection of the
  embeddings is added to the encoder states, then LayerNorm; a GELU-MLP scores
  the tokens; the attention scales the states before a projection (GELU, the
  same LayerNorm); a second attention pooling reduces them to one vector.
- ``additive``: ours, smaller: additive (tanh) attention over the encoder
  states, and the attention-weighted sum of the states is classified.
"""
from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

import torch
from torch import nn

from pyhighlights.components.backbones.base import Backbone
from pyhighlights.registry import Configuration, Param, Real, kind


@dataclass
class Guidance:
    attention: torch.Tensor  # [B, T], sums to 1 over valid tokens, 0 on padding
    logits: torch.Tensor  # [B, C]


@kind("guider", runtime=("encoder", "num_classes"))
class Guider(nn.Module):
    """Reads the full input through its own ``encoder``: ``forward(input_ids, attention_mask) -> Guidance``."""

    @abstractmethod
    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> Guidance:
        """Attention over tokens [B, T] and class logits [B, num_classes]."""


def noisy_masked_softmax(scores: torch.Tensor, attention_mask: torch.Tensor, noise_sigma: float,
                         training: bool) -> torch.Tensor:
    """softmax over valid tokens of scores (+ |N(0, sigma^2)| in training); padding gets 0."""
    if training and noise_sigma > 0:
        scores = scores + (torch.randn_like(scores) * noise_sigma).abs()
    return torch.softmax(scores.masked_fill(~attention_mask.bool(), float("-inf")), dim=-1)


class GuiderCommon(Configuration):
    noise_sigma: float = Real(1.0, ge=0.0, description="sigma of the half-normal noise on attention scores (training); "
                                                       "reference: run_guide.py --noise_sigma 1.0")
    dropout: float = Real(0.2, ge=0.0, lt=1.0, description="reference: run_guide.py --dropout 0.2")


class ReferenceGuiderConfig(GuiderCommon):
    pass


class ReferenceGuider(Guider):
    """The reference guider; sizes follow the encoder (H = encoder.output_size).

    The embedding residual needs an encoder with an ``embedding`` layer (the
    recurrent backbones); other encoders go without it.
    """

    def __init__(self, *, encoder: Backbone, num_classes: int, noise_sigma: float = 1.0, dropout: float = 0.2):
        super().__init__()
        self.encoder = encoder
        size = encoder.output_size
        self.noise_sigma = noise_sigma
        embedding = getattr(encoder, "embedding", None)
        self.residual = nn.Linear(embedding.embedding_dim, size) if isinstance(embedding, nn.Embedding) else None
        self.norm = nn.LayerNorm(size)  # applied twice, as in the reference
        self.dropout = nn.Dropout(dropout)
        self.scorer = nn.Sequential(nn.Linear(size, size), nn.GELU(), nn.Linear(size, 1))
        self.projection = nn.Linear(size, size)
        self.pool_scorer = nn.Sequential(nn.Linear(size, size), nn.LayerNorm(size), nn.GELU(), nn.Linear(size, 1))
        self.classifier = nn.Linear(size, num_classes)

    def forward(self, input_ids, attention_mask):
        states = self.encoder(input_ids, attention_mask)
        if self.residual is not None:
            embedded = self.encoder.embedding(input_ids) * attention_mask.unsqueeze(-1).to(states.dtype)
            states = states + self.residual(embedded)
        states = self.norm(states)
        scores = self.scorer(self.dropout(states)).squeeze(-1)
        attention = noisy_masked_softmax(scores, attention_mask, self.noise_sigma, self.training)
        scaled = self.norm(nn.functional.gelu(self.projection(attention.unsqueeze(-1) * states)))
        pool_weights = torch.softmax(
            self.pool_scorer(scaled).squeeze(-1).masked_fill(~attention_mask.bool(), float("-inf")), dim=-1)
        pooled = torch.bmm(pool_weights.unsqueeze(1), scaled).squeeze(1)
        return Guidance(attention=attention, logits=self.classifier(self.dropout(pooled)))


class AdditiveGuiderConfig(GuiderCommon):
    attention_size: int = Param(100, ge=1, description="hidden size of the additive attention scorer")


class AdditiveGuider(Guider):
    def __init__(self, *, encoder: Backbone, num_classes: int, noise_sigma: float = 1.0, attention_size: int = 100,
                 dropout: float = 0.2):
        super().__init__()
        self.encoder = encoder
        size = encoder.output_size
        self.noise_sigma = noise_sigma
        self.scorer = nn.Sequential(nn.Linear(size, attention_size), nn.Tanh(), nn.Linear(attention_size, 1, bias=False))
        self.classifier = nn.Sequential(nn.Dropout(dropout), nn.Linear(size, num_classes))

    def forward(self, input_ids, attention_mask):
        states = self.encoder(input_ids, attention_mask)
        scores = self.scorer(states).squeeze(-1)
        attention = noisy_masked_softmax(scores, attention_mask, self.noise_sigma, self.training)
        pooled = torch.bmm(attention.unsqueeze(1), states).squeeze(1)
        return Guidance(attention=attention, logits=self.classifier(pooled))
