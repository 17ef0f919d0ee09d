"""G-RAT's training step: order, pre-training, annealing buffer, exact resume."""
from __future__ import annotations

import lightning.pytorch as pl
import pytest
import torch
from pyhighlights.testing import tiny_overrides

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import Experiment, resolve_specs


def experiment(tiny_beer_dir, *extra):
    cfg = compose_config(tiny_overrides(tiny_beer_dir, "model=grat", "model.lr=0.01", "model.decay=0.1", *extra))
    return Experiment(resolve_specs(cfg))


def trainer(max_epochs, **kwargs):
    settings = dict(max_epochs=max_epochs, accelerator="cpu", logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False, use_distributed_sampler=False,
                    limit_train_batches=3, limit_val_batches=1, num_sanity_val_steps=0)
    return pl.Trainer(**{**settings, **kwargs})


def snapshot(modules):
    return [p.detach().clone() for m in modules for p in m.parameters()]


def same(a, b):
    return all(torch.equal(x, y) for x, y in zip(a, b))


def test_pretraining_trains_only_the_guider_then_both(tiny_beer_dir):
    exp = experiment(tiny_beer_dir, "model.pretrain_epochs=1")
    pl.seed_everything(0)
    model = exp.model()
    rationaliser, guider = snapshot(model.rationaliser_modules()), snapshot([model.guider])
    trainer(1).fit(model, datamodule=exp.datamodule(0))
    assert same(rationaliser, snapshot(model.rationaliser_modules())), "rationaliser moved during pre-training"
    assert not same(guider, snapshot([model.guider]))
    assert int(model.rationaliser_steps) == 0

    model2 = exp.model()
    pl.seed_everything(0)
    trainer(2).fit(model2, datamodule=exp.datamodule(0))
    assert int(model2.rationaliser_steps) == 3  # one epoch of 3 rationaliser steps after the guider-only epoch
    assert not same(snapshot(model.rationaliser_modules()), snapshot(model2.rationaliser_modules()))
    assert model2.annealing() == pytest.approx(1 - 2 * 0.1)  # t = 3 -> f = 1 - (3 - 1) * decay


def test_step_order(tiny_beer_dir):
    exp = experiment(tiny_beer_dir, "model.pretrain_epochs=0")
    model = exp.model()
    events: list[str] = []
    model.guider.register_forward_hook(
        lambda module, args, out: events.append("guider_train" if module.training else "guider_eval"))
    model.selector_encoder.register_forward_hook(lambda *a: events.append("selector"))
    original = model.manual_step

    def recording_step(optimizer, loss, modules):
        events.append("step_guider" if modules == [model.guider] else "step_rationaliser")
        original(optimizer, loss, modules)

    model.manual_step = recording_step
    trainer(1, limit_val_batches=0).fit(model, datamodule=exp.datamodule(0))
    one_batch = ["guider_train", "step_guider", "selector", "guider_eval", "step_rationaliser"]
    assert events == one_batch * 3


@pytest.mark.parametrize("extra", [(), ("dataset.aspect_environments=true", "model.losses.aspect_adversary.weight=5")],
                         ids=["registered", "aspect_adversary"])
def test_resume_continues_exactly(tiny_beer_dir, tmp_path, extra):
    exp = experiment(tiny_beer_dir, "model.pretrain_epochs=1", *extra)
    pl.seed_everything(0)
    straight = exp.model()
    trainer(3).fit(straight, datamodule=exp.datamodule(0))

    pl.seed_everything(0)
    first = exp.model()
    stopped = trainer(2)
    stopped.fit(first, datamodule=exp.datamodule(0))
    stopped.save_checkpoint(tmp_path / "stop.ckpt")

    pl.seed_everything(123)  # a different global state must not matter: the checkpoint restores it
    resumed = exp.model()
    trainer(3).fit(resumed, datamodule=exp.datamodule(0), ckpt_path=tmp_path / "stop.ckpt")

    assert int(resumed.rationaliser_steps) == int(straight.rationaliser_steps) == 6
    assert (resumed.aspect_adversary is not None) == bool(extra)
    assert resumed.annealing() == straight.annealing()
    for (name, a), b in zip(straight.state_dict().items(), resumed.state_dict().values()):
        assert torch.allclose(a.float(), b.float(), atol=1e-6), name
    for opt_a, opt_b in zip(straight.trainer.optimizers, resumed.trainer.optimizers):
        for sa, sb in zip(opt_a.state.values(), opt_b.state.values()):
            assert torch.allclose(sa["exp_avg"], sb["exp_avg"], atol=1e-6)


def test_encoder_learning_rate_reaches_every_encoder_including_the_guiders(tiny_beer_dir):
    model = experiment(tiny_beer_dir, "model.encoder_lr=0.0005", "model.guider_lr=0.02").model()
    guider_opt, rationaliser_opt = model.configure_optimizers()
    encoder_params = {id(p) for enc in (model.selector_encoder, model.predictor_encoder, model.guider.encoder)
                      for p in enc.parameters() if p.requires_grad}
    lr_of = {id(p): g["lr"] for opt in (guider_opt, rationaliser_opt) for g in opt.param_groups for p in g["params"]}
    assert encoder_params <= set(lr_of)
    # model.lr = 0.01 (see experiment()); the guider's base rate is 0.02, so its encoder keeps the ratio 0.05
    assert {lr_of[id(p)] for p in model.guider.encoder.parameters()} == {0.0005 * 0.02 / 0.01}
    assert {lr_of[id(p)] for p in model.selector_encoder.parameters()} == {0.0005}
    assert {lr_of[id(p)] for p in model.guider.scorer.parameters()} == {0.02}
    assert {lr_of[id(p)] for p in model.selector.parameters()} == {0.01}
