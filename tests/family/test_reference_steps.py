"""One replayed training step per model of the Liu et al. family, against the reference arithmetic written
out by hand (tests/family/reference_arithmetic.py): which parameters move, by how much, with which loss.

Every test trains one batch through Lightning, then recomputes that step from the same batch and random
state with plain tensor operations on the initial parameters (the encoders are called as modules; every
departure point sits above them) and compares every parameter with Adam's update. Dropout is set to 0 so
the Gumbel draws are the only randomness.
"""
from __future__ import annotations

import copy

import lightning.pytorch as pl
import pytest
import torch
import torch.nn.functional as F
from family_helpers import Recorder, experiment, trainer
from reference_arithmetic import (adam, continuity, counted, gumbel_keep, kl_batchmean, layer_norm, linear,
                                  pool_valid, sparsity)
from torch.func import functional_call

LR = 1e-3
QUIET = ("backbone.dropout=0", "model.selector.dropout=0", "model.predictor.dropout=0", f"model.lr={LR}")


def one_step(data_dir, name, *extra):
    exp = experiment(data_dir, name, *QUIET, *extra)
    pl.seed_everything(0)
    model = exp.model()
    initial = copy.deepcopy(model)
    recorder = Recorder()
    trainer(1, callbacks=[recorder]).fit(model, datamodule=exp.datamodule(0))
    assert len(recorder.batches) == 1
    torch.set_rng_state(recorder.rng[0])
    initial.train()
    return model, initial, recorder.batches[0]


def encode(encoder, batch, keep=None, params=None):
    """The recurrent encoder's states, optionally with the words where ``keep`` is 0 removed."""
    keep = None if keep is None else keep * batch.attention_mask
    if params is None:
        return encoder(batch.input_ids, batch.attention_mask, keep=keep)
    return functional_call(encoder, params, (batch.input_ids, batch.attention_mask), {"keep": keep})


def check_adam(model, initial, expected_lr_and_grads):
    """Every parameter of ``model`` equals Adam's update of ``initial``'s with its (lr, [gradients])."""
    after = dict(model.named_parameters())
    checked = 0
    for name, before in initial.named_parameters():
        lr, grads = expected_lr_and_grads(name)
        grads = [g for g in grads if g is not None]
        expected = adam(before.detach(), grads, lr) if grads else before.detach()
        assert torch.allclose(after[name].detach(), expected, atol=1e-6, rtol=1e-5), name
        checked += 1
    return checked


def grads_of(loss, named):
    return dict(zip(named, torch.autograd.grad(loss, list(named.values()), allow_unused=True, retain_graph=True)))


# --- FR ------------------------------------------------------------------------------------------------------
def test_fr_step(family_tiny_dir):
    """FR: one encoder and one LayerNorm on both paths, 0.9 CE, s 0.1, λs 12, λc 10, pool over real words."""
    model, m0, batch = one_step(family_tiny_dir, "fr")
    wm = batch.word_mask.float()
    assert m0.selector_norm is m0.predictor_norm and isinstance(m0.selector_norm, torch.nn.LayerNorm)
    z = gumbel_keep(linear(layer_norm(encode(m0.encoder, batch), m0.selector_norm), m0.selector.scorer))
    states = encode(m0.encoder, batch, keep=z * wm)
    logits = linear(pool_valid(layer_norm(states, m0.predictor_norm), wm), m0.predictor.net[-1])
    c = counted(m0)
    loss = 0.9 * F.cross_entropy(logits, batch.labels) + 12 * sparsity(z, wm, 0.1, c) + 10 * continuity(z, wm, c)
    grads = grads_of(loss, dict(m0.named_parameters()))
    assert check_adam(model, m0, lambda name: (LR, [grads[name]])) == len(grads)
    # The shared encoder moved once per step: |delta| = lr wherever its gradient is not tiny.
    weight = "encoder.forward_layers.0.weight_ih_l0"
    big = grads[weight].abs() > 1e-4
    delta = (dict(model.named_parameters())[weight] - dict(m0.named_parameters())[weight]).abs()[big]
    assert big.sum() > 50 and torch.allclose(delta, torch.full_like(delta, LR), rtol=1e-3)


