"""Padding a list of encoded examples into a :class:`Batch`.

A top-level class (not a closure) so DataLoader workers and ``ddp_spawn``
can pickle it. Each batch is padded only to its own longest document.
"""
from __future__ import annotations

import torch

from pyhighlights.data.batch import Batch
from pyhighlights.data.encoding import EncodedExample


class BatchCollator:
    def __init__(self, pad_id: int) -> None:
        self.pad_id = pad_id

    def __call__(self, examples: list[EncodedExample]) -> Batch:
        size = len(examples)
        tokens = max(e.num_tokens for e in examples)
        words = max(e.num_words for e in examples)
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
        )
