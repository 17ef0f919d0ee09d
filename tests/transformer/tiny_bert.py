"""A tiny, randomly initialised BERT saved like a real model directory (test helper).

The vocabulary is written by the test: a few whole words, a few "##" pieces
so that some words split into several subwords, and the BERT specials.
"""
from __future__ import annotations

from pathlib import Path

import torch

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
# "location" -> loc ##ation, "cleanliness" -> clean ##li ##ness, "staff" -> st ##aff
PIECES = ["loc", "##ation", "clean", "##li", "##ness", "st", "##aff"]
WORDS = ["the", "is", "great", "room", "was", "dirty", "a", "and", ",", ".", "near", "beach", "rude", "friendly",
         "service", "we", "in", "of", "to", "terrible", "perfect", "spotless", "noisy", "helpful"]


def write_tiny_bert(directory: Path, *, words: list[str] = (), max_positions: int = 512, seed: int = 0) -> Path:
    """Save a 1-layer, 32-wide BERT and its fast WordPiece tokenizer into ``directory``."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    directory.mkdir(parents=True, exist_ok=True)
    vocabulary = SPECIALS + PIECES + sorted(set(WORDS) | set(words) - set(SPECIALS) - set(PIECES))
    (directory / "vocab.txt").write_text("\n".join(vocabulary) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab={token: index for index, token in enumerate(vocabulary)})
    tokenizer.model_max_length = max_positions
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=len(vocabulary), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=37, max_position_embeddings=max_positions)
    BertModel(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
