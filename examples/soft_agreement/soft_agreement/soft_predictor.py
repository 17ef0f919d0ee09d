"""A new kind of part: a predictor that reads every word's state, weighted by a soft attention.

The project's ``predictor`` kind classifies one pooled vector, so a part with this contract is a kind of its
own; its slots are offered only its own parts (``model/soft_predictor=attention``), never a predictor's.
"""
from __future__ import annotations

from abc import abstractmethod

import torch
from torch import nn

from pyhighlights.kinds import kind
from pyhighlights.registry import Configuration, Real


@kind("soft_predictor", runtime=("input_size", "num_classes"))
class SoftPredictor(nn.Module):
    """``forward(word_states [B, W, input_size], attention [B, W]) -> logits [B, num_classes]``; each row of
    ``attention`` is a distribution over the document's words (0 on padding)."""

    @abstractmethod
    def forward(self, word_states: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
        """Class logits from the attention-weighted words."""


def masked_attention(scores: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """Softmax of ``scores`` over each document's real words (A2R's soft rationale: the selector's scores
    normalised over the words instead of sampled)."""
    return torch.softmax(scores.masked_fill(word_mask <= 0, float("-inf")), dim=-1)


class AttentionPredictorConfig(Configuration):
    dropout: float = Real(0.2, ge=0.0, lt=1.0)


class AttentionPredictor(SoftPredictor):
    """The attention-weighted mean of the word states, then one linear layer."""

    def __init__(self, *, input_size: int, num_classes: int, dropout: float):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(input_size, num_classes)

    def forward(self, word_states, attention):
        pooled = torch.einsum("bw,bwh->bh", attention, word_states)
        return self.out(self.dropout(pooled))