# --- DR ------------------------------------------------------------------------------------------------------
def dr_expected(model, m0, batch):
    wm = batch.word_mask.float()
    z = gumbel_keep(linear(layer_norm(encode(m0.selector_encoder, batch), m0.selector_norm), m0.selector.scorer))
    logits = linear(pool_valid(encode(m0.predictor_encoder, batch, keep=z * wm), wm), m0.predictor.net[-1])
    c = counted(m0)
    loss = 0.9 * F.cross_entropy(logits, batch.labels) + 12 * sparsity(z, wm, 0.1, c) + 10 * continuity(z, wm, c)
    rate = float((z.sum() if c else (z * wm).sum()).detach() / wm.sum())  # train_sp_norm: sum(z) / sum(masks)
    factor = 1.0 if rate == 0 else max(rate, 0.05)
    grads = grads_of(loss, dict(m0.named_parameters()))
    rates = lambda name: LR * factor if name.startswith(("predictor_encoder.", "predictor.")) else LR  # noqa: E731
    assert check_adam(model, m0, lambda name: (rates(name), [grads[name]])) == len(grads)
    assert isinstance(m0.selector_norm, torch.nn.LayerNorm) and isinstance(m0.predictor_norm, torch.nn.Identity)
    return rate, factor


def test_dr_step(family_tiny_dir):
    """DR: the predictor's Adam runs at lr x the batch's selection rate; LayerNorm on the selector path only."""
    # Padded to the batch's longest so that the padding-counted rate is a fraction (at the reference's 256 it
    # is ~3; tests/family/test_dr_reference_numbers.py).
    model, m0, batch = one_step(family_tiny_dir, "dr", "model.losses.sparsity.target=0.3", "model.pad_to=null")
    rate, factor = dr_expected(model, m0, batch)
    assert 0.05 < rate < 1 and factor == rate


@pytest.mark.parametrize("keep_bias, expected", [(-40.0, "empty"), (-3.5, "floor")])
def test_dr_factor_when_little_or_nothing_is_selected(family_tiny_dir, monkeypatch, keep_bias, expected):
    """Nothing selected: factor 1 (the reference's ``lr_lambda = 1``); a rate under 0.05: the floor 0.05."""
    original = one_step.__globals__["experiment"]

    def biased(*args, **kwargs):
        exp = original(*args, **kwargs)
        build = exp.model

        def model():
            m = build()
            with torch.no_grad():
                m.selector.scorer.weight.zero_()
                m.selector.scorer.bias.copy_(torch.tensor([0.0, keep_bias]))
            return m

        exp.model = model
        return exp

    monkeypatch.setitem(one_step.__globals__, "experiment", biased)
    model, m0, batch = one_step(family_tiny_dir, "dr", "model.pad_to=null")  # a rate under the floor: short padding
    rate, factor = dr_expected(model, m0, batch)
    if expected == "empty":
        assert rate == 0 and factor == 1.0
    else:
        assert 0 < rate < 0.05 and factor == 0.05


# --- MGR -----------------------------------------------------------------------------------------------------
def test_mgr_step(family_tiny_dir):
    """MGR: one shared generator encoder (lr/k), heads with their own LayerNorm at 3·lr·(i+1), predictor lr/k."""
    k = 3
    model, m0, batch = one_step(family_tiny_dir, "mgr", f"model.num_generators={k}")
    wm = batch.word_mask.float()
    assert len(m0.generator_encoders) == 1
    states = encode(m0.generator_encoders[0], batch)
    zs = [gumbel_keep(linear(layer_norm(states, m0.generator_norms[i]), m0.generators[i].scorer)) for i in range(k)]
    c = counted(m0)
    loss = 0.0
    for z in zs:
        logits = linear(pool_valid(encode(m0.predictor_encoder, batch, keep=z * wm), wm), m0.predictor.net[-1])
        loss = loss + 0.9 * F.cross_entropy(logits, batch.labels) + 12 * sparsity(z, wm, 0.1, c) \
            + 10 * continuity(z, wm, c)
    grads = grads_of(loss, dict(m0.named_parameters()))

    def lr_of(name):
        for i in range(k):
            if name.startswith((f"generator_norms.{i}.", f"generators.{i}.")):
                return LR * 3 * (i + 1)
        assert name.startswith(("generator_encoders.0.", "predictor_encoder.", "predictor."))
        return LR / k

    assert check_adam(model, m0, lambda name: (lr_of(name), [grads[name]])) == len(grads)
    for i in range(k):  # the largest move of head i is its own rate
        delta = (dict(model.named_parameters())[f"generators.{i}.scorer.weight"] - m0.generators[i].scorer.weight)
        assert float(delta.abs().max()) == pytest.approx(LR * 3 * (i + 1), rel=1e-3)


