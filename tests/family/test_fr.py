"""FR: the selector and the predictor share the very same encoder, stepped once per batch."""
from __future__ import annotations

import copy

import lightning.pytorch as pl
import torch
from family_helpers import Recorder, adam_first_step, experiment, trainer


def test_one_encoder_serves_both_parts(family_tiny_dir):
    model = experiment(family_tiny_dir, "fr").model()
    assert model.selector_encoder is model.predictor_encoder is model.encoder
    # No second encoder anywhere: the only backbone is the shared one.
    from pyhighlights.components.backbones.base import Backbone

    assert [m for m in model.modules() if isinstance(m, Backbone)] == [model.encoder]
    optimizer = model.configure_optimizers()
    ids = [id(p) for group in optimizer.param_groups for p in group["params"]]
    assert len(ids) == len(set(ids)) == len(list(model.parameters()))


def test_both_paths_reach_the_encoder(family_tiny_dir):
    exp = experiment(family_tiny_dir, "fr", "backbone.dropout=0", "model.predictor.dropout=0")
    model = exp.model()
    from family_helpers import first_batch

    batch = first_batch(exp)
    torch.manual_seed(0)
    selection = model.select(batch)
    # Selector path only (predictor reads a detached mask) and predictor path only (same mask, detached).
    selector_only = (selection.keep_logit * batch.word_mask).sum()
    predictor_only = model.predict(batch, selection.mask.detach()).logsumexp(-1).sum()
    params = list(model.encoder.parameters())
    g_sel = torch.autograd.grad(selector_only, params, retain_graph=True, allow_unused=True)
    g_pred = torch.autograd.grad(predictor_only, params, allow_unused=True)
    weight = dict(model.encoder.named_parameters())
    index = list(weight).index("forward_layers.0.weight_ih_l0")
    assert g_sel[index].abs().sum() > 0 and g_pred[index].abs().sum() > 0


def test_one_step_moves_the_shared_encoder_once(family_tiny_dir):
    lr = 1e-3
    exp = experiment(family_tiny_dir, "fr", f"model.lr={lr}", "backbone.layer_norm=true")
    pl.seed_everything(0)
    model = exp.model()
    initial = copy.deepcopy(model)
    recorder = Recorder()
    trainer(1, callbacks=[recorder]).fit(model, datamodule=exp.datamodule(0))
    assert len(recorder.batches) == 1

    # Independent expectation: the gradient of the whole loss (both uses of the encoder summed)
    # from the same batch and the same random state, and one Adam step from zero state.
    torch.set_rng_state(recorder.rng[0])
    initial.train()
    total, _ = initial.loss(initial(recorder.batches[0]))
    params = dict(initial.named_parameters())
    grads = dict(zip(params, torch.autograd.grad(total, list(params.values()), allow_unused=True)))
    after = dict(model.named_parameters())
    moved = 0
    for name, before in params.items():
        grad = grads[name]
        expected = before.detach() if grad is None else adam_first_step(before.detach(), grad, lr)
        assert torch.allclose(after[name].detach(), expected, atol=1e-7, rtol=1e-5), name
        if name.startswith("encoder.") and grad is not None:
            big = grad.abs() > 1e-4
            # Stepped once: |delta| = lr where the gradient is not tiny (twice would be 2 lr).
            delta = (after[name].detach() - before.detach()).abs()[big]
            assert torch.allclose(delta, torch.full_like(delta, lr), rtol=1e-3), name
            moved += int(big.sum())
    assert moved > 100
    assert "encoder.norm.weight" in params  # the LayerNorm is part of the shared encoder
