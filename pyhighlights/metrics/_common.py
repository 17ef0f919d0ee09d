"""Helpers shared by the metric files: masks, span ids and NaN-aware division."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def check_same_shape(**tensors: torch.Tensor) -> None:
    """Raise a ValueError naming the tensors whose shapes differ."""
    shapes = {name: tuple(t.shape) for name, t in tensors.items()}
    if len(set(shapes.values())) > 1:
        raise ValueError(f"expected tensors of the same shape, got {shapes}")


def real_words(word_mask: torch.Tensor) -> torch.Tensor:
    """Bool mask of real (non-padding) words."""
    return word_mask.bool()


def selected_words(selection: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """Bool mask of selected real words.

    A selection is hard 0/1 (or bool); values > 0.5 count as selected so that a
    float straight-through mask reads the same as its hard value. Padding is
    never counted even if a caller's mask has a 1 there.
    """
    hard = selection if selection.dtype == torch.bool else selection > 0.5
    return hard & real_words(word_mask)


def scored_words(highlights: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """Bool mask of the positions a highlight metric scores: real and annotated (!= -1)."""
    return real_words(word_mask) & (highlights >= 0)


def safe_divide(numerator: torch.Tensor, denominator: torch.Tensor) -> torch.Tensor:
    """``numerator / denominator`` in float64, NaN where the denominator is 0.

    NaN (not 0) because a ratio with nothing to count is undefined, and a 0
    would silently pull averages down.
    """
    numerator = torch.as_tensor(numerator).double()
    denominator = torch.as_tensor(denominator, device=numerator.device).double()
    nan = torch.full_like(numerator, float("nan"))
    return torch.where(denominator != 0, numerator / denominator, nan)


def run_starts(mask: torch.Tensor) -> torch.Tensor:
    """Bool [B, W]: True at the first position of every contiguous run of True."""
    previous = F.pad(mask, (1, 0), value=False)[:, :-1]
    return mask & ~previous


def span_ids(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Number the contiguous runs of True in a [B, W] bool mask.

    Returns ``ids`` [B, W] (the run's index over the whole batch, -1 outside any
    run) and ``lengths`` [n_runs]. Runs never cross rows because every row
    starts a new run at its first True.
    """
    starts = run_starts(mask)
    ids = torch.cumsum(starts.flatten().long(), 0).view_as(mask) - 1
    ids = torch.where(mask, ids, torch.full_like(ids, -1))
    n_runs = int(starts.sum())
    lengths = torch.bincount(ids[mask], minlength=n_runs)
    return ids, lengths


def mask_spans(mask: torch.Tensor) -> torch.Tensor:
    """The maximal runs of True of each row of a [B, W] bool mask as spans [B, S, 2]:
    ``(start, end)`` with ``end`` exclusive, in order; rows with fewer than S runs
    are padded with ``(-1, -1)``.
    """
    starts = run_starts(mask)
    lasts = mask & ~F.pad(mask, (0, 1), value=False)[:, 1:]
    counts = starts.sum(dim=1)
    spans = torch.full((mask.shape[0], int(counts.max()) if mask.numel() else 0, 2), -1,
                       dtype=torch.long, device=mask.device)
    rows, start_cols = starts.nonzero(as_tuple=True)
    _, last_cols = lasts.nonzero(as_tuple=True)  # row-major like the starts, so run i pairs with run i
    first_of_row = torch.cumsum(counts, 0) - counts
    rank = torch.arange(len(rows), device=mask.device) - first_of_row[rows]
    spans[rows, rank, 0] = start_cols
    spans[rows, rank, 1] = last_cols + 1
    return spans


def eraser_f1(precision: torch.Tensor, recall: torch.Tensor) -> torch.Tensor:
    """Harmonic mean, 0 where P or R is 0 (ERASER's convention, not NaN); NaN stays NaN."""
    precision, recall = torch.as_tensor(precision).double(), torch.as_tensor(recall).double()
    f1 = 2 * precision * recall / (precision + recall)
    return torch.where((precision == 0) | (recall == 0), torch.zeros_like(f1), f1)


def descending_order(scores: torch.Tensor, keep_first: torch.Tensor) -> torch.Tensor:
    """Row-wise permutation [B, W]: positions with ``keep_first`` first, then by
    score descending, ties by position ascending.

    Two stable sorts make the key lexicographic, so padding never interleaves
    with real words even when both carry the same (e.g. -inf) score.
    """
    by_score = torch.sort(scores, dim=1, descending=True, stable=True).indices
    mask_in_score_order = keep_first.gather(1, by_score).to(torch.int8)
    by_mask = torch.sort(mask_in_score_order, dim=1, descending=True, stable=True).indices
    return by_score.gather(1, by_mask)
