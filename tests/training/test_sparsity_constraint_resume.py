"""A run with the sparsity constraint stopped after epoch 1 (or within epoch 2) and resumed from its last.ckpt
ends with the multiplier and the parameters of an uninterrupted run."""
from __future__ import annotations

import pytest
import torch

from pyhighlights.config.compose import compose_config
from pyhighlights.models.base import LOSS_STATES_KEY
from pyhighlights.testing import tiny_overrides
from pyhighlights.training.checkpoints import latest_checkpoint
from pyhighlights.training.run import Experiment, resolve_specs

CONSTRAINT = ["model.losses.sparsity.mode=constraint", "model.losses.sparsity.multiplier_lr=0.5",
              "model.losses.sparsity.multiplier_init=0.2", "model.losses.sparsity.multiplier_warmup_epochs=0"]


class Killed(Exception):
    pass


def experiment(data_dir, every: int) -> Experiment:
    cfg = compose_config(tiny_overrides(data_dir, "trainer.max_epochs=2", "trainer.limit_train_batches=6",
                                        "trainer.log_every_n_steps=1", f"trainer.checkpoint_every_n_steps={every}",
                                        *CONSTRAINT))
    return Experiment(resolve_specs(cfg))


def kill_at(exp: Experiment, epoch: int, batch: int) -> None:
    """The next model built raises at the start of (epoch, batch), before the multiplier folds in the batch
    before, like a process killed there (the model's own batch-start hook still runs on every other batch)."""
    build = exp.model

    def model():
        built = build()
        own = built.on_train_batch_start

        def crash(batch_, batch_idx):
            if built.current_epoch == epoch and batch_idx == batch:
                raise Killed()
            return own(batch_, batch_idx)
        built.on_train_batch_start = crash
        return built
    exp.model = model


@pytest.mark.parametrize("every, kill_batch", [
    (0, 0),  # stopped after epoch 1: the epoch-end checkpoint
    (2, 3),  # within epoch 2: the checkpoint after its batch 1
])
def test_resumed_constraint_equals_uninterrupted(tiny_beer_dir, tmp_path, every, kill_batch):
    straight_dir, resumed_dir = tmp_path / "straight", tmp_path / "resumed"
    straight = experiment(tiny_beer_dir, every).train_seed(0, straight_dir)

    exp = experiment(tiny_beer_dir, every)
    kill_at(exp, epoch=1, batch=kill_batch)
    with pytest.raises(Killed):
        exp.train_seed(0, resumed_dir)
    checkpoint = latest_checkpoint(resumed_dir)
    saved = torch.load(checkpoint, weights_only=True)[LOSS_STATES_KEY]["losses"]["sparsity"]
    assert len(saved["pending"]) == 1  # the last batch trained: folded in when the next one starts

    torch.manual_seed(1234)  # a different global random state must not matter
    resumed = experiment(tiny_beer_dir, every).train_seed(0, resumed_dir, resume_from=checkpoint)

    assert resumed == straight
    final_a = torch.load(straight_dir / "checkpoints" / "last.ckpt", weights_only=True)
    final_b = torch.load(resumed_dir / "checkpoints" / "last.ckpt", weights_only=True)
    state_a, state_b = final_a[LOSS_STATES_KEY], final_b[LOSS_STATES_KEY]
    assert state_a == state_b
    assert abs(state_a["losses"]["sparsity"]["multiplier"] - 0.2) > 1e-3  # it moved: the check can fail
    for name, value in final_a["state_dict"].items():
        assert torch.equal(value, final_b["state_dict"][name]), name
    # the multiplier logged at every step, the resumed steps included
    assert (resumed_dir / "metrics.csv").read_text() == (straight_dir / "metrics.csv").read_text()
    assert "train/sparsity_multiplier" in (straight_dir / "metrics.csv").read_text().splitlines()[0]