def mgr_average(model, batch):
    """The generators' softmax averaged by hand (``Multi_gen.test``): p(keep) per word."""
    states = encode(model.generator_encoders[0], batch)
    probabilities = [torch.softmax(linear(layer_norm(states, model.generator_norms[i]), model.generators[i].scorer),
                                   dim=-1)[..., 1] for i in range(model.num_generators)]
    return torch.stack(probabilities).mean(0)


def test_mgr_inference_samples_from_the_average(family_tiny_dir):
    from family_helpers import first_batch

    exp = experiment(family_tiny_dir, "mgr", *QUIET, "model.num_generators=3")
    pl.seed_everything(0)
    model = exp.model().eval()
    with torch.no_grad():  # spread the generators apart so the average differs from each of them
        for i, generator in enumerate(model.generators):
            generator.scorer.bias.copy_(torch.tensor([0.0, 1.2 * (i - 1)]))
    batch = first_batch(exp)
    wm = batch.word_mask.float()
    with torch.no_grad():
        average = mgr_average(model, batch)
        draws = torch.stack([model.select(batch).mask for _ in range(400)])
        torch.manual_seed(7)
        outputs = model(batch)
        torch.manual_seed(7)
        again = model(batch)
        expected_logits = linear(pool_valid(encode(model.predictor_encoder, batch, keep=outputs["mask"]), wm),
                                 model.predictor.net[-1])
    assert torch.allclose(model.select(batch).keep_probability, average.clamp(1e-6, 1 - 1e-6), atol=1e-6)
    # Each word is kept with the averaged probability: 400 draws, frequency within 0.1 of p, 0.02 on average.
    frequency = draws.mean(0)
    real = wm.bool()
    assert ((frequency - average).abs()[real] < 0.1).all()
    assert float((frequency - average).abs()[real].mean()) < 0.02
    assert (draws[:, ~real] == 0).all()
    assert torch.equal(outputs["mask"], again["mask"])  # seeded evaluation repeats exactly
    assert torch.allclose(outputs["logits"], expected_logits, atol=1e-6)
    # The departure: threshold the average instead of sampling it.
    for generator in model.generators:
        generator.evaluation = "threshold"
    with torch.no_grad():
        assert torch.equal(model.select(batch).mask, (average >= 0.5).float() * wm)


# --- MCD and MRD: two phases -----------------------------------------------------------------------------------
SELECTOR = ("selector_encoder.", "selector_norm.", "selector.")


def two_phase_expected(model, m0, batch, name):
    """Both phases by hand. MCD: KL(full || rationale); MRD: -KL(full || remainder), remainder = 1 - z."""
    wm = batch.word_mask.float()
    s, lam = (0.1, 6.0) if name == "mcd" else (0.075, 6.0)
    c = counted(m0)
    named = dict(m0.named_parameters())
    selector = {n: p for n, p in named.items() if n.startswith(SELECTOR)}
    predictor = {n: p for n, p in named.items() if not n.startswith(SELECTOR)}

    def sub(params, prefix):
        return {n[len(prefix):]: p for n, p in params.items() if n.startswith(prefix)}

    def select(params):
        states = encode(m0.selector_encoder, batch, params=sub(params, "selector_encoder."))
        normed = functional_call(m0.selector_norm, sub(params, "selector_norm."), (states,))
        return gumbel_keep(functional_call(m0.selector.scorer, sub(params, "selector.scorer."), (normed,)))

    def predict(params, keep):
        states = encode(m0.predictor_encoder, batch, keep=keep, params=sub(params, "predictor_encoder."))
        return functional_call(m0.predictor.net[-1], sub(params, "predictor.net.1."), (pool_valid(states, wm),))

    def view(z):
        return z * wm if name == "mcd" else (1 - z) * wm

    # Phase 1: the predictor on the detached sample and on the full text; sparsity and continuity on the sample.
    z1 = select(selector)
    task = 0.9 * F.cross_entropy(predict(predictor, view(z1.detach())), batch.labels)
    full = 0.9 * F.cross_entropy(predict(predictor, None), batch.labels)
    shape = lam * sparsity(z1, wm, s, c) + lam * continuity(z1, wm, c)
    g1 = grads_of(task + full + shape, named)
    # The selector's phase-1 gradient is that of sparsity and continuity alone.
    shape_only = grads_of(shape, selector)
    for n in selector:
        assert g1[n] is None and shape_only[n] is None or torch.allclose(g1[n], shape_only[n], atol=1e-7), n
    stepped = {n: adam(p.detach(), [g1[n]], LR) if g1[n] is not None else p.detach() for n, p in named.items()}
    # Phase 2: a fresh sample from the updated selector; the updated predictor, frozen.
    selector1 = {n: stepped[n].clone().requires_grad_(True) for n in selector}
    predictor1 = {n: stepped[n] for n in predictor}
    z2 = select(selector1)
    full_logits = predict(predictor1, None).detach()
    divergence = kl_batchmean(full_logits, predict(predictor1, view(z2)))
    divergence = divergence if name == "mcd" else -divergence
    loss2 = lam * sparsity(z2, wm, s, c) + lam * continuity(z2, wm, c) + divergence
    g2 = grads_of(loss2, selector1)
    assert not torch.equal(z1, z2)  # a fresh draw

    def expected(n):
        return (LR, [g1[n], g2[n]]) if n in selector else (LR, [g1[n]])

    assert check_adam(model, m0, expected) == len(named)


