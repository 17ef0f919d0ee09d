"""EVAL-X: the random masks' distribution, the evaluator's phase replayed by hand, the frozen evaluator."""
from __future__ import annotations

import copy
import itertools

import lightning.pytorch as pl
import pytest
import torch
from family_helpers import SHORT_PADDING, Recorder, experiment, snapshot, same, trainer

from pyhighlights.models.selection.evalx import random_keep_mask


def test_random_masks_are_uniform_over_the_subsets_of_the_real_words():
    # 3 real words then 2 padding positions; 40000 draws: every one of the 8 subsets of the 3 words has
    # probability 1/8 (standard error 0.0017), padding is never kept.
    word_mask = torch.tensor([[1, 1, 1, 0, 0]]).expand(40000, 5)
    masks = random_keep_mask(word_mask, 0.5, torch.Generator().manual_seed(0))
    assert set(masks.unique().tolist()) <= {0.0, 1.0}
    assert masks[:, 3:].sum() == 0
    for subset in itertools.product([0.0, 1.0], repeat=3):
        share = (masks[:, :3] == torch.tensor(subset)).all(dim=1).double().mean().item()
        assert share == pytest.approx(1 / 8, abs=0.008), subset


def test_keep_probability_sets_the_rate_of_each_word():
    word_mask = torch.ones(20000, 4)
    masks = random_keep_mask(word_mask, 0.2, torch.Generator().manual_seed(1))
    assert masks.mean(dim=0).tolist() == pytest.approx([0.2] * 4, abs=0.01)
    # independent words: P(both of two words kept) = 0.04
    assert (masks[:, 0] * masks[:, 1]).mean().item() == pytest.approx(0.04, abs=0.006)


class StepGradients(pl.Callback):
    """Each optimiser step's gradients of the parameters it steps, by name (None: no gradient)."""

    def __init__(self):
        self.steps = []

    def on_before_optimizer_step(self, trainer, pl_module, optimizer):
        names = {id(p): n for n, p in pl_module.named_parameters()}
        self.steps.append({names[id(p)]: None if p.grad is None else p.grad.clone()
                           for group in optimizer.param_groups for p in group["params"]})


def test_evaluator_phase_is_cross_entropy_on_a_random_mask_and_the_selector_waits(family_tiny_dir):
    exp = experiment(family_tiny_dir, "evalx", "model.pretrain_epochs=1", "trainer.max_epochs=2", SHORT_PADDING)
    pl.seed_everything(0)
    model = exp.model()
    initial = copy.deepcopy(model)
    recorder, grads = Recorder(), StepGradients()
    trainer(1, callbacks=[recorder, grads]).fit(model, datamodule=exp.datamodule(0))
    # one epoch of the evaluator phase: one optimiser step, on the evaluator's parameters only
    assert len(grads.steps) == 1
    stepped = grads.steps[0]
    assert stepped and all(n.startswith(("predictor_encoder.", "predictor.")) for n in stepped)
    assert same(snapshot(model.selector_modules()), snapshot(initial.selector_modules()))

    # Replay: the same batch and random state; the mask drawn as the phase draws it, word by word with
    # probability 1/2, then the cross-entropy of the predictor reading only those words.
    batch = recorder.batches[0]
    torch.set_rng_state(recorder.rng[0])
    initial.train()
    keep = (torch.rand(batch.word_mask.shape) < 0.5).float() * batch.word_mask.float()
    assert 0 < keep.sum() < batch.word_mask.sum()
    loss = torch.nn.functional.cross_entropy(initial.predict(batch, keep), batch.labels)
    params = dict(initial.named_parameters())
    want = torch.autograd.grad(loss, [params[n] for n in stepped], allow_unused=True)
    for name, grad in zip(stepped, want):
        if grad is None:
            assert stepped[name] is None or not stepped[name].any(), name
        else:
            assert torch.allclose(stepped[name], grad, atol=1e-7), name


def test_after_its_phase_the_evaluator_is_frozen_and_only_the_selector_learns(family_tiny_dir):
    exp = experiment(family_tiny_dir, "evalx", "model.pretrain_epochs=1", "trainer.max_epochs=2", SHORT_PADDING)
    pl.seed_everything(0)
    model = exp.model()
    trainer(1).fit(model, datamodule=exp.datamodule(0))  # the evaluator's epoch
    evaluator, selector = snapshot(model.evaluator_modules()), snapshot(model.selector_modules())
    grads = StepGradients()
    # continue into the selector's epoch: a fresh trainer starts at epoch 0, so move the phase boundary
    model.pretrain_epochs = 0
    trainer(1, callbacks=[grads]).fit(model, datamodule=exp.datamodule(0))
    assert len(grads.steps) == 1
    step = grads.steps[0]
    assert step and all(n.startswith(("selector_encoder.", "selector.")) for n in step)
    assert any(g is not None and g.abs().sum() > 0 for g in step.values())  # the task reaches it through q
    assert same(snapshot(model.evaluator_modules()), evaluator)  # no gradient, no step, no momentum
    assert all(p.grad is None for m in model.evaluator_modules() for p in m.parameters())
    assert not same(snapshot(model.selector_modules()), selector)
    assert all(p.requires_grad for p in model.parameters())  # frozen only during the phase


def test_first_scored_epoch_is_the_selectors_first(family_tiny_dir):
    model = experiment(family_tiny_dir, "evalx", "model.pretrain_epochs=3", "trainer.max_epochs=4").model()
    assert model.first_scored_epoch == 3


def test_warm_up_filling_the_run_is_refused(family_tiny_dir):
    from pyhighlights.config.resolve import ConfigError
    from pyhighlights.training.warmup import check_warmup

    exp = experiment(family_tiny_dir, "evalx", "model.pretrain_epochs=2", "trainer.max_epochs=2")
    with pytest.raises(ConfigError, match="pretrain_epochs=2 >= trainer.max_epochs=2"):
        check_warmup(exp.specs.model, exp.specs.trainer)
