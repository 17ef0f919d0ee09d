"""The two records every part of the pipeline agrees on: a document and a batch."""
from __future__ import annotations

from dataclasses import dataclass, field, fields

import torch


@dataclass
class Document:
    """One example of a corpus, over words.

    ``highlights`` holds one 0/1 per word, or is ``None`` when the document has
    no human annotation (then every position is scored as unannotated, -1).
    """

    doc_id: str
    tokens: list[str]
    label: int
    highlights: list[int] | None = None

    def __post_init__(self) -> None:
        if self.highlights is not None and len(self.highlights) != len(self.tokens):
            raise ValueError(
                f"document {self.doc_id}: {len(self.highlights)} highlight values "
                f"for {len(self.tokens)} tokens"
            )


@dataclass
class Corpus:
    """The three splits of a corpus after preprocessing, plus what was done to it."""

    name: str
    train: list[Document]
    validation: list[Document]
    test: list[Document]
    label_names: list[str]
    info: dict = field(default_factory=dict)

    @property
    def num_classes(self) -> int:
        return len(self.label_names)

    def split(self, name: str) -> list[Document]:
        if name not in ("train", "validation", "test"):
            raise ValueError(f"unknown split {name!r}; expected train, validation or test")
        return getattr(self, name)


@dataclass
class Batch:
    """A padded batch. Selection is always over words ``[B, W]``, never subwords.

    For a word-level vocabulary ``T == W`` and ``word_ids[b, t] == t`` on real words.
    """

    input_ids: torch.Tensor  # [B, T] token ids
    attention_mask: torch.Tensor  # [B, T] 1 on real tokens
    word_ids: torch.Tensor  # [B, T] word index of each token, -1 for specials/padding
    word_mask: torch.Tensor  # [B, W] 1 on real words
    highlights: torch.Tensor  # [B, W] 0/1 human highlight, -1 unannotated/padding
    labels: torch.Tensor  # [B]
    sample_ids: torch.Tensor  # [B] index of the document in its split

    @property
    def size(self) -> int:
        return self.labels.shape[0]

    @property
    def is_word_level(self) -> bool:
        """True when tokens are words (no subword folding needed)."""
        # A subword tokenizer always adds special tokens, so T > W there.
        return self.input_ids.shape[1] == self.word_mask.shape[1]

    def to(self, device: torch.device | str) -> "Batch":
        return Batch(**{f.name: getattr(self, f.name).to(device) for f in fields(self)})

    def pin_memory(self) -> "Batch":
        """Page-locked copy; DataLoader(pin_memory=True) calls this on each batch."""
        return Batch(**{f.name: getattr(self, f.name).pin_memory() for f in fields(self)})
