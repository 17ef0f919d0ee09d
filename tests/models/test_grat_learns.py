"""Behavioural: G-RAT, with the reference arithmetic, learns a small synthetic corpus (seeded, one thread).

Corpus: short synthetic Beer reviews (30-60 words), ~690 balanced training documents, 43 batches of 16 per
epoch; BiGRU 64 over learned 64d embeddings. Schedule for this scale (not the paper's): the guider trains
alone for one epoch, then its guidance is annealed out over 100 rationaliser steps (decay 0.01).
The final weights are scored on the 60 annotated test reviews.
"""
from __future__ import annotations

import lightning.pytorch as pl
import pytest

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import Experiment, resolve_specs

OVERRIDES = ("model=grat", "backbone.hidden_size=64", "embeddings.dim=64", "trainer.batch_size=16",
             "model.pretrain_epochs=1", "model.losses.sparsity.target=0.2", "model.lr=0.005", "model.decay=0.01",
             "model.losses.sparsity.weight=2", "model.losses.continuity.weight=2")
EPOCHS = 6
# Thresholds from seeds 0-4 on this machine (torch 2.13 CPU), set with a margin below the observed range.
MIN_ACCURACY = 0.85  # observed: see the report of the change that set it
MIN_F1 = 0.4


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
    trainer = pl.Trainer(max_epochs=EPOCHS, accelerator="cpu", logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, use_distributed_sampler=False,
                         limit_val_batches=0, num_sanity_val_steps=0)
    trainer.fit(model, datamodule=datamodule)
    return trainer.test(model, datamodule=datamodule, verbose=False)[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grat_learns(learn_dir, seed):
    metrics = train_and_test(learn_dir, seed)
    assert metrics["test/accuracy"] >= MIN_ACCURACY, metrics
    assert metrics["test/highlight_f1"] >= MIN_F1, metrics
