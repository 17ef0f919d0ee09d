"""CAR's parts by hand: the generators' target-probability term, whose turn a batch is and what each step
trains, and the class-wise rationale and scores at evaluation."""
from __future__ import annotations

import math

import pytest
import torch
from family_helpers import same, snapshot
from reference_steps import padded_batch
from test_car_reference_numbers import car_model, train

from pyhighlights.components.classwise import TargetProbabilityTerm


def test_target_probability_is_minus_the_mean_probability_of_each_target_without_a_log():
    logits = torch.tensor([[0.0, math.log(3.0)], [math.log(2.0), 0.0], [1.0, 1.0]], dtype=torch.float64)
    targets = torch.tensor([1, 0, 0])
    # p = 3/4, 2/3, 1/2
    want = -(3 / 4 + 2 / 3 + 1 / 2) / 3
    got = TargetProbabilityTerm(logits="generator_logits")({"generator_logits": logits, "targets": targets})
    assert float(got) == pytest.approx(want, abs=1e-12)


def test_the_generators_take_turns_and_the_discriminator_steps_every_batch():
    model, _, _ = car_model()
    parts = {name: snapshot(modules) for name, modules in model.parts().items()}
    recorder = train(model, steps=3)
    # two optimiser steps a batch: the batch's generator, then the discriminator
    stepped = [sorted({name.split(".")[0] + "." + name.split(".")[1] for name, g in grads.items() if g is not None})
               for grads in recorder.grads]
    assert stepped[0] == ["generator_encoders.0", "generators.0"]
    assert stepped[2] == ["generator_encoders.1", "generators.1"]
    assert stepped[4] == stepped[0]
    assert all(s == ["predictor.net", "predictor_encoder.backward_layers", "predictor_encoder.embedding",
                     "predictor_encoder.forward_layers"] for s in stepped[1::2])
    assert int(model.batches_seen) == 3
    assert not same(parts["generator_0"], snapshot(model.parts()["generator_0"]))
    assert not same(parts["discriminator"], snapshot(model.parts()["discriminator"]))


def test_each_players_gradient_comes_from_its_own_terms_only():
    """Scaling the generator's terms leaves the discriminator's step alone, and scaling the discriminator's CE
    leaves the generator's: one backward of their sum gives each player the gradient of its own loss."""
    def after_one_step(overrides):
        model, _, _ = car_model(overrides)
        train(model, steps=1)
        return snapshot(model.parts()["generator_0"]), snapshot(model.parts()["discriminator"])

    generator, discriminator = after_one_step([])
    louder_generator = after_one_step(["model.losses.likelihood.weight=7", "model.losses.sparsity.weight=3"])
    louder_task = after_one_step(["model.losses.task.weight=5"])
    assert same(louder_generator[1], discriminator) and not same(louder_generator[0], generator)
    assert same(louder_task[0], generator) and not same(louder_task[1], discriminator)


def label_reading_generators(model):
    """Both generators keep every word when told label 1 and none when told label 0 (conditioning=states: the
    scorer reads the label one-hot joined to the word states; keep - drop = -1 for label 0, +1 for label 1)."""
    with torch.no_grad():
        for generator in model.generators:
            weight = torch.zeros_like(generator.scorer.weight)
            weight[1, -2:] = torch.tensor([-1.0, 1.0])
            generator.scorer.weight.copy_(weight)
            generator.scorer.bias.zero_()


@pytest.mark.parametrize("rationale", ["label", "prediction"])
def test_evaluation_reports_the_rationale_of_one_class_told_its_own_label(rationale):
    model, _, _ = car_model(["model.conditioning=states", f"model.rationale={rationale}"], reference_weights=False)
    label_reading_generators(model)
    batch = padded_batch(model)  # labels 1, 0, 1, 0
    model.eval()
    with torch.no_grad():
        out = model(batch)
    # the score of class t: the discriminator's log p(t) on generator t's factual rationale (generator 0, told
    # label 0, keeps nothing; generator 1, told 1, keeps every word), told that generator t chose it
    nothing, everything = torch.zeros_like(batch.word_mask, dtype=torch.float64), batch.word_mask.double()
    for t, keep in enumerate((nothing, everything)):
        want = torch.log_softmax(model.discriminate(batch, keep, t), dim=-1)[:, t]
        assert torch.allclose(out["logits"][:, t], want, atol=1e-12)
    chosen = batch.labels if rationale == "label" else out["logits"].argmax(dim=-1)
    assert torch.equal(out["mask"], batch.word_mask.double() * chosen.view(-1, 1).double())
    assert torch.equal(out["targets"], chosen)


def test_a_generator_reads_the_label_it_is_told():
    model, _, _ = car_model(["model.conditioning=states"], reference_weights=False)
    label_reading_generators(model)
    batch = padded_batch(model)
    for t in range(2):
        for told in range(2):
            mask = model.generate(batch, t, torch.full_like(batch.labels, told)).mask
            assert torch.equal(mask.detach(), batch.word_mask.double() * told)


@pytest.mark.parametrize("aspect, script", [("appearance", (0.08, 5.0, 10.0)), ("aroma", (0.07, 2.0, 10.0)),
                                            ("palate", (0.065, 2.0, 10.0))])
def test_the_beer_settings_are_the_reference_scripts(aspect, script):
    """scripts/run_beer_{0,1,2}.sh: sparsity_percentage, sparsity_lambda, continuity_lambda; batch 200, 30 epochs,
    balanced training data, on the registered (reference) layout."""
    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import resolve_specs

    specs = resolve_specs(compose_config([f"experiment=car_beer_{aspect}"]))
    losses = specs.model["losses"]
    assert (losses["sparsity"]["target"], losses["sparsity"]["weight"], losses["continuity"]["weight"]) == script
    assert (specs.trainer["batch_size"], specs.trainer["max_epochs"]) == (200, 30)
    assert (specs.model["recurrence"], specs.model["pad_to"], specs.model["bucket"]) == ("padded", 256, False)
    assert specs.dataset["balance"] and specs.dataset["max_length"] == 256
