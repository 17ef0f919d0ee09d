"""A run stopped mid-training and resumed from its last.ckpt ends exactly like an uninterrupted run."""
from __future__ import annotations

import json

import pytest
import torch

from pyhighlights.config.compose import compose_config
from pyhighlights.testing import tiny_overrides
from pyhighlights.training.checkpoints import latest_checkpoint
from pyhighlights.training.run import Experiment, resolve_specs


class Killed(Exception):
    pass


def experiment(data_dir, *extra):
    cfg = compose_config(tiny_overrides(data_dir, "trainer.max_epochs=3", "trainer.limit_train_batches=6",
                                        "trainer.log_every_n_steps=2", *extra))
    return Experiment(resolve_specs(cfg))


def kill_at(exp, epoch, batch):
    """The next model built raises at (epoch, batch), before training on it, like a process killed there."""
    build = exp.model

    def model():
        built = build()

        def crash(batch_, batch_idx):
            if built.current_epoch == epoch and batch_idx == batch:
                raise Killed()
        built.on_train_batch_start = crash
        return built
    exp.model = model


def outputs(run_dir):
    return {name: (run_dir / name).read_text() for name in ("metrics.csv", "predictions.jsonl")}


@pytest.mark.parametrize("model, every, kill_batch", [
    ("rnp", 0, 3),   # epoch-end checkpoint: epoch 2 is trained again
    ("rnp", 2, 5),   # mid-epoch checkpoint after batch 4 of epoch 2
    ("grat", 2, 3),  # G-RAT: guider pre-training epoch, annealing state, two optimisers
])
def test_resume_equals_uninterrupted(tiny_beer_dir, tmp_path, model, every, kill_batch):
    extra = [f"model={model}", f"trainer.checkpoint_every_n_steps={every}"]
    if model == "grat":
        extra += ["model.pretrain_epochs=1", "model.decay=0.1", "model.lr=0.001"]
    straight_dir, resumed_dir = tmp_path / "straight", tmp_path / "resumed"
    straight = experiment(tiny_beer_dir, *extra).train_seed(0, straight_dir)

    exp = experiment(tiny_beer_dir, *extra)
    kill_at(exp, epoch=2, batch=kill_batch)
    with pytest.raises(Killed):
        exp.train_seed(0, resumed_dir)
    checkpoint = latest_checkpoint(resumed_dir)
    state = torch.load(checkpoint, weights_only=False)
    expected_position = (1, 6) if every == 0 else (2, kill_batch // every * every)
    assert (state["epoch"], state["loops"]["fit_loop"]["state_dict"]["combined_loader"][0]["batches_done"]) \
        == expected_position

    torch.manual_seed(1234)  # a different global random state must not matter
    resumed = experiment(tiny_beer_dir, *extra).train_seed(0, resumed_dir, resume_from=checkpoint)

    assert json.dumps(resumed, sort_keys=True) == json.dumps(straight, sort_keys=True)
    assert outputs(resumed_dir) == outputs(straight_dir)
    final_a = torch.load(straight_dir / "checkpoints" / "last.ckpt", weights_only=False)
    final_b = torch.load(resumed_dir / "checkpoints" / "last.ckpt", weights_only=False)
    for name, value in final_a["state_dict"].items():
        assert torch.equal(value, final_b["state_dict"][name]), name
    for opt_a, opt_b in zip(final_a["optimizer_states"], final_b["optimizer_states"]):
        for key, sa in opt_a["state"].items():
            assert all(torch.equal(sa[k], opt_b["state"][key][k]) for k in sa)
