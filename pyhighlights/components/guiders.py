"""Guiders: read the full input, return attention over tokens and class logits.

The attention guider of G-RAT (Hu and Yu, AAAI 2024): additive attention over
its own encoder's states; in training mode the scores get half-normal noise
|N(0, sigma^2)|; padding is excluded from the softmax.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from pyhighlights.components.backbones.base import Backbone
from pyhighlights.registry import Configuration, Param, Real


@dataclass
class Guidance:
    attention: torch.Tensor  # [B, T], sums to 1 over valid tokens, 0 on padding
    logits: torch.Tensor  # [B, C]


class Guider(nn.Module):
    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> Guidance:
        raise NotImplementedError


class AttentionGuiderConfig(Configuration):
    noise_sigma: float = Real(1.0, ge=0.0, description="sigma of the half-normal noise on attention scores (training)")
    attention_size: int = Param(100, ge=1, description="hidden size of the additive attention scorer")
    dropout: float = Real(0.2, ge=0.0, lt=1.0)


class AttentionGuider(Guider):
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
        if self.training and self.noise_sigma > 0:
            scores = scores + (torch.randn_like(scores) * self.noise_sigma).abs()
        scores = scores.masked_fill(~attention_mask.bool(), float("-inf"))
        attention = torch.softmax(scores, dim=-1)
        pooled = torch.bmm(attention.unsqueeze(1), states).squeeze(1)
        return Guidance(attention=attention, logits=self.classifier(pooled))
