"""Turning documents into tensors once, before any batching.

An *encoder* maps a document to ``(input_ids, word_ids)``: the token ids the
backbone reads and, per token, the index of the word it belongs to (-1 for
special tokens). :class:`WordEncoder` is the word-level one (one token per
word). A subword tokenizer plugs in here with the same ``encode`` and a
``pad_id``; nothing downstream needs to change, because selection and
highlights stay over words.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch
from torch.utils.data import Dataset

from pyhighlights.data.batch import Document
from pyhighlights.data.vocabulary import PAD_ID, Vocabulary


class DocumentEncoder(Protocol):
    pad_id: int

    def encode(self, document: Document) -> tuple[list[int], list[int]]:
        """``(input_ids, word_ids)`` of equal length; word_ids -1 on special tokens."""
        ...


class WordEncoder:
    """Word-level encoding through a :class:`Vocabulary`: token t is word t."""

    pad_id = PAD_ID

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary

    def encode(self, document: Document) -> tuple[list[int], list[int]]:
        return self.vocabulary.encode(document.tokens), list(range(len(document.tokens)))

    def describe(self) -> dict:
        """What a checkpoint stores to encode text again: the vocabulary itself, in id order."""
        return {"kind": "words", "words": list(self.vocabulary.words)}


@dataclass
class EncodedExample:
    input_ids: torch.Tensor  # [T] long
    word_ids: torch.Tensor  # [T] long, -1 on special tokens
    highlights: torch.Tensor  # [W] long, 0/1, or -1 everywhere when unannotated
    label: int
    index: int  # position of the document in its split
    highlight_spans: torch.Tensor | None = None  # [S, 2] human evidence spans over words; None if unannotated
    environment: int | None = None  # the document's environment index; None if the corpus gives none

    @property
    def num_words(self) -> int:
        return self.highlights.shape[0]

    @property
    def num_tokens(self) -> int:
        return self.input_ids.shape[0]


def encode_document(document: Document, index: int, encoder: DocumentEncoder) -> EncodedExample:
    input_ids, word_ids = encoder.encode(document)
    if len(input_ids) != len(word_ids):
        raise ValueError(
            f"document {document.doc_id}: encoder returned {len(input_ids)} ids but "
            f"{len(word_ids)} word ids"
        )
    num_words = len(document.tokens)
    highlights = document.highlights if document.highlights is not None else [-1] * num_words
    spans = document.evidence_spans
    return EncodedExample(
        torch.tensor(input_ids, dtype=torch.long),
        torch.tensor(word_ids, dtype=torch.long),
        torch.tensor(highlights, dtype=torch.long),
        document.label,
        index,
        None if spans is None else torch.tensor(spans, dtype=torch.long).view(-1, 2),
        document.environment,
    )


class EncodedSplit(Dataset):
    """A split's encoded examples; indexing with a list returns a list (a batch).

    Samplers yield whole batches of indices and the DataLoader runs with
    ``batch_size=None``, so one ``__getitem__`` call fetches one batch.
    """

    def __init__(self, examples: list[EncodedExample]) -> None:
        self.examples = examples

    @classmethod
    def from_documents(cls, documents: list[Document], encoder: DocumentEncoder) -> "EncodedSplit":
        return cls([encode_document(d, i, encoder) for i, d in enumerate(documents)])

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, index: int | list[int]) -> EncodedExample | list[EncodedExample]:
        if isinstance(index, (list, tuple)):
            return [self.examples[i] for i in index]
        return self.examples[index]

    def lengths(self) -> list[int]:
        """Token counts, what bucketing sorts on."""
        return [example.num_tokens for example in self.examples]
