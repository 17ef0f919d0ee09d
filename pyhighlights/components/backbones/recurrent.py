"""Bidirectional GRU / LSTM over word embeddings, in one of two recurrences.

``recurrence="within_length"``: padding never reaches a real position. The
forward direction reads each document left to right (right padding comes
after every real word), and the backward direction reads each document
reversed *within its own length*, so it starts at the last real word, exactly
as a packed sequence would; states at padded positions are zero.

``recurrence="padded"``: what a plain bidirectional ``nn.GRU`` computes over
the whole padded tensor, as the G-RAT and Liu et al. reference code runs it.
The padded embeddings are zero, but the backward direction starts at the end
of the padding and the padded positions keep their (non-zero) states. Its
results depend on the padded width, so it is meant to run with the batching
of the reference (see ``model.pad_to``).

Why not ``pack_padded_sequence``: on CPU, PyTorch's packed recurrent backward
slices the packed data once per time step and each slice's gradient is a
full-size zero tensor, so the backward is quadratic in the length (measured
about 20x slower than the padded kernel at length 180, batch 256). Length
bucketing keeps the padded tail short, so the padded kernel plus per-length
reversal is both exact and fast.

``kernel="fused"``: a GRU pass that needs a gradient, on CPU, runs as one
autograd node per direction and layer (:mod:`.fused_gru`: nn.GRU's equations,
its forward to float rounding, a hand-written backward); the padded backward
direction reads from the end itself instead of flipping its input and output.
Passes without a gradient (evaluation, the guider's re-read) keep ``nn.GRU``.
"""
from __future__ import annotations

import torch
from torch import nn

from pyhighlights.components.backbones import fused_gru
from pyhighlights.components.backbones.base import Backbone
from pyhighlights.registry import Configuration, Param, Real


class RecurrentConfig(Configuration):
    cell: str = Param("gru", description="recurrent cell", pattern="^(gru|lstm)$")
    hidden_size: int = Param(200, ge=2, description="total state size (both directions)")
    num_layers: int = Param(1, ge=1, le=8)
    bidirectional: bool = Param(True)
    dropout: float = Real(0.2, ge=0.0, lt=1.0, description="dropout on embeddings and states")
    layer_norm: bool = Param(False, description="LayerNorm on the output states")
    output_dropout: bool = Param(True, description="dropout on the output states too; false: on the embeddings "
                                                   "(and between layers) only, as the Inter-RAT reference's MaskGRU")
    recurrence: str = Param("within_length", pattern="^(within_length|padded)$",
                            description="within_length: each document read within its own length, padding states "
                                        "zero; padded: nn.GRU over the whole padded tensor (the reference code); "
                                        "model.recurrence, when set, takes precedence")
    kernel: str = Param("torch", pattern="^(torch|fused)$",
                        description="GRU passes that need a gradient, on CPU: torch: nn.GRU's own kernel; fused: "
                                    "the same equations as one autograd node per direction and layer, fewer and "
                                    "larger kernels (same forward to float rounding, faster training); passes "
                                    "without a gradient, LSTMs and other devices always use nn.GRU's")

    @classmethod
    def default(cls):
        config = cls()
        config.add_condition(
            lambda c: not c.bidirectional or c.hidden_size % 2 == 0,
            name="hidden_size must be even when bidirectional",
        )
        return config


