"""Predictors: pooled states [B, H] -> class logits [B, C]."""
from __future__ import annotations

from abc import abstractmethod

import torch
from torch import nn

from pyhighlights.registry import Configuration, Param, Real, kind


@kind("predictor", runtime=("input_size", "num_classes"))
class Predictor(nn.Module):
    """Classifies one pooled vector per document: ``forward(pooled [B, input_size]) -> logits [B, num_classes]``.

    A part with another contract (reading token states, returning attention too) is another kind.
    """

    @abstractmethod
    def forward(self, pooled: torch.Tensor) -> torch.Tensor:
        """Class logits [B, num_classes] from pooled states [B, input_size]."""


class MLPPredictorConfig(Configuration):
    hidden_size: int = Param(0, ge=0, description="0 = a single linear layer")
    dropout: float = Real(0.2, ge=0.0, lt=1.0)


class MLPPredictor(Predictor):
    def __init__(self, *, input_size: int, num_classes: int, hidden_size: int = 0, dropout: float = 0.2):
        super().__init__()
        layers: list[nn.Module] = [nn.Dropout(dropout)]
        if hidden_size:
            layers += [nn.Linear(input_size, hidden_size), nn.Tanh(), nn.Dropout(dropout)]
            input_size = hidden_size
        layers.append(nn.Linear(input_size, num_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, pooled):
        return self.net(pooled)
