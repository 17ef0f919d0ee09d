"""Behavioural: on the same seed and settings, RNP with the sparsity constraint ends nearer its target rate than
with the penalty (the learnable synthetic corpus, a few seconds on one thread)."""
import pytest

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import run

TARGET = 0.25


def test_rnp_constraint_ends_nearer_the_target_than_the_penalty(learnable_beer_dir, tmp_path):
    # No sparsity weight (and no continuity term): the penalty mode then leaves the selection where the task
    # and the initial logits put it; the multiplier alone (the reference's pure Lagrangian) moves it to the
    # target. Both score the sampled mask (selector.evaluation=sample) and the multiplier reads the sample's
    # rate: after 40 steps the keep probabilities are still diffuse, so a threshold evaluation keeps almost
    # nothing in either mode.
    base = ["dataset=beer", f"dataset.data_dir={learnable_beer_dir}", "backbone.hidden_size=16", "embeddings.dim=16",
            "trainer.batch_size=32", "trainer.max_epochs=2", "trainer.limit_train_batches=20", "model.lr=0.01",
            f"model.losses.sparsity.target={TARGET}", "model.losses.sparsity.weight=0",
            "model.losses.continuity.weight=0", "model.losses.sparsity.multiplier_lr=0.2",
            "model.losses.sparsity.multiplier_rate=sample", "model.selector.evaluation=sample",
            "trainer.limit_val_batches=1",
            "trainer.progress_bar=false", "seed=0"]
    rates = {}
    for mode in ("penalty", "constraint"):
        cfg = compose_config([*base, f"model.losses.sparsity.mode={mode}"])
        rates[mode] = run(cfg, tmp_path / mode)["seeds"]["0"]["test/sparsity"]
    assert abs(rates["constraint"] - TARGET) < abs(rates["penalty"] - TARGET), rates
    assert abs(rates["constraint"] - TARGET) < 0.1, rates