def reverse_within_length(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse each row's first ``lengths[b]`` positions along dim 1; padding stays in place."""
    total = x.shape[1]
    positions = torch.arange(total, device=x.device).unsqueeze(0)
    lengths = lengths.to(x.device).unsqueeze(1)
    index = torch.where(positions < lengths, lengths - 1 - positions, positions)
    if x.dim() == 3:
        index = index.unsqueeze(-1).expand(-1, -1, x.shape[2])
    return torch.gather(x, 1, index)


RECURRENCES = ("within_length", "padded")
KERNELS = ("torch", "fused")


def reverse_all(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse each row over the whole padded width (the backward direction of ``nn.GRU`` on a padded tensor)."""
    return torch.flip(x, dims=[1])


class RecurrentBackbone(Backbone):
    """Embeddings -> dropout -> (Bi)GRU/LSTM layers -> dropout [-> LayerNorm]."""

    reads = "words"

    def __init__(self, *, embedding_matrix: torch.Tensor, freeze_embeddings: bool = True, cell: str = "gru",
                 hidden_size: int = 200, num_layers: int = 1, bidirectional: bool = True, dropout: float = 0.2,
                 layer_norm: bool = False, recurrence: str = "within_length", extra_inputs: int = 0,
                 extra_on_padding: bool = False, output_dropout: bool = True, kernel: str = "torch"):
        super().__init__()
        if recurrence not in RECURRENCES:
            raise ValueError(f"backbone.recurrence: expected one of {RECURRENCES}, got {recurrence!r}")
        if kernel not in KERNELS:
            raise ValueError(f"backbone.kernel: expected one of {KERNELS}, got {kernel!r}")
        self.recurrence = recurrence
        self.kernel = kernel
        self.embedding = nn.Embedding.from_pretrained(embedding_matrix.clone(), freeze=freeze_embeddings, padding_idx=0)
        rnn = nn.GRU if cell == "gru" else nn.LSTM
        directions = 2 if bidirectional else 1
        size = hidden_size // directions
        # extra_inputs: per-word features a model joins to the embeddings (InvRat's environment one-hot);
        # a runtime argument of the model that asks for it, not a backbone setting.
        self.extra_inputs = extra_inputs
        # extra_on_padding: the features are joined at padded positions too (DMR's discriminator joins its
        # path one-hot to every position of the padded tensor); otherwise they are zero there.
        self.extra_on_padding = extra_on_padding
        inputs = [embedding_matrix.shape[1] + extra_inputs] + [hidden_size] * (num_layers - 1)
        self.forward_layers = nn.ModuleList(rnn(n, size, batch_first=True) for n in inputs)
        self.backward_layers = nn.ModuleList(rnn(n, size, batch_first=True) for n in inputs) if bidirectional else None
        self.dropout = nn.Dropout(dropout)
        self.output_dropout = output_dropout
        self.norm = nn.LayerNorm(hidden_size) if layer_norm else nn.Identity()
        self.output_size = hidden_size

    def forward(self, input_ids, attention_mask, keep=None, extra=None):
        states = self.dropout(self.embedding(input_ids))
        real = attention_mask.unsqueeze(-1).to(states.dtype)
        padded = self.recurrence == "padded"
        if padded:
            # The padded positions are read, so their embeddings must be zero whatever the padding id's row is
            # (the reference multiplies the embeddings by the mask).
            states = states * real
        if keep is not None:
            states = states * keep.unsqueeze(-1)
        if (extra is None) != (self.extra_inputs == 0) or (extra is not None and extra.shape[-1] != self.extra_inputs):
            raise ValueError(f"recurrent backbone built for {self.extra_inputs} extra input features, given "
                             f"{0 if extra is None else extra.shape[-1]}")
        if extra is not None:
            # joined after the keep mask: the features stay on removed words (InvRat concatenates its
            # environment one-hot to the rationale-masked embeddings), zero on padding
            extra = extra.to(states.dtype)
            states = torch.cat([states, extra if self.extra_on_padding else extra * real], dim=-1)
        lengths = attention_mask.sum(dim=1)
        reverse = reverse_all if padded else reverse_within_length
        for depth, forward_rnn in enumerate(self.forward_layers):
            if depth:
                states = self.dropout(states)
            ahead = self._read(forward_rnn, states)
            if self.backward_layers is not None:
                backward_rnn = self.backward_layers[depth]
                if padded and self._fused(backward_rnn, states):
                    # read from the last padded position back, states in time order: reverse_all, the GRU,
                    # reverse_all, without the two copies
                    behind = fused_gru.gru_direction(backward_rnn, states, reverse=True)
                else:
                    behind = reverse(self._read(backward_rnn, reverse(states, lengths)), lengths)
                ahead = torch.cat([ahead, behind], dim=-1)
            states = ahead if padded else ahead * real
        return self.norm(self.dropout(states) if self.output_dropout else states)

    def _fused(self, rnn: nn.Module, inputs: torch.Tensor) -> bool:
        return self.kernel == "fused" and fused_gru.applies(rnn, inputs)

    def _read(self, rnn: nn.Module, inputs: torch.Tensor) -> torch.Tensor:
        """The states of one direction over ``inputs`` [B, T, I], in reading order."""
        return fused_gru.gru_direction(rnn, inputs) if self._fused(rnn, inputs) else rnn(inputs)[0]
