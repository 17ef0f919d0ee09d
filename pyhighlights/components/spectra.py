"""SPECTRA's selector (Guerreiro and Martins, ACL 2021, *SPECTRA: Sparse Structured Text Rationalization*):
deterministic structured selection by SparseMAP over a sequence factor with a budget (the paper's H:SeqBudget).

Each word gets one score s_i (a linear layer over its state). The factor sees keep scores s_i / temperature,
drop scores 0, a transition score t / temperature on the edges the reference places it on, and a budget of
round(budget% x length) kept words; the selection is the keep marginal of the SparseMAP solution
(:mod:`pyhighlights.components.sparsemap`), a sparse mixture of a few budgeted sequences, so most words get
exactly 0 or 1 and gradients flow to the scores without sampling. Evaluation divides every score by a further
``test_temperature`` (1e-3), which drives the solution to the single best sequence. Padding is never kept.

The arithmetic is the reference's (github.com/deep-spin/spectra-rationalization, commit 3f43d9c,
``rationalizers/modules/generators.py SPECTRAGenerator`` and ``modules/sparsemap.py seq_budget_smap``; the
factor is ``SequenceBudget`` of lp-sparsemap commit dd01298, ``lpsmap/ad3ext/FactorSequenceBudget.h``).
One detail is the reference's as run, not as described: it builds its transition scores as a
[L + 1, 2, 2] tensor with t / temperature at every [i, keep, keep] up to the length, but the factor reads its
edge scores as one flat vector laid out start (2), then (L - 1) pairs of 2 x 2, then end (2), so the flat
entries 4 i land on the start->keep edge and on every drop->keep edge: t rewards starting a selected span
(``transition_edges=span_start``, the default, what the reference computes). ``keep_keep`` puts t on
consecutive kept words instead, the contiguity reward the paper describes.
"""
from __future__ import annotations

from typing import Literal

import torch
from torch import nn

from pyhighlights.components.selectors import Selection, Selector
from pyhighlights.components.sparsemap import sequence_budget_sparsemap
from pyhighlights.registry import Configuration, Param, Real

#: The reference's keep score of a padding position (generators.py: ``x[lengths[k]:, 0] = -1e12``).
PADDING_SCORE = -1e12
TRANSITION_EDGES = ("span_start", "keep_keep")


class SpectraSelectorConfig(Configuration):
    budget: float = Real(10.0, ge=0.0, le=100.0, description="most words kept, in percent of each document's "
                                                             "length (rounded half to even, as torch.round)")
    transition: float = Real(0.001, description="transition score t (divided by the temperature)")
    temperature: float = Real(0.05, gt=0.0, description="scores / temperature in training")
    test_temperature: float = Real(1e-3, gt=0.0, description="evaluation divides every score by this too")
    transition_edges: Literal["span_start", "keep_keep"] = Param(
        "span_start", description="where t goes: each span's start (the reference as run) or consecutive kept "
                                  "words (the paper's contiguity reward)")
    max_iter: int = Param(100, ge=1, description="most active-set iterations of the SparseMAP solve")


def reference_edges(word_mask: torch.Tensor, score: float, edges: str) -> tuple[torch.Tensor, ...]:
    """(start [N, 2], pair [N, L-1, 2, 2], end [N, 2]) edge scores, states 0 = drop, 1 = keep."""
    if edges not in TRANSITION_EDGES:
        raise ValueError(f"selector.transition_edges: expected one of {TRANSITION_EDGES}, got {edges!r}")
    n, length = word_mask.shape
    dtype = torch.float64
    lengths = word_mask.sum(1).long()
    start = torch.zeros(n, 2, dtype=dtype, device=word_mask.device)
    end = torch.zeros_like(start)
    pair = torch.zeros(n, max(length - 1, 0), 2, 2, dtype=dtype, device=word_mask.device)
    position = torch.arange(1, length, device=word_mask.device).unsqueeze(0)  # the edge into word i
    if edges == "span_start":
        start[:, 1] = score
        pair[..., 0, 1] = torch.where(position <= lengths.unsqueeze(1), score, 0.0)
    else:
        pair[..., 1, 1] = torch.where(position < lengths.unsqueeze(1), score, 0.0)
    return start, pair, end


def word_budget(word_mask: torch.Tensor, percent: float) -> torch.Tensor:
    return torch.round(percent / 100.0 * word_mask.sum(1).to(torch.float64)).long()


class SpectraSelector(Selector):
    """Word scores -> SparseMAP keep marginals under a budget (deterministic; no sampling)."""

    def __init__(self, *, input_size: int, budget: float, transition: float, temperature: float,
                 test_temperature: float, transition_edges: str, max_iter: int):
        super().__init__()
        if transition_edges not in TRANSITION_EDGES:
            raise ValueError(f"selector.transition_edges: expected one of {TRANSITION_EDGES}, "
                             f"got {transition_edges!r}")
        self.budget, self.transition, self.temperature = budget, transition, temperature
        self.test_temperature, self.transition_edges, self.max_iter = test_temperature, transition_edges, max_iter
        self.scorer = nn.Linear(input_size, 1)

    def marginals(self, scores: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
        """p(keep) [B, W] for word scores [B, W] (the temperature not yet applied)."""
        temperature = self.temperature if self.training else self.temperature * self.test_temperature
        # The solution does not depend on padding past the longest document (never kept, a constant in the
        # quadratic), so the factor stops there: batches padded to a fixed width cost what their words cost.
        width = max(int(word_mask.sum(1).max()), 1) if word_mask.numel() else 1
        real = word_mask[:, :width]
        keep = (scores[:, :width].to(torch.float64) / temperature).masked_fill(real == 0, PADDING_SCORE)
        drop = torch.zeros_like(keep)
        start, pair, end = reference_edges(real, self.transition / temperature, self.transition_edges)
        marginal = sequence_budget_sparsemap(keep, drop, start, pair, end, word_budget(real, self.budget),
                                             self.max_iter)
        marginal = torch.nn.functional.pad(marginal, (0, scores.shape[1] - width))
        return marginal.to(scores.dtype) * word_mask.to(scores.dtype)

    def forward(self, word_states, word_mask):
        scores = self.scorer(word_states).squeeze(-1)
        mask = self.marginals(scores, word_mask)
        # the factor's unary scores, as logits (drop 0, keep s / temperature): a ranking of words
        logits = torch.stack([torch.zeros_like(scores), scores / self.temperature], dim=-1)
        return Selection(logits=logits, mask=mask, raw_mask=mask)
