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


def tiny_transformer_classifier(directory, seed: int = 0):
    """A classifier over a 1-layer, 16-wide random BERT saved in ``directory`` (no tokenizer needed)."""
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    config = BertConfig(vocab_size=30, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=20, max_position_embeddings=32, hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0)
    BertModel(config).save_pretrained(directory)
    factory = BackboneFactory({"name": "transformer", "path": str(directory)})
    model = build("model", {"name": "classifier", "predictor": {"dropout": 0.0}}, path="model",
                  backbone_factory=factory, num_classes=2)
    return model.eval()


def subword_batch() -> Batch:
    """[CLS] w0 w1a w1b w2 [SEP] and [CLS] w0 w1 [SEP] [PAD] [PAD]: word 1 of document 0 has two pieces."""
    input_ids = torch.tensor([[2, 7, 8, 9, 10, 3], [2, 11, 12, 3, 0, 0]])
    attention = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0]])
    word_ids = torch.tensor([[-1, 0, 1, 1, 2, -1], [-1, 0, 1, -1, -1, -1]])
    word_mask = torch.tensor([[1, 1, 1], [1, 1, 0]])
    return Batch(input_ids=input_ids, attention_mask=attention, word_ids=word_ids, word_mask=word_mask,
                 highlights=torch.full((2, 3), -1), labels=torch.zeros(2, dtype=torch.long),
                 sample_ids=torch.arange(2))


def two_piece_word_batch() -> Batch:
    """One document of three words for the recurrent tiny classifier; word 1 is two tokens (word_ids [0, 1, 1, 2])."""
    return Batch(input_ids=torch.tensor([[3, 5, 6, 7]]), attention_mask=torch.ones(1, 4, dtype=torch.long),
                 word_ids=torch.tensor([[0, 1, 1, 2]]), word_mask=torch.ones(1, 3, dtype=torch.long),
                 highlights=torch.full((1, 3), -1), labels=torch.zeros(1, dtype=torch.long),
                 sample_ids=torch.zeros(1, dtype=torch.long))
