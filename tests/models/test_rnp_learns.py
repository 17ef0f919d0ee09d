"""Behavioural: RNP learns the synthetic corpus within a stated budget on one CPU thread, for every seed.

Corpus: ``short_learnable_beer_dir`` (see ``write_short_learnable_beer`` in pyhighlights/testing.py: reviews of
20-40 words, 704 balanced training documents, 164 test reviews; majority class 0.58, random 20 % selection F1
~0.16). Every seed must pass: seeds stand in for CPUs, whose float rounding differs.
"""
import pytest
from learning_seeds import seed_params

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import run


@pytest.mark.parametrize("seed", seed_params())
def test_rnp_learns_synthetic_beer(short_learnable_beer_dir, tmp_path, seed):
    # BiGRU 64 over 64d embeddings, batch 64, 6 epochs = 66 steps, scored from the best validation checkpoint
    # as a normal run is. Batches of 64: on one thread a recurrent step costs little more than one of 32 (its
    # time goes in the per-word recurrence), so an epoch costs about 60 % as much; lr 0.02 for the fewer steps.
    # The family tests' rate and weights, with continuity at 0.5: at 1, seed 0 was still at accuracy 0.65
    # after these 6 epochs (its thresholded selection still below 1 % of the words). With RNP's defaults
    # (lr 2e-3, s 0.15, weights 2), made for the full-length corpus, the selection collapsed to ~0.1 % of the
    # words on the 30-60-word corpus (seeds 0-2, accuracy 0.39-0.40).
    cfg = compose_config(["dataset=beer", f"dataset.data_dir={short_learnable_beer_dir}", "backbone.hidden_size=64",
                          "embeddings.dim=64", "trainer.batch_size=64", "trainer.max_epochs=6", "model.lr=0.02",
                          "model.losses.sparsity.weight=1", "model.losses.continuity.weight=0.5",
                          "model.losses.sparsity.target=0.2", "trainer.progress_bar=false", f"seed={seed}"])
    metrics = run(cfg, tmp_path / "run")["seeds"][str(seed)]
    # Seeds 0-4, this machine (10-12 CPU-s each on a busy one): accuracy 0.872-0.939, highlight F1 0.374-0.514.
    assert metrics["test/accuracy"] >= 0.75, metrics
    assert metrics["test/highlight_f1"] >= 0.25, metrics
