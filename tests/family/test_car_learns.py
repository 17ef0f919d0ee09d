"""Behavioural: CAR learns the short learnable synthetic corpus (seeded, one thread).

Corpus: ``short_learnable_beer_dir`` (20-40-word reviews, 704 balanced training documents, 22 batches of 32 an
epoch; 164 annotated test reviews; majority class 0.58, 20 % of the words at random: highlight F1 ~0.16). BiGRU 64
over learned 64d embeddings, the family's fast options (pooling the kept words, the rates over real words; see
test_family_learns.py), lr 4e-3.

Each batch trains one of the two generators (and the discriminator), so a generator sees half the batches: at 3
epochs (~13 CPU-s a seed, over the family's 10) seed 0 ended at accuracy 0.52-0.62 and F1 0.14-0.27 whatever
the learning rate (1e-2, 2e-2, 4e-3 with the likelihood term x 3). At 10 epochs it learns, at about 33 CPU-s a
seed, so the test is marked slow. The scored accuracy is ours (the reference reports none): per class t, the
discriminator's log p(t) on generator t's rationale; the rationale scored is the gold label's generator's (the
reference's ``validate``).
"""
from __future__ import annotations

import pytest
from family_helpers import experiment, trained_test_metrics

SEEDS = (0, 1, 2)
SETTINGS = ("layout=packed", "backbone.hidden_size=64", "embeddings.dim=64", "trainer.batch_size=32",
            "model.predictor_pool=kept", "model.losses.sparsity.padding=excluded",
            "model.losses.continuity.padding=excluded", "model.losses.sparsity.weight=1",
            "model.losses.continuity.weight=1", "model.losses.sparsity.target=0.2", "model.lr=0.004")
EPOCHS = 10
# observed over seeds 0-4 (this machine, torch CPU, 29-33 CPU-s a seed): accuracy 0.720-0.884 (0.835, 0.884, 0.884,
# 0.860, 0.720), highlight F1 0.289-0.402 (0.337, 0.402, 0.375, 0.341, 0.289)
MIN_ACCURACY, MIN_F1 = 0.65, 0.25


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_car_learns(short_learnable_beer_dir, seed):
    exp = experiment(short_learnable_beer_dir, "car", *SETTINGS)
    metrics = trained_test_metrics(exp, seed, EPOCHS)
    assert metrics["test/accuracy"] >= MIN_ACCURACY, metrics
    assert metrics["test/highlight_f1"] >= MIN_F1, metrics
