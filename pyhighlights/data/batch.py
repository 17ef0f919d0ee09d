"""The two records every part of the pipeline agrees on: a document and a batch."""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import torch


Span = tuple[int, int]


def mask_runs(mask: list[int]) -> list[Span]:
    """The maximal runs of 1 in a 0/1 list as (start, end) spans, end exclusive."""
    spans: list[Span] = []
    for position, value in enumerate(mask):
        if value == 1 and (position == 0 or mask[position - 1] != 1):
            spans.append((position, position))
        if value == 1:
            spans[-1] = (spans[-1][0], position + 1)
    return spans


@dataclass
class Document:
    """One example of a corpus, over words.

    ``highlights`` holds one 0/1 per word, or is ``None`` when the document has
    no human annotation (then every position is scored as unannotated, -1).
    ``highlight_spans`` are the human evidence spans as the corpus writes them
    ((start, end) word positions, end exclusive; adjacent or overlapping spans
    kept apart, as span-level metrics score them); ``None`` when the corpus
    gives only the 0/1 mask.
    """

    doc_id: str
    tokens: list[str]
    label: int
    highlights: list[int] | None = None
    highlight_spans: list[Span] | None = None
    environment: int | None = None  # the environment it was drawn from (InvRat); None: the corpus gives none

    def __post_init__(self) -> None:
        if self.highlights is not None and len(self.highlights) != len(self.tokens):
            raise ValueError(
                f"document {self.doc_id}: {len(self.highlights)} highlight values "
                f"for {len(self.tokens)} tokens"
            )
        if self.highlight_spans is not None:
            self._check_spans()

    def _check_spans(self) -> None:
        if self.highlights is None:
            raise ValueError(f"document {self.doc_id}: evidence spans given without highlights")
        covered = [0] * len(self.tokens)
        for start, end in self.highlight_spans:
            if not 0 <= start < end <= len(self.tokens):
                raise ValueError(f"document {self.doc_id}: evidence span [{start}, {end}) out of range; "
                                 f"expected 0 <= start < end <= {len(self.tokens)}")
            covered[start:end] = [1] * (end - start)
        if covered != [int(h == 1) for h in self.highlights]:
            raise ValueError(f"document {self.doc_id}: the evidence spans do not cover exactly "
                             f"the highlighted words")

    @property
    def evidence_spans(self) -> list[Span] | None:
        """The spans as written, or the maximal runs of the 0/1 mask when the corpus gives
        only the mask; ``None`` for an unannotated document."""
        if self.highlights is None:
            return None
        return list(self.highlight_spans) if self.highlight_spans is not None else mask_runs(self.highlights)

    def truncated(self, words: int) -> "Document":
        """The first ``words`` words, with their highlights and the spans clipped to them."""
        if len(self.tokens) <= words:
            return self
        spans = self.highlight_spans
        if spans is not None:
            spans = [(start, min(end, words)) for start, end in spans if start < words]
        highlights = None if self.highlights is None else self.highlights[:words]
        return replace(self, tokens=self.tokens[:words], highlights=highlights, highlight_spans=spans)


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
    # [B, S, 2] human evidence spans (start, end) over words, as the corpus writes them; (-1, -1) padding
    highlight_spans: torch.Tensor | None = None
    # [B] environment index of each document (long), None when the corpus gives none
    environments: torch.Tensor | None = None

    @property
    def size(self) -> int:
        return self.labels.shape[0]

    @property
    def is_word_level(self) -> bool:
        """True when tokens are words (no subword folding needed)."""
        # A subword tokenizer always adds special tokens, so T > W there.
        return self.input_ids.shape[1] == self.word_mask.shape[1]

    def spans_of(self, row: int) -> list[list[int]] | None:
        """Document ``row``'s human evidence spans as ``[[start, end], ...]`` (None if unannotated)."""
        if self.highlight_spans is None or not bool((self.highlights[row] >= 0).any()):
            return None
        spans = self.highlight_spans[row]
        return spans[spans[:, 0] >= 0].tolist()

    def to(self, device: torch.device | str) -> "Batch":
        return Batch(**{f.name: _apply(getattr(self, f.name), "to", device) for f in fields(self)})

    def pin_memory(self) -> "Batch":
        """Page-locked copy; DataLoader(pin_memory=True) calls this on each batch."""
        return Batch(**{f.name: _apply(getattr(self, f.name), "pin_memory") for f in fields(self)})


def _apply(tensor: torch.Tensor | None, method: str, *args):
    return None if tensor is None else getattr(tensor, method)(*args)
