"""Bidirectional GRU / LSTM over word embeddings, with packed sequences."""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from pyhighlights.components.backbones.base import Backbone, BackboneFactory, PreparedInputs
from pyhighlights.registry import Configuration, Param, Real


class RecurrentConfig(Configuration):
    cell: str = Param("gru", description="recurrent cell", pattern="^(gru|lstm)$")
    hidden_size: int = Param(200, ge=2, description="total state size (both directions)")
    num_layers: int = Param(1, ge=1, le=8)
    bidirectional: bool = Param(True)
    dropout: float = Real(0.2, ge=0.0, lt=1.0, description="dropout on embeddings and states")
    layer_norm: bool = Param(False, description="LayerNorm on the output states")

    @classmethod
    def default(cls):
        config = cls()
        config.add_condition(
            lambda c: not c.bidirectional or c.hidden_size % 2 == 0,
            name="hidden_size must be even when bidirectional",
        )
        return config


class RecurrentBackbone(Backbone):
    """Embeddings -> dropout -> (Bi)GRU/LSTM -> dropout.

    Padding is excluded by packing the sequences to their real lengths, so a
    batch padded to its longest document costs no recurrent steps on padding.
    """

    def __init__(self, *, embedding_matrix: torch.Tensor, freeze_embeddings: bool = True, cell: str = "gru",
                 hidden_size: int = 200, num_layers: int = 1, bidirectional: bool = True, dropout: float = 0.2,
                 layer_norm: bool = False):
        super().__init__()
        self.embedding = nn.Embedding.from_pretrained(embedding_matrix.clone(), freeze=freeze_embeddings, padding_idx=0)
        rnn = nn.GRU if cell == "gru" else nn.LSTM
        directions = 2 if bidirectional else 1
        self.rnn = rnn(embedding_matrix.shape[1], hidden_size // directions, num_layers=num_layers,
                       batch_first=True, bidirectional=bidirectional)
        self.dropout = nn.Dropout(dropout)
        self.norm = nn.LayerNorm(hidden_size) if layer_norm else nn.Identity()
        self.output_size = hidden_size

    @classmethod
    def prepare_inputs(cls, corpus, backbone_spec, embeddings_spec):
        from pyhighlights.config.resolve import build

        source = build("embeddings", embeddings_spec, path="embeddings")
        vocabulary, embeddings = source.build(corpus)
        factory = BackboneFactory(backbone_spec, embedding_matrix=embeddings.weight,
                                  freeze_embeddings=not source.trainable)
        return PreparedInputs(vocabulary, factory, {"embeddings": embeddings.info(), "vocabulary_size": len(vocabulary)})

    def forward(self, input_ids, attention_mask, keep=None):
        embedded = self.dropout(self.embedding(input_ids))
        if keep is not None:
            embedded = embedded * keep.unsqueeze(-1)
        lengths = attention_mask.sum(dim=1).clamp(min=1).cpu()
        total = input_ids.shape[1]
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        output, _ = self.rnn(packed)
        states, _ = pad_packed_sequence(output, batch_first=True, total_length=total)
        return self.norm(self.dropout(states))