@pytest.mark.parametrize("name", ["mcd", "mrd"])
def test_two_phase_step(family_tiny_dir, name):
    model, m0, batch = one_step(family_tiny_dir, name)
    assert isinstance(m0.selector_norm, torch.nn.LayerNorm) and isinstance(m0.predictor_norm, torch.nn.Identity)
    two_phase_expected(model, m0, batch, name)


@pytest.mark.parametrize("name", ["mcd", "mrd"])
def test_two_phase_departure_keeps_the_selector_still_in_phase_one(family_tiny_dir, name):
    """``phase1_selector_step=false``, no selection terms in phase 1, one sample: only phase 2 moves the selector."""
    terms = "[task,full_task]" if name == "mcd" else "[remainder_task,full_task]"
    model, m0, batch = one_step(family_tiny_dir, name, "model.phase1_selector_step=false",
                                f"model.predictor_terms={terms}", "model.fresh_sample=false")
    moved = {n: not torch.equal(p, dict(model.named_parameters())[n]) for n, p in m0.named_parameters()}
    # One Adam step of the selector (phase 2 only): its scorer moved by exactly lr where the gradient is large.
    delta = (model.selector.scorer.weight - m0.selector.scorer.weight).abs()
    assert moved["selector.scorer.weight"] and float(delta.max()) == pytest.approx(LR, rel=1e-3)
    assert moved["predictor.net.1.weight"]


# --- DAR -----------------------------------------------------------------------------------------------------
class StateAtSecondEpoch(pl.Callback):
    """Parameters, random state and batch when the first rationaliser step (epoch 1) starts."""

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.current_epoch == 1:
            self.state = {k: v.detach().clone() for k, v in pl_module.state_dict().items()}
            self.rng, self.batch = torch.get_rng_state(), batch
            self.teacher_training = [m.training for m in pl_module.auxiliary_modules()]


