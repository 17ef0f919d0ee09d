"""Testing a model whose evaluation is random: the mean over seeded evaluation draws.

The Liu et al. reference code draws a Gumbel sample at evaluation too, so a
single test pass is one draw of a random quantity. When a model samples at
evaluation, the test set is scored ``draws`` times, each draw seeded from
the run's seed and the draw's index (a rerun repeats every draw exactly),
and each metric is reported as the mean over draws, with its spread over
draws under ``<metric>/draw_std``. A deterministic model is tested once.
"""
from __future__ import annotations

import statistics

import lightning.pytorch as pl
import torch

from pyhighlights.components.selectors import samples_at_evaluation


def draw_seed(seed: int, draw: int) -> int:
    """The global torch seed of evaluation draw ``draw`` of the run seeded ``seed``."""
    return (seed + 1) * 100_003 + draw


def score_over_draws(trainer: pl.Trainer, model: pl.LightningModule, datamodule, ckpt_path: str | None,
                    draws: int, seed: int) -> dict[str, float]:
    """Test metrics, averaged over ``draws`` seeded draws when the model samples at evaluation."""
    count = draws if samples_at_evaluation(model) else 1
    per_draw: list[dict[str, float]] = []
    # Draw 0 runs last, so predictions.jsonl (rewritten by every test pass) holds draw 0.
    for draw in reversed(range(count)):
        torch.manual_seed(draw_seed(seed, draw))
        results = trainer.test(model, datamodule=datamodule, ckpt_path=ckpt_path, verbose=False)
        per_draw.append({k: float(v) for k, v in (results[0] if results else {}).items()})
    if count == 1:
        return per_draw[0]
    metrics: dict[str, float] = {}
    for name in per_draw[0]:
        values = [d[name] for d in per_draw if name in d]
        metrics[name] = statistics.fmean(values)
        metrics[f"{name}/draw_std"] = statistics.stdev(values)
    metrics["evaluation_draws"] = float(count)
    return metrics
