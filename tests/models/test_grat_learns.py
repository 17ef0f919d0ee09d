"""Behavioural: G-RAT learns a small synthetic corpus (seeded, one thread).

Corpus: short synthetic Beer reviews (30-60 words), ~690 balanced training documents, 43 batches of 16 per
epoch; BiGRU 64 over learned 64d embeddings. Schedule for this scale (not the paper's): the guider trains
alone for one epoch, then its guidance is annealed out over 50 rationaliser steps (decay 0.02); 5 epochs.
The final weights are scored on the 60 annotated test reviews.

The test runs G-RAT with our options (textbook JSD, valid-word averaging, padding excluded, pooling over kept
words, the additive guider, the family's encoders, our batching layout and one embedding table per encoder):
at this scale the reference arithmetic is unstable
(seeds 0-4 of the same schedule with λs = λc = 2, lr 5e-3, decay 0.01: accuracy 0.61-0.96, highlight F1
0.14-0.42, one seed near collapse at sparsity 0.013). The reference arithmetic's learning is checked on the
embedded corpus by the quick run (README).
"""
from __future__ import annotations

import lightning.pytorch as pl
import pytest

from pyhighlights.config.compose import compose_config
from pyhighlights.testing import quiet_cpu_trainer
from pyhighlights.training.run import Experiment, resolve_specs

OUR_OPTIONS = ("model.losses.match.name=jsd", "model.guide_target_mean=valid", "model.losses.guide.average=valid",
               "model.losses.guide.logit=log_odds", "model.losses.sparsity.padding=excluded",
               "model.losses.continuity.padding=excluded", "model.predictor_pool=kept", "model.guider.name=additive",
               "model.shared_norm=false", "model.encoder_dropout=null", "model.selector.dropout=0",
               # our faster batching (GRU within each length, bucketing) and one embedding table per encoder
               "layout=packed", "model.shared_embeddings=false")
OVERRIDES = ("model=grat", "backbone.hidden_size=64", "embeddings.dim=64", "trainer.batch_size=16",
             "model.pretrain_epochs=1", "model.losses.sparsity.target=0.2", "model.lr=0.01", "model.decay=0.02",
             "model.losses.sparsity.weight=1", "model.losses.continuity.weight=1", "model.losses.guide.weight=1",
             *OUR_OPTIONS)
EPOCHS = 5
# From seeds 0-4 on this machine (torch 2.13 CPU), with a margin below the observed range:
MIN_ACCURACY = 0.9  # observed 1.00 for all five seeds
MIN_F1 = 0.5  # observed 0.63-0.82 (seeds 0-4: 0.684, 0.820, 0.628, 0.736, 0.655); sparsity 0.12-0.18


@pytest.fixture(scope="module")
def learn_dir(tmp_path_factory):
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(tmp_path_factory.mktemp("grat_learn"), seed=3, n_train=1000, n_heldout=60,
                                n_test=60, min_length=30, max_length=60)


def train_and_test(data_dir, seed: int) -> dict:
    cfg = compose_config(["dataset=beer", f"dataset.data_dir={data_dir}", *OVERRIDES])
    exp = Experiment(resolve_specs(cfg))
    pl.seed_everything(seed, verbose=False)
    model = exp.model()
    datamodule = exp.datamodule(seed)
    trainer = quiet_cpu_trainer(EPOCHS)
    trainer.fit(model, datamodule=datamodule)
    assert int(model.rationaliser_steps) == (EPOCHS - 1) * trainer.num_training_batches
    return trainer.test(model, datamodule=datamodule, verbose=False)[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grat_learns(learn_dir, seed):
    metrics = train_and_test(learn_dir, seed)
    assert metrics["test/accuracy"] >= MIN_ACCURACY, metrics
    assert metrics["test/highlight_f1"] >= MIN_F1, metrics
