"""DR: after a step, the predictor's learning rate is the selector's times max(batch selection rate, 0.05)."""
from __future__ import annotations

import copy

import lightning.pytorch as pl
import pytest
import torch
from family_helpers import Recorder, adam_first_step, experiment, trainer


def one_step(family_tiny_dir, *extra, prepare=None):
    lr = 1e-3
    exp = experiment(family_tiny_dir, "dr", f"model.lr={lr}", *extra)
    pl.seed_everything(0)
    model = exp.model()
    if prepare is not None:
        prepare(model)
    initial = copy.deepcopy(model)
    recorder = Recorder()
    selections = []
    original = model.select

    def recording_select(batch):
        selection = original(batch)
        selections.append((selection.raw_mask.detach().clone(), batch.word_mask.clone()))
        return selection

    model.select = recording_select
    trainer(1, callbacks=[recorder]).fit(model, datamodule=exp.datamodule(0))
    assert len(selections) == 1
    mask, word_mask = selections[0]
    # computed here, from the sample the step used; padding counts, as in the reference's sum(z) / sum(masks)
    rate = float(mask.sum() / word_mask.sum())
    return lr, model, initial, recorder, rate


def group_lrs(model):
    return {g["name"]: g["lr"] for g in model.trainer.optimizers[0].param_groups}


def test_predictor_lr_is_selector_lr_times_batch_rate(family_tiny_dir):
    # Padded to the batch's longest: with padding counted, the reference's 256 makes the rate ~3 (the factor
    # is then ~3, as tests/family/test_dr_reference_numbers.py checks against the reference); here a fraction.
    lr, model, initial, recorder, rate = one_step(family_tiny_dir, "model.losses.sparsity.target=0.3",
                                                  "model.pad_to=null")
    assert 0.05 < rate < 1
    lrs = group_lrs(model)
    assert lrs["selector/head"] == lr and lrs["selector/encoder"] == lr
    assert lrs["predictor/head"] == pytest.approx(lr * rate, rel=1e-6)
    assert lrs["predictor/encoder"] == pytest.approx(lr * rate, rel=1e-6)

    # The step itself used those rates: replay it with the same batch and random state.
    torch.set_rng_state(recorder.rng[0])
    initial.train()
    total, _ = initial.loss(initial(recorder.batches[0]))
    params = dict(initial.named_parameters())
    grads = torch.autograd.grad(total, list(params.values()), allow_unused=True)
    after = dict(model.named_parameters())
    for (name, before), grad in zip(params.items(), grads):
        part_lr = lr * rate if name.startswith("predictor") else lr
        expected = before.detach() if grad is None else adam_first_step(before.detach(), grad, part_lr)
        assert torch.allclose(after[name].detach(), expected, atol=1e-8, rtol=1e-5), name


def test_encoder_lr_scales_with_the_part(family_tiny_dir):
    lr, model, *_, rate = one_step(family_tiny_dir, "model.encoder_lr=0.0005")
    lrs = group_lrs(model)
    assert lrs["selector/encoder"] == pytest.approx(5e-4)
    assert lrs["predictor/encoder"] == pytest.approx(5e-4 * max(rate, 0.05), rel=1e-6)
