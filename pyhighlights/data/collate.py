"""Padding a list of encoded examples into a :class:`Batch`.

A top-level class (not a closure) so DataLoader workers and ``ddp_spawn``
can pickle it. Each batch is padded to its own longest document, or to a
fixed width ``pad_to`` (as the Liu et al. loaders pad every batch to 256).
"""
from __future__ import annotations

import torch

from pyhighlights.data.batch import Batch
from pyhighlights.data.encoding import EncodedExample


class BatchCollator:
    def __init__(self, pad_id: int, pad_to: int | None = None) -> None:
        if pad_to is not None and pad_to < 1:
            raise ValueError(f"model.pad_to: expected a positive width or null, got {pad_to}")
        self.pad_id = pad_id
        self.pad_to = pad_to

    def __call__(self, examples: list[EncodedExample]) -> Batch:
        size = len(examples)
        tokens = max(e.num_tokens for e in examples)
        words = max(e.num_words for e in examples)
        if self.pad_to is not None:
            if tokens > self.pad_to:
                longest = max(examples, key=lambda e: e.num_tokens)
                raise ValueError(f"document {longest.index} has {tokens} tokens, more than model.pad_to="
                                 f"{self.pad_to}; cut documents to at most {self.pad_to} (dataset.max_length) or "
                                 "raise model.pad_to")
            # Words never outnumber tokens, so both widths become pad_to.
            tokens = words = self.pad_to
        input_ids = torch.full((size, tokens), self.pad_id, dtype=torch.long)
        attention_mask = torch.zeros((size, tokens), dtype=torch.long)
        word_ids = torch.full((size, tokens), -1, dtype=torch.long)
        word_mask = torch.zeros((size, words), dtype=torch.long)
        highlights = torch.full((size, words), -1, dtype=torch.long)
        spans = max((len(e.highlight_spans) for e in examples if e.highlight_spans is not None), default=0)
        highlight_spans = torch.full((size, spans, 2), -1, dtype=torch.long)
        for row, example in enumerate(examples):
            input_ids[row, : example.num_tokens] = example.input_ids
            attention_mask[row, : example.num_tokens] = 1
            word_ids[row, : example.num_tokens] = example.word_ids
            word_mask[row, : example.num_words] = 1
            highlights[row, : example.num_words] = example.highlights
            if example.highlight_spans is not None:
                highlight_spans[row, : len(example.highlight_spans)] = example.highlight_spans
        return Batch(
            input_ids=input_ids,
            attention_mask=attention_mask,
            word_ids=word_ids,
            word_mask=word_mask,
            highlights=highlights,
            labels=torch.tensor([e.label for e in examples], dtype=torch.long),
            sample_ids=torch.tensor([e.index for e in examples], dtype=torch.long),
            highlight_spans=highlight_spans,
            environments=collate_environments(examples),
        )


def collate_environments(examples: list[EncodedExample]) -> torch.Tensor | None:
    """[B] environment indices, or None when no example has one; a batch mixing both is refused."""
    given = [e.environment is not None for e in examples]
    if not any(given):
        return None
    if not all(given):
        missing = next(e for e in examples if e.environment is None)
        raise ValueError(f"document {missing.index} has no environment while others in its batch have one; "
                         "every document of a corpus with environments needs one")
    return torch.tensor([e.environment for e in examples], dtype=torch.long)
