"""Behavioural: G-RAT learns a small synthetic corpus (seeded, one thread).

Corpus: ``short_learnable_beer_dir`` (see ``write_short_learnable_beer`` in pyhighlights/testing.py: reviews of
20-40 words, 704 balanced training documents, 11 batches of 64 per epoch; 164 test reviews, majority class 0.58,
random 20 % selection F1 ~0.16); BiGRU 64 over learned 64d embeddings. Batches of 64: on one thread a recurrent
step costs little more than one of 32 or 16 (its time goes in the per-word recurrence), so an epoch costs a
fraction. Schedule for this scale (not the paper's): lr 0.02, the guider trains alone for one epoch, then its
guidance is annealed out over 20 rationaliser steps (decay 0.05); at most 4 epochs, 33 rationaliser steps. The
test reviews are scored after each epoch and training stops at the first epoch that reaches both minimums.

The test runs G-RAT with our options (textbook JSD, valid-word averaging, padding excluded, pooling over kept
words, the additive guider, the family's encoders, our batching layout and one embedding table per encoder):
on the 30-60-word corpus in batches of 16 the reference arithmetic was unstable
(seeds 0-4 of the same schedule with λs = λc = 2, lr 5e-3, decay 0.01: accuracy 0.61-0.96, highlight F1
0.14-0.42, one seed near collapse at sparsity 0.013). The reference arithmetic's learning is checked on the
embedded corpus by the quick run (README).
"""
from __future__ import annotations

import lightning.pytorch as pl
import pytest
from learning_seeds import seed_params

from learning_stop import thresholds, train_until_learned

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import Experiment, resolve_specs

OUR_OPTIONS = ("model.losses.match.name=jsd", "model.guide_target_mean=valid", "model.losses.guide.average=valid",
               "model.losses.guide.logit=log_odds", "model.losses.sparsity.padding=excluded",
               "model.losses.continuity.padding=excluded", "model.predictor_pool=kept", "model.guider.name=additive",
               "model.shared_norm=false", "model.encoder_dropout=null", "model.selector.dropout=0",
               # our faster batching (GRU within each length, bucketing) and one embedding table per encoder
               "layout=packed", "model.shared_embeddings=false")
OVERRIDES = ("model=grat", "backbone.hidden_size=64", "embeddings.dim=64", "trainer.batch_size=64",
             "model.pretrain_epochs=1", "model.losses.sparsity.target=0.2", "model.lr=0.02", "model.decay=0.05",
             "model.losses.sparsity.weight=1", "model.losses.continuity.weight=1", "model.losses.guide.weight=1",
             *OUR_OPTIONS)
EPOCHS = 4
# From seeds 0-4 on this machine (torch 2.13 CPU; 10-12 CPU-s a seed on a busy machine), with a margin below the
# observed range:
MIN_ACCURACY = 0.75  # observed 0.878-0.957 (seeds 0-4: 0.939, 0.915, 0.921, 0.957, 0.878)
MIN_F1 = 0.35  # observed 0.504-0.771 (seeds 0-4: 0.674, 0.722, 0.504, 0.771, 0.659); sparsity 0.086-0.202


def train_and_test(data_dir, seed: int) -> list[dict]:
    """The test metrics after each epoch, up to the first that reaches both minimums (tests/learning_stop.py)."""
    cfg = compose_config(["dataset=beer", f"dataset.data_dir={data_dir}", *OVERRIDES])
    exp = Experiment(resolve_specs(cfg))
    pl.seed_everything(seed, verbose=False)
    model = exp.model()
    datamodule = exp.datamodule(seed)
    scores = train_until_learned(model, datamodule, EPOCHS, thresholds(MIN_ACCURACY, MIN_F1))
    # the rationaliser trained in every epoch after the guider's first
    assert int(model.rationaliser_steps) == (len(scores) - 1) * len(datamodule.train_dataloader())
    return scores


@pytest.mark.parametrize("seed", seed_params())
def test_grat_learns(short_learnable_beer_dir, seed):
    scores = train_and_test(short_learnable_beer_dir, seed)
    metrics, trained = scores[-1], f"after {len(scores)} of {EPOCHS} epochs"
    assert metrics["test/accuracy"] >= MIN_ACCURACY, (trained, metrics)
    assert metrics["test/highlight_f1"] >= MIN_F1, (trained, metrics)
