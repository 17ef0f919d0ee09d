"""Moving values between tokens [B, T] and words [B, W] through ``word_ids``.

Selection is always over words. With a word vocabulary tokens are words and
these are identities; with a subword tokenizer ``word_ids`` says which word
each token belongs to (-1 for special tokens and padding).
"""
from __future__ import annotations

import torch


def words_to_tokens(word_values: torch.Tensor, word_ids: torch.Tensor, fill: float = 0.0) -> torch.Tensor:
    """Spread a per-word value [B, W] onto tokens [B, T]; tokens of no word get ``fill``."""
    if word_values.shape[1] == word_ids.shape[1] and word_values.dim() == 2:
        return torch.where(word_ids >= 0, word_values, torch.full_like(word_values, fill))
    index = word_ids.clamp(min=0)
    spread = torch.gather(word_values, 1, index)
    return torch.where(word_ids >= 0, spread, torch.full_like(spread, fill))


def tokens_to_words_sum(token_values: torch.Tensor, word_ids: torch.Tensor, num_words: int) -> torch.Tensor:
    """Sum a per-token value [B, T] over each word's tokens -> [B, W]."""
    out = token_values.new_zeros(token_values.shape[0], num_words + 1)
    index = torch.where(word_ids >= 0, word_ids, torch.full_like(word_ids, num_words))
    out.scatter_add_(1, index, token_values)
    return out[:, :num_words]


def tokens_to_words_mean(states: torch.Tensor, word_ids: torch.Tensor, num_words: int) -> torch.Tensor:
    """Average token states [B, T, H] over each word's tokens -> [B, W, H]."""
    if states.shape[1] == num_words:
        return states
    batch, _, hidden = states.shape
    index = torch.where(word_ids >= 0, word_ids, torch.full_like(word_ids, num_words))
    sums = states.new_zeros(batch, num_words + 1, hidden)
    sums.scatter_add_(1, index.unsqueeze(-1).expand(-1, -1, hidden), states)
    counts = states.new_zeros(batch, num_words + 1)
    counts.scatter_add_(1, index, torch.ones_like(index, dtype=states.dtype))
    return (sums / counts.clamp(min=1).unsqueeze(-1))[:, :num_words]
