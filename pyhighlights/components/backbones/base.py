"""The encoder contract shared by selectors, predictors and guiders."""
from __future__ import annotations

from abc import abstractmethod
from typing import Any

import torch
from torch import nn

from pyhighlights.kinds import kind


# Word backbones are also given the ``embedding_matrix`` built for their vocabulary (see data/inputs.py).
@kind("backbone")
class Backbone(nn.Module):
    """Encodes token ids into states; removed tokens contribute nothing.

    ``keep`` is an optional [B, T] float mask (straight-through gradients flow
    through it): a recurrent backbone zeroes the embeddings of removed tokens,
    a transformer removes them from the attention mask.
    """

    output_size: int
    #: The ids it reads, prepared from the corpus by :mod:`pyhighlights.data.inputs`: "words" (vocabulary ids,
    #: built with the embedding matrix passed as ``embedding_matrix``) or "subwords" (its tokenizer's ids).
    reads: str = "words"

    #: Parameters that count as "the encoder" for an encoder-specific learning rate.
    def encoder_parameters(self):
        return self.parameters()

    @abstractmethod
    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, keep: torch.Tensor | None = None) -> torch.Tensor:
        """Token states [B, T, output_size]."""

    @staticmethod
    def pool(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Max over the positions where ``mask`` > 0 -> [B, H]."""
        masked = states.masked_fill(~(mask > 0).unsqueeze(-1), torch.finfo(states.dtype).min)
        return masked.max(dim=1).values


class BackboneFactory:
    """Builds a fresh backbone from its validated spec; picklable for spawned DDP processes."""

    def __init__(self, spec: dict, **runtime: Any):
        self.spec = spec
        self.runtime = runtime

    def __call__(self, **spec_overrides: Any) -> Backbone:
        """A fresh backbone; ``spec_overrides`` replace parameters of the spec (validated like the spec)."""
        from pyhighlights.config.resolve import build

        return build("backbone", {**self.spec, **spec_overrides}, path="backbone", **self.runtime)

    def describe(self) -> dict[str, Any]:
        """The runtime arguments for a checkpoint: plain values as they are, tensors by shape and dtype only
        (their values are parameters, restored from the checkpoint's weights)."""
        return {name: {"tensor": list(value.shape), "dtype": str(value.dtype).removeprefix("torch.")}
                if isinstance(value, torch.Tensor) else value for name, value in self.runtime.items()}

    @classmethod
    def restore(cls, spec: dict, described: dict[str, Any]) -> "BackboneFactory":
        """The factory :meth:`describe` described, with zero tensors of the recorded shapes."""
        runtime = {name: torch.zeros(value["tensor"], dtype=getattr(torch, value["dtype"]))
                   if isinstance(value, dict) and "tensor" in value else value for name, value in described.items()}
        return cls(spec, **runtime)
