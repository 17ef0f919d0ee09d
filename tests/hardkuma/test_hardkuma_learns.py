"""Behavioural: HardKuma learns the small synthetic corpus on one CPU thread.

Corpus: ``short_learnable_beer_dir`` (see ``write_short_learnable_beer`` in pyhighlights/testing.py: reviews of
20-40 words, 704 balanced training documents, 164 test reviews; majority class 0.58, random 20 % selection F1
~0.16). BiGRU 64 over learned 64d embeddings, batch 64, 4 epochs (44 steps), lr 8e-3, the reference's
dependent gate (each gate reads an RCNN state over the previous gates) and its Lagrangian, with the
recipe's named options (``initialisation=open``, ``evaluation=nonzero``; see
pyhighlights/configs/recipe_model/recommended_hardkuma.yaml) and initial multipliers of 1e-3 (the reference: 1e-5) so
that the selection rate comes down to its target within the few epochs. Scored from the best validation
checkpoint, as a normal run is. Batches of 64: on one thread a step of 64 costs about 1.2 times one of 32 (its
time goes in the per-word recurrence and gate), so an epoch costs about 60 % as much.

Not every seed learns in this budget: seed 4 (not run here) collapses in the first epoch (validation sparsity
0.010 after epoch 1, 0.006 after epoch 4; test accuracy 0.439, highlight F1 0.025), as seed 2 did on the
30-60-word corpus in batches of 16 at lr 4e-3 (seed 2 learns here). With Adam the step of a gate's parameters
is normalised, so the multiplier's consistent push towards fewer words moves them at the full learning rate
whatever the multiplier's size, while the task's gradient is still noise (and is exactly zero where a gate's
sample is exactly 0 or 1); once most gates sit at 0 the task gradient cannot bring them back.
"""
import pytest
from learning_seeds import seed_params

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import run

SETTINGS = ["model=hardkuma", "layout=packed", "backbone.hidden_size=64", "embeddings.dim=64",
            "trainer.batch_size=64", "trainer.max_epochs=4", "trainer.progress_bar=false", "model.lr=0.008",
            "model.lr_decay=1", "model.selector.initialisation=open", "model.selector.evaluation=nonzero",
            "model.losses.sparsity.target=0.2", "model.losses.sparsity.multiplier_init=0.001",
            "model.losses.continuity.multiplier_init=0.001"]


@pytest.mark.parametrize("seed", seed_params())
def test_hardkuma_learns_synthetic_beer(short_learnable_beer_dir, tmp_path, seed):
    cfg = compose_config(["dataset=beer", f"dataset.data_dir={short_learnable_beer_dir}", *SETTINGS, f"seed={seed}"])
    metrics = run(cfg, tmp_path / "run")["seeds"][str(seed)]
    # Seeds 0-3, this machine (13-15 CPU-s each on a busy one): accuracy 0.799-0.884, highlight F1 0.461-0.545,
    # sparsity 0.095-0.164 (the constraint's target 0.2 is an upper bound); seed 4 collapses (see the docstring).
    assert metrics["test/accuracy"] >= 0.7, metrics
    assert metrics["test/highlight_f1"] >= 0.35, metrics
    assert metrics["test/sparsity"] <= 0.2, metrics
