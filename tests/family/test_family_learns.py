"""Behavioural: each model learns a small synthetic corpus within a stated number of steps (seeded, one thread).

Corpus: ``family_learn_dir`` (short synthetic Beer reviews, ~690 balanced
training documents, 43 batches of 16 per epoch). Encoders: BiGRU 64 over
learned 64d embeddings. Each model gets a learning rate and loss weights for
this scale (not its reference defaults) and a fixed number of epochs; the
test scores the final weights on the test split (60 annotated reviews).
"""
from __future__ import annotations

import lightning.pytorch as pl
import pytest
from family_helpers import experiment

COMMON = ("backbone.hidden_size=64", "embeddings.dim=64", "trainer.batch_size=16",
          "model.losses.sparsity.weight=1", "model.losses.continuity.weight=1", "model.losses.sparsity.target=0.2")

# model -> (overrides, epochs, minimum test accuracy, minimum test highlight F1); steps = 43 x epochs
# (two optimiser steps per batch for MCD/MRD). Observed values: this machine, torch 2.13 CPU.
CASES = {
    "fr": (["model.lr=0.01", "model.losses.task.weight=1"], 6, 0.9, 0.35),  # observed: 0.98, 0.44
    "dr": (["model.lr=0.02"], 6, 0.9, 0.45),  # observed: 1.00, 0.66
    "mgr": (["model.lr=0.01", "model.num_generators=2"], 5, 0.9, 0.5),  # observed: 1.00, 0.74
    "mcd": (["model.lr=0.015"], 5, 0.85, 0.35),  # observed: 0.94, 0.47
    "dar": (["model.lr=0.01", "model.auxiliary_epochs=1"], 6, 0.9, 0.45),  # observed: 0.98, 0.64
    # MRD learns last: its selector's only task signal is the divergence, which is flat until the
    # remainder already differs from the full text.
    "mrd": (["model.lr=0.01", "model.losses.divergence.weight=5"], 6, 0.7, 0.25),  # observed: 0.80, 0.32
}


@pytest.mark.parametrize("name", list(CASES))
def test_learns(family_learn_dir, name):
    extra, epochs, min_accuracy, min_f1 = CASES[name]
    exp = experiment(family_learn_dir, name, *COMMON, *extra)
    pl.seed_everything(0, verbose=False)
    model = exp.model()
    datamodule = exp.datamodule(0)
    trainer = pl.Trainer(max_epochs=epochs, accelerator="cpu", logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, use_distributed_sampler=False,
                         limit_val_batches=0, num_sanity_val_steps=0)
    trainer.fit(model, datamodule=datamodule)
    metrics = trainer.test(model, datamodule=datamodule, verbose=False)[0]
    assert metrics["test/accuracy"] >= min_accuracy, metrics
    assert metrics["test/highlight_f1"] >= min_f1, metrics
