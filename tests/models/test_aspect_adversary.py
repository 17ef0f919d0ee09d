"""The aspect adversary (G-RAT's, FR's and RNP's option): the bits it predicts, the term's value, the reversed gradient
into the rationale, and its training with the selector on a corpus whose reviews carry their aspect environments."""
from __future__ import annotations

import math
from dataclasses import replace

import lightning.pytorch as pl
import pytest
import torch

from pyhighlights import registry
from pyhighlights.components.aspect_adversary import (AspectAdversaryTerm, disagreement_bits,
                                                      reverse_gradient)
from pyhighlights.config.compose import compose_config
from pyhighlights.testing import tiny_overrides
from pyhighlights.training.run import Experiment, resolve_specs


MODELS = {"grat": ("model=grat", "model.pretrain_epochs=0"), "fr": ("model=fr",), "rnp": ("model=rnp",)}


def experiment(tiny_beer_dir, *extra, model="grat"):
    cfg = compose_config(tiny_overrides(tiny_beer_dir, *MODELS[model], *extra))
    return Experiment(resolve_specs(cfg))


ADVERSARY = ("dataset.aspect_environments=true", "model.losses.aspect_adversary.weight=3")


def first_batch(exp):
    datamodule = exp.datamodule(0)
    datamodule.setup("fit")
    return next(iter(datamodule.train_dataloader()))


def test_bits_read_the_mask_lowest_first_and_a_mask_too_wide_is_refused():
    bits = disagreement_bits(torch.tensor([0, 0b1010, 0b0001, 15]), 4)
    assert bits.tolist() == [[0, 0, 0, 0], [0, 1, 0, 1], [1, 0, 0, 0], [1, 1, 1, 1]]
    with pytest.raises(ValueError, match="aspect environment 16 is not a bit mask over 4 other aspects"):
        disagreement_bits(torch.tensor([3, 16]), 4)


def test_the_term_is_the_mean_binary_cross_entropy_and_zero_without_an_adversary():
    logits = torch.tensor([[2.0, -1.0], [0.5, 0.0]])
    bits = torch.tensor([[1.0, 1.0], [0.0, 1.0]])
    term = AspectAdversaryTerm(weight=3.0, aspects=2)

    def bce(x, b):
        p = 1 / (1 + math.exp(-x))
        return -(b * math.log(p) + (1 - b) * math.log(1 - p))

    by_hand = sum(bce(x, b) for x, b in zip(logits.flatten().tolist(), bits.flatten().tolist())) / 4
    value, weighted = term.weighted({"adversary_logits": logits, "disagreement": bits})
    assert value.item() == pytest.approx(by_hand, rel=1e-6) and weighted.item() == pytest.approx(3 * by_hand, rel=1e-6)
    assert term({"logits": logits}).item() == 0.0


