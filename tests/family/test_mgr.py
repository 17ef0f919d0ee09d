"""MGR: generator i learns at lr·(1+i), the predictor at lr/k, and inference averages the generators."""
from __future__ import annotations

import copy

import lightning.pytorch as pl
import pytest
import torch
from family_helpers import Recorder, adam_first_step, experiment, first_batch, trainer

LR = 1e-3


def test_per_generator_learning_rates(family_tiny_dir):
    exp = experiment(family_tiny_dir, "mgr", f"model.lr={LR}", "model.num_generators=3")
    pl.seed_everything(0)
    model = exp.model()
    initial = copy.deepcopy(model)
    recorder = Recorder()
    trainer(1, callbacks=[recorder]).fit(model, datamodule=exp.datamodule(0))

    lrs = {g["name"]: g["lr"] for g in model.trainer.optimizers[0].param_groups}
    assert lrs == pytest.approx({"generator0/head": LR, "generator0/encoder": LR,
                                 "generator1/head": 2 * LR, "generator1/encoder": 2 * LR,
                                 "generator2/head": 3 * LR, "generator2/encoder": 3 * LR,
                                 "predictor/head": LR / 3, "predictor/encoder": LR / 3})

    # Replay the step: the loss is the sum of the three generators' RNP losses, drawn in order.
    torch.set_rng_state(recorder.rng[0])
    initial.train()
    batch = recorder.batches[0]
    total = 0.0
    for i in range(3):
        selection = initial.generator_select(i, batch)
        outputs = initial.outputs(batch, selection, initial.predict(batch, selection.mask))
        total = total + initial.loss(outputs)[0]
    params = dict(initial.named_parameters())
    grads = torch.autograd.grad(total, list(params.values()), allow_unused=True)
    after = dict(model.named_parameters())
    rates = {f"generator_encoders.{i}.": LR * (1 + i) for i in range(3)}
    rates.update({f"generators.{i}.": LR * (1 + i) for i in range(3)})
    rates.update({"predictor_encoder.": LR / 3, "predictor.": LR / 3})
    for (name, before), grad in zip(params.items(), grads):
        lr = next(rate for prefix, rate in rates.items() if name.startswith(prefix))
        expected = before.detach() if grad is None else adam_first_step(before.detach(), grad, lr)
        assert torch.allclose(after[name].detach(), expected, atol=1e-8, rtol=1e-5), name
    # The largest move of each generator's scorer is its own learning rate.
    for i in range(3):
        delta = (after[f"generators.{i}.scorer.weight"] - params[f"generators.{i}.scorer.weight"]).abs().max()
        assert float(delta) == pytest.approx(LR * (1 + i), rel=1e-3)


def test_inference_averages_the_generators(family_tiny_dir):
    exp = experiment(family_tiny_dir, "mgr", "model.num_generators=3")
    pl.seed_everything(0)
    model = exp.model().eval()
    with torch.no_grad():  # spread the generators apart so the average differs from each of them
        for i, generator in enumerate(model.generators):
            generator.scorer.bias.copy_(torch.tensor([0.0, 0.6 * (i - 1)]))
    batch = first_batch(exp)
    with torch.no_grad():
        probabilities = []
        for i in range(3):  # each generator by hand: its encoder, word states, its scorer
            states = model.generator_encoders[i](batch.input_ids, batch.attention_mask)
            logits = model.generators[i].scorer(states)
            probabilities.append(torch.softmax(logits, dim=-1)[..., 1])
        average = torch.stack(probabilities).mean(0)
        expected_mask = (average >= 0.5).float() * batch.word_mask
        selection = model.select(batch)
        outputs = model(batch)
        expected_logits = model.predict(batch, expected_mask)
    assert torch.allclose(selection.keep_probability, average.clamp(1e-6, 1 - 1e-6), atol=1e-6)
    assert torch.equal(selection.mask, expected_mask)
    assert torch.equal(outputs["mask"], expected_mask)
    assert torch.allclose(outputs["logits"], expected_logits)
    individual = [(p >= 0.5).float() * batch.word_mask for p in probabilities]
    assert all(not torch.equal(expected_mask, m) for m in individual)