def test_dar_step_after_pretraining(family_tiny_dir):
    """0.9 CE + λs·sparsity + λc·continuity + 0.9 CE(teacher(Z)); the teacher (with its LayerNorm) in train
    mode, frozen; LayerNorms on both rationaliser paths."""
    exp = experiment(family_tiny_dir, "dar", *QUIET, "model.auxiliary_predictor.dropout=0", "model.auxiliary_epochs=1")
    pl.seed_everything(0)
    model = exp.model()
    seen = StateAtSecondEpoch()
    trainer(2, callbacks=[seen]).fit(model, datamodule=exp.datamodule(0))
    assert all(seen.teacher_training)  # teacher_beer.py: torch.load(...).train()
    m0 = exp.model()
    m0.load_state_dict(seen.state)
    m0.train()
    batch = seen.batch
    torch.set_rng_state(seen.rng)
    wm = batch.word_mask.float()
    z = gumbel_keep(linear(layer_norm(encode(m0.selector_encoder, batch), m0.selector_norm), m0.selector.scorer))
    keep = z * wm

    def classify(encoder, norm, head):
        return linear(pool_valid(layer_norm(encode(encoder, batch, keep=keep), norm), wm), head)

    logits = classify(m0.predictor_encoder, m0.predictor_norm, m0.predictor.net[-1])
    teacher = classify(m0.auxiliary_encoder, m0.auxiliary_norm, m0.auxiliary_predictor.net[-1])
    c = counted(m0)
    loss = 0.9 * F.cross_entropy(logits, batch.labels) + 12 * sparsity(z, wm, 0.1, c) \
        + 10 * continuity(z, wm, c) + 0.9 * F.cross_entropy(teacher, batch.labels)
    rationaliser = {n: p for n, p in m0.named_parameters() if not n.startswith("auxiliary")}
    grads = grads_of(loss, rationaliser)
    after = dict(model.named_parameters())
    for name, before in m0.named_parameters():
        if name.startswith("auxiliary"):
            assert torch.equal(after[name], before), name  # frozen: never stepped
        else:
            g = grads[name]
            expected = before.detach() if g is None else adam(before.detach(), [g], LR)
            assert torch.allclose(after[name].detach(), expected, atol=1e-6, rtol=1e-5), name
    # The teacher's gradient reaches the selector: without its term the selector's gradient differs.
    without = grads_of(loss - 0.9 * F.cross_entropy(teacher, batch.labels), rationaliser)
    assert not torch.allclose(grads["selector.scorer.weight"], without["selector.scorer.weight"])


def test_dar_teacher_selected_by_dev_f1(family_tiny_dir):
    """teacher_beer.py keeps the pre-training epoch with the best dev F1 (class 1), not the best accuracy."""
    from pyhighlights.models.mechanics import confusion_counts, selection_score

    labels = torch.tensor([1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    cautious = torch.tensor([0, 0, 0, 0, 0, 0, 0, 0, 0, 0])  # accuracy 0.7, F1 0
    eager = torch.tensor([1, 1, 1, 1, 1, 1, 1, 0, 0, 0])  # 3 right + 3 right of 7 = 0.6, F1 2*3/(2*3+4) = 0.6
    for predicted, accuracy, f1 in ((cautious, 0.7, 0.0), (eager, 0.6, 0.6)):
        counts = confusion_counts(predicted, labels, 2)
        assert selection_score(counts, "accuracy") == pytest.approx(accuracy)
        assert selection_score(counts, "f1") == pytest.approx(f1)

    exp = experiment(family_tiny_dir, "dar", "model.auxiliary_epochs=2", "model.lr=0.01")
    pl.seed_everything(0)
    model = exp.model()
    answers = iter([cautious, eager])
    states = []

    def scored_logits(batch, keep_words=None):
        predicted = next(answers)
        states.append({k: v.clone() for k, v in model.auxiliary_state().items()})
        model._auxiliary_counts = confusion_counts(predicted, labels, 2)
        return None

    original = model.auxiliary_validation_update
    model.auxiliary_validation_update = lambda batch: scored_logits(batch)
    trainer(3, limit_train_batches=1, limit_val_batches=1).fit(model, datamodule=exp.datamodule(0))
    assert original is not None and len(states) == 2
    kept = model.auxiliary_state()
    assert all(torch.equal(kept[k], states[1][k]) for k in kept)  # epoch 1: F1 0.6 beats F1 0 (accuracy 0.6 < 0.7)
    assert not all(torch.equal(kept[k], states[0][k]) for k in kept)


@pytest.mark.parametrize("name", ["fr", "dr", "mgr", "mcd", "dar", "mrd"])
def test_encoders_have_no_dropout_of_their_own(family_tiny_dir, name):
    """The scripts' only dropout sits before the linear heads (0.2); ``encoder_dropout=null`` keeps the backbone's."""
    from pyhighlights.components.backbones.base import Backbone

    def dropouts(*extra):
        model = experiment(family_tiny_dir, name, "backbone.dropout=0.3", *extra).model()
        encoders = [m for m in model.modules() if isinstance(m, Backbone)]
        return {m.dropout.p for m in encoders}, model

    rates, model = dropouts()
    assert rates == {0.0}
    heads = [m for m in model.modules() if isinstance(m, torch.nn.Dropout) and m.p > 0]
    assert heads and {m.p for m in heads} == {0.2}
    assert dropouts("model.encoder_dropout=null")[0] == {0.3}
