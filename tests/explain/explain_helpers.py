"""Tiny models and hand-made batches for the explain tests."""
from __future__ import annotations

import torch

from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.resolve import build
from pyhighlights.data.batch import Batch


def tiny_classifier(vocab: int = 12, dim: int = 4, hidden: int = 4, seed: int = 0):
    """An untrained (random) classifier with a BiGRU over fixed random embeddings, no dropout, in eval mode."""
    torch.manual_seed(seed)
    factory = BackboneFactory({"name": "gru", "hidden_size": hidden, "dropout": 0.0},
                              embedding_matrix=torch.randn(vocab, dim), freeze_embeddings=True)
    model = build("model", {"name": "classifier", "predictor": {"dropout": 0.0}}, path="model",
                  backbone_factory=factory, num_classes=2)
    return model.eval()


def word_batch(rows: list[list[int]], highlights: list[list[int]] | None = None) -> Batch:
    """A word-level batch (one token per word), right-padded with id 0."""
    width = max(len(r) for r in rows)
    size = len(rows)
    input_ids = torch.zeros(size, width, dtype=torch.long)
    attention = torch.zeros(size, width, dtype=torch.long)
    word_ids = torch.full((size, width), -1, dtype=torch.long)
    hl = torch.full((size, width), -1, dtype=torch.long)
    for i, row in enumerate(rows):
        n = len(row)
        input_ids[i, :n] = torch.tensor(row)
        attention[i, :n] = 1
        word_ids[i, :n] = torch.arange(n)
        if highlights is not None:
            hl[i, :n] = torch.tensor(highlights[i])
    return Batch(input_ids=input_ids, attention_mask=attention, word_ids=word_ids, word_mask=attention.clone(),
                 highlights=hl, labels=torch.zeros(size, dtype=torch.long), sample_ids=torch.arange(size))


class LinearPresenceModel(torch.nn.Module):
    """logit_1 = Σ_w keep_w · coef[id_w], logit_0 = 0: a model whose exact word attributions are known."""

    def __init__(self, coef: torch.Tensor):
        super().__init__()
        self.coef = coef

    def predict(self, batch: Batch, keep: torch.Tensor) -> torch.Tensor:
        score = (keep.float() * self.coef[batch.input_ids]).sum(dim=1)
        return torch.stack([torch.zeros_like(score), score], dim=1)