def test_the_reversal_negates_the_gradient_only():
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = reverse_gradient(x)
    assert torch.equal(y, x)
    (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [-1.0, -2.0, -3.0]


def test_drop_only_passes_the_reversed_gradients_that_lower_the_mask():
    x = torch.tensor([1.0, 0.0, 1.0, 0.5], requires_grad=True)
    y = reverse_gradient(x, "drop_only")
    assert torch.equal(y, x)
    # d(sum(y * c))/dx = c; reversed, -c; a descent step moves x by +c, so only the entries with c < 0 (which
    # lower x) pass, negated
    (y * torch.tensor([2.0, -1.0, -3.0, 0.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 3.0, 0.0]


def test_centered_subtracts_the_mean_of_the_reversed_gradient_over_each_documents_real_words():
    x = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.5, 1.0, 0.0, 0.0]], requires_grad=True)
    real = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
    c = torch.tensor([[2.0, -1.0, 5.0, 7.0], [1.0, 3.0, 4.0, 4.0]])
    (reverse_gradient(x, "centered", real) * c).sum().backward()
    # reversed: -c; row 0's real mean -2, row 1's -2; padding gets nothing
    assert x.grad.tolist() == [[0.0, 3.0, -3.0, 0.0], [1.0, -1.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match="needs the word mask"):
        reverse_gradient(x, "centered")


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_the_registered_defaults_have_no_adversary(tiny_beer_dir, model_name):
    model = experiment(tiny_beer_dir, model=model_name).model()
    assert model.aspect_adversary is None
    assert all("adversary" not in name for name, _ in model.named_parameters())


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_the_adversary_descends_its_loss_and_the_rationale_ascends_it(tiny_beer_dir, model_name):
    exp = experiment(tiny_beer_dir, *ADVERSARY, model=model_name)
    model = exp.model().double()
    model.train()
    batch = first_batch(exp)
    assert batch.environments is not None
    mask = torch.rand(batch.word_mask.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    mask = (mask * batch.word_mask).requires_grad_(True)
    term = model.losses.terms["aspect_adversary"]

    torch.manual_seed(1)  # the same dropout draws in both reads (RNP's encoders drop out while training)
    outputs = model.adversary_outputs(batch, mask)
    term.weighted(outputs)[1].backward()
    reversed_mask_grad = mask.grad.clone()
    adversary_grads = [p.grad.clone() for p in model.aspect_adversary.parameters()]
    # the same objective with the mask read straight (no reversal): what a plain minimiser of it would see
    model.zero_grad()
    mask.grad = None
    torch.manual_seed(1)
    states, _ = model.encode_words(model.aspect_adversary.encoder, batch, mask)
    logits = model.aspect_adversary(model.pool(states, batch.attention_mask), batch.labels)
    # the bits decoded here, one by one, from each review's environment
    bits = torch.tensor([[(int(e) >> j) & 1 for j in range(4)] for e in batch.environments], dtype=torch.float64)
    assert torch.equal(outputs["disagreement"], bits)
    term.weighted({"adversary_logits": logits, "disagreement": bits})[1].backward()
    assert mask.grad.abs().sum() > 0
    assert torch.allclose(reversed_mask_grad, -mask.grad)
    for reversed_grad, p in zip(adversary_grads, model.aspect_adversary.parameters()):
        assert torch.allclose(reversed_grad, p.grad)


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_the_reversals_through_the_model(tiny_beer_dir, model_name):
    grads = {}
    for reversal in ("both", "drop_only", "centered"):
        exp = experiment(tiny_beer_dir, *ADVERSARY, f"model.losses.aspect_adversary.reversal={reversal}",
                         model=model_name)
        pl.seed_everything(0)
        model = exp.model().double()
        model.train()
        batch = first_batch(exp)
        mask = torch.rand(batch.word_mask.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
        mask = (mask * batch.word_mask).requires_grad_(True)
        model.losses.terms["aspect_adversary"].weighted(model.adversary_outputs(batch, mask))[1].backward()
        grads[reversal] = mask.grad
    both, drop_only, centered = grads["both"], grads["drop_only"], grads["centered"]
    assert (both > 0).any() and (both < 0).any()
    assert torch.equal(drop_only, both.clamp(min=0))
    real = batch.word_mask.to(both.dtype)
    mean = (both * real).sum(1, keepdim=True) / real.sum(1, keepdim=True)
    assert torch.allclose(centered, (both - mean) * real)


def test_an_unknown_reversal_is_refused(tiny_beer_dir):
    with pytest.raises(Exception, match="aspect_adversary.reversal: Input should be 'both', 'centered' or 'drop_only'"):
        experiment(tiny_beer_dir, *ADVERSARY, "model.losses.aspect_adversary.reversal=sideways").model()


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_training_produces_every_declared_output(tiny_beer_dir, model_name):
    exp = experiment(tiny_beer_dir, *ADVERSARY, model=model_name)
    model = exp.model()
    model.train()
    produced = {key for key, value in model(first_batch(exp)).items() if value is not None}
    declared = registry.entry("model", model_name).configuration
    # (training may add the selector's decision logits, which no term of these models reads)
    assert set(declared.outputs["losses"]) <= produced


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_evaluation_reads_no_adversary(tiny_beer_dir, model_name):
    exp = experiment(tiny_beer_dir, *ADVERSARY, model=model_name)
    model = exp.model()
    model.eval()
    outputs = model(first_batch(exp))
    assert "adversary_logits" not in outputs
    assert model.losses(outputs)[1]["aspect_adversary"].item() == 0.0


@pytest.mark.parametrize("model_name", sorted(MODELS))
def test_training_without_environments_is_refused_naming_the_setting(tiny_beer_dir, model_name):
    exp = experiment(tiny_beer_dir, "model.losses.aspect_adversary.weight=3", model=model_name)
    model = exp.model()
    model.train()
    batch = first_batch(exp)
    assert batch.environments is None
    with pytest.raises(ValueError, match="dataset.aspect_environments=true"):
        model(batch)
    with pytest.raises(ValueError, match="not a bit mask over 4"):
        model(replace(batch, environments=torch.full_like(batch.labels, 16)))


def test_grats_adversary_trains_with_the_rationaliser(tiny_beer_dir):
    exp = experiment(tiny_beer_dir, *ADVERSARY)
    pl.seed_everything(0)
    model = exp.model()
    before = [p.detach().clone() for p in model.aspect_adversary.parameters()]
    assert any(m is model.aspect_adversary for m in model.rationaliser_modules())
    pl.Trainer(max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False, enable_progress_bar=False,
               enable_model_summary=False, limit_train_batches=2, limit_val_batches=1,
               num_sanity_val_steps=0).fit(model, datamodule=exp.datamodule(0))
    after = list(model.aspect_adversary.parameters())
    assert not all(torch.equal(a, b) for a, b in zip(before, after))
    assert all(torch.isfinite(p).all() for p in after)


@pytest.mark.parametrize("model_name", ["fr", "rnp"])
def test_the_adversary_is_stepped_by_the_one_optimiser(tiny_beer_dir, model_name):
    exp = experiment(tiny_beer_dir, *ADVERSARY, model=model_name)
    pl.seed_everything(0)
    model = exp.model()
    before = [p.detach().clone() for p in model.aspect_adversary.parameters()]
    pl.Trainer(max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False, enable_progress_bar=False,
               enable_model_summary=False, limit_train_batches=2, limit_val_batches=1,
               num_sanity_val_steps=0).fit(model, datamodule=exp.datamodule(0))
    after = list(model.aspect_adversary.parameters())
    assert not all(torch.equal(a, b) for a, b in zip(before, after))


def test_the_adversary_is_built_last_so_the_other_parts_start_alike(tiny_beer_dir):
    for model_name in MODELS:
        plain, adversary = (experiment(tiny_beer_dir, *extra, model=model_name)
                            for extra in ((), ADVERSARY))
        pl.seed_everything(0)
        without = plain.model().state_dict()
        pl.seed_everything(0)
        with_it = adversary.model().state_dict()
        shared = [name for name in without if not name.startswith("aspect_adversary.")]
        assert shared and all(torch.equal(without[name], with_it[name]) for name in shared), model_name
