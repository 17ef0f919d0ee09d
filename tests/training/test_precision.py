"""Mixed precision with the manual-optimisation models: clipping sees unscaled gradients, inf steps are skipped."""
from __future__ import annotations

import lightning.pytorch as pl
import pytest
import torch
from lightning.pytorch.plugins.precision import MixedPrecision

from pyhighlights.config.compose import compose_config
from pyhighlights.testing import tiny_overrides
from pyhighlights.training.run import Experiment, resolve_specs

CLIP = 0.01
#: The two ways to ask for clipping: the model's registered threshold, or Lightning's Trainer argument.
CLIPPING = {"model": f"model.grad_clip={CLIP}", "trainer": f"trainer.gradient_clip_val={CLIP}"}


def fit(data_dir, out_dir, *overrides, model="grat", **trainer_arguments):
    """Two training batches through the run's own Trainer (without its callbacks and logger)."""
    cfg = compose_config(tiny_overrides(data_dir, f"model={model}", *overrides))
    exp = Experiment(resolve_specs(cfg))
    pl.seed_everything(0)
    module = exp.model()
    trainer = exp.trainer(out_dir, module, logger=False, callbacks=[], enable_checkpointing=False,
                          limit_train_batches=2, limit_val_batches=0, **trainer_arguments)
    trainer.fit(module, datamodule=exp.datamodule(0))
    return module, trainer


def grad_norm(modules):
    grads = [p.grad.float() for m in modules for p in m.parameters() if p.grad is not None]
    return torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads])).item()


@pytest.mark.parametrize("precision", ["32-true", "bf16-mixed"])
@pytest.mark.parametrize("source", sorted(CLIPPING))
def test_manual_steps_clip_the_gradient_they_apply(tiny_beer_dir, tmp_path, precision, source):
    model, _ = fit(tiny_beer_dir, tmp_path, "model.pretrain_epochs=0", CLIPPING[source],
                   f"trainer.precision={precision}")
    # The last rationaliser step's gradients are still in place, clipped to norm CLIP (unclipped: 4.2 and 0.6).
    assert grad_norm(model.rationaliser_modules()) == pytest.approx(CLIP, rel=1e-3)
    assert grad_norm([model.guider]) == pytest.approx(CLIP, rel=1e-3)


def test_16_mixed_clips_the_unscaled_gradient(tiny_beer_dir, tmp_path):
    # 16-mixed's GradScaler, here on CPU: backward yields gradients scaled by 256.
    plugin = MixedPrecision("16-mixed", "cpu", scaler=torch.amp.GradScaler("cpu", init_scale=2.0 ** 8))
    model, trainer = fit(tiny_beer_dir, tmp_path, "model.pretrain_epochs=0", CLIPPING["trainer"],
                         precision=None, plugins=[plugin])
    assert trainer.precision_plugin.scaler.get_scale() == 2.0 ** 8  # scaled, and no step was skipped
    # Clipped after unscaling: norm CLIP. Clipping the scaled gradient would have left CLIP / 256.
    assert grad_norm(model.rationaliser_modules()) == pytest.approx(CLIP, rel=1e-3)
    assert grad_norm([model.guider]) == pytest.approx(CLIP, rel=1e-3)


def test_the_trainer_clips_automatic_optimisation_models(tiny_beer_dir, tmp_path):
    model, trainer = fit(tiny_beer_dir, tmp_path, CLIPPING["trainer"], model="rnp")
    assert model.automatic_optimization and trainer.gradient_clip_val == CLIP
    assert grad_norm([model]) == pytest.approx(CLIP, rel=1e-3)


@pytest.mark.gpu
def test_16_mixed_clips_unscaled_gradients_on_gpu(tiny_beer_dir, tmp_path):
    model, trainer = fit(tiny_beer_dir, tmp_path, "model.pretrain_epochs=0", CLIPPING["model"],
                         "trainer.accelerator=gpu", "trainer.precision=16-mixed")
    scale = trainer.precision_plugin.scaler.get_scale()
    assert scale > 1  # gradients were scaled in backward ...
    assert grad_norm(model.rationaliser_modules()) == pytest.approx(CLIP, rel=1e-2)  # ... and unscaled before clipping


@pytest.mark.gpu
@pytest.mark.parametrize("precision", ["16-mixed", "bf16-mixed"])
def test_every_model_trains_under_mixed_precision_on_gpu(tiny_beer_dir, precision):
    from pyhighlights import registry

    for name in registry.available("model"):
        cfg = compose_config(tiny_overrides(tiny_beer_dir, f"model={name}", "trainer.accelerator=gpu",
                                            f"trainer.precision={precision}", "trainer.limit_train_batches=2",
                                            "trainer.save_checkpoints=false"))
        exp = Experiment(resolve_specs(cfg))
        model = exp.model()
        before = [p.detach().clone() for p in model.parameters()]
        exp.trainer(__import__("pathlib").Path("/tmp") / f"amp-{name}", model, logger=False).fit(
            model, datamodule=exp.datamodule(0))
        after = list(model.parameters())
        assert all(torch.isfinite(p).all() for p in after), name
        if name != "random":
            assert any(not torch.equal(a.cpu(), b.detach().cpu()) for a, b in zip(before, after)), name


@pytest.mark.gpu
def test_a_non_finite_gradient_skips_the_step_under_16_mixed(tiny_beer_dir):
    cfg = compose_config(tiny_overrides(tiny_beer_dir, "model=grat", "model.pretrain_epochs=0"))
    exp = Experiment(resolve_specs(cfg))
    model = exp.model()
    original = model.loss

    def infinite_loss(*args, **kwargs):
        total, parts = original(*args, **kwargs)
        return total * float("inf"), parts
    model.loss = infinite_loss
    before = [p.detach().clone() for m in model.rationaliser_modules() for p in m.parameters()]
    trainer = pl.Trainer(max_epochs=1, accelerator="gpu", devices=1, precision="16-mixed", logger=False,
                         enable_checkpointing=False, enable_progress_bar=False, use_distributed_sampler=False,
                         limit_train_batches=1, limit_val_batches=0)
    trainer.fit(model, datamodule=exp.datamodule(0))
    after = [p.detach() for m in model.rationaliser_modules() for p in m.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(before, after))  # the scaler skipped the rationaliser step
    assert trainer.precision_plugin.scaler.get_scale() < 2.0 ** 16  # and lowered the scale
