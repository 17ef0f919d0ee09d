"""Turning word scores into a highlight: the top-k words at a rate.

k = round(rate * n) per document (n = its real words, halves rounded up),
ties to the earlier word. The rate is a given number or a rationaliser's
test sparsity, so post-hoc highlights are as long as the rationaliser's
(the ERASER conventions, DeYoung et al., 2020).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import torch

from pyhighlights.metrics._common import descending_order

SPARSITY_KEY = "test/sparsity"


def top_k_selection(scores: torch.Tensor, word_mask: torch.Tensor, rate: float) -> torch.Tensor:
    """0/1 mask [B, W] (``word_mask``'s dtype) of the round(rate * n) highest-scoring real words."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must be in [0, 1], got {rate}")
    real = word_mask.bool()
    order = descending_order(scores, real)
    places = torch.arange(order.shape[1], device=order.device).expand_as(order)
    rank = torch.empty_like(order).scatter_(1, order, places)
    n_real = real.sum(dim=1, keepdim=True).double()
    k = torch.floor(n_real * rate + 0.5 + 1e-9).long()  # round half up; slack for 0.15 * 10 = 1.4999...
    return ((rank < k) & real).to(word_mask.dtype)


def rate_of_run(path: str | Path) -> float:
    """The mean test sparsity of a rationaliser's run (its ``results.json`` summary)."""
    results = Path(path).expanduser() / "results.json"
    if not results.is_file():
        raise FileNotFoundError(f"rate_from={path}: no results.json (expected a training run directory)")
    summary = json.loads(results.read_text()).get("summary", {})
    value = (summary.get(SPARSITY_KEY) or {}).get("mean")
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise ValueError(f"rate_from={path}: results.json has no {SPARSITY_KEY}")
    return float(value)
