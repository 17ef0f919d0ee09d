"""Sampled evaluation: the test metrics are the mean over seeded evaluation draws, repeatable exactly."""
from __future__ import annotations

import statistics

import lightning.pytorch as pl
import pytest
import torch
from family_helpers import SHORT_PADDING, experiment, trainer

from pyhighlights.training.draws import draw_seed, score_over_draws


def fitted(data_dir, *extra):
    exp = experiment(data_dir, "fr", "model.lr=0.01", SHORT_PADDING, *extra)
    pl.seed_everything(0)
    model = exp.model()
    fit = trainer(1, limit_train_batches=2)
    datamodule = exp.datamodule(0)
    fit.fit(model, datamodule=datamodule)
    return fit, model, datamodule


def test_mean_over_seeded_draws(family_tiny_dir):
    fit, model, datamodule = fitted(family_tiny_dir)
    metrics = score_over_draws(fit, model, datamodule, None, draws=3, seed=4)
    again = score_over_draws(fit, model, datamodule, None, draws=3, seed=4)
    assert metrics == again  # reruns repeat every draw
    # Each draw by hand: the seed of draw d, one test pass.
    draws = []
    for d in range(3):
        torch.manual_seed(draw_seed(4, d))
        draws.append(fit.test(model, datamodule=datamodule, verbose=False)[0])
    for name in ("test/accuracy", "test/highlight_f1", "test/sparsity"):
        values = [float(d[name]) for d in draws]
        assert metrics[name] == pytest.approx(statistics.fmean(values))
        assert metrics[f"{name}/draw_std"] == pytest.approx(statistics.stdev(values))
    assert metrics["test/sparsity/draw_std"] > 0  # the draws differ: the selection is sampled
    assert metrics["evaluation_draws"] == 3
    assert len({draw_seed(4, d) for d in range(3)} | {draw_seed(5, d) for d in range(3)}) == 6


def test_deterministic_evaluation_is_tested_once(family_tiny_dir):
    fit, model, datamodule = fitted(family_tiny_dir, "model.selector.evaluation=threshold")
    calls = []
    original = fit.test
    fit.test = lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs)
    metrics = score_over_draws(fit, model, datamodule, None, draws=3, seed=0)
    assert len(calls) == 1 and "evaluation_draws" not in metrics
    assert not any(name.endswith("/draw_std") for name in metrics)
