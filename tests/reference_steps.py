"""Building a model from a composed configuration on the fixed inputs of tests/reference_draws.py, training it
for a few steps through Lightning and recording what the recorded reference constants describe."""
from __future__ import annotations

import lightning.pytorch as pl
import torch
from reference_draws import EMB, HIDDEN, VOCAB, examples, fixed_draws, values
from torch.utils.data import DataLoader

from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import build
from pyhighlights.data.collate import BatchCollator
from pyhighlights.testing import quiet_cpu_trainer
from pyhighlights.training.run import resolve_specs

SMALL = (f"backbone.hidden_size={HIDDEN}",)


def renamer(renames):
    """Our parameter name -> the reference's, from ``(our prefix, their prefix)`` pairs. Our bidirectional GRU
    is two one-directional ones (``forward_layers.0.w_l0`` / ``backward_layers.0.w_l0``); ``nn.GRU`` names
    the backward direction's weights with a ``_reverse`` suffix."""
    def reference_name(ours: str) -> str:
        for prefix, theirs in renames:
            if ours.startswith(prefix):
                rest = ours[len(prefix):]
                if rest.startswith("forward_layers.0."):
                    rest = rest[len("forward_layers.0."):]
                elif rest.startswith("backward_layers.0."):
                    rest = rest[len("backward_layers.0."):] + "_reverse"
                return theirs + rest
        raise KeyError(ours)
    return reference_name


def small_model(overrides, reference_name):
    """Our model as ``overrides`` compose it (dims made small), every weight set from its reference name."""
    specs = resolve_specs(compose_config([*overrides, *SMALL]))
    factory = BackboneFactory(specs.backbone, embedding_matrix=values("embedding", (VOCAB, EMB)),
                              freeze_embeddings=not specs.embeddings["trainable"])
    model = build("model", specs.model, path="model", backbone_factory=factory, num_classes=2).double()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "embedding." not in name:  # the embedding tables: the matrix above
                p.copy_(values(reference_name(name), p.shape))
    return model, specs


def padded_batch(model):
    """The four documents, padded as the model's layout says (``model.pad_to``: a fixed width, or the longest)."""
    return BatchCollator(0, model.pad_to)(examples())


class StepRecorder(pl.Callback):
    """Per optimiser step: each stepped parameter's gradient norm and learning rate; per batch: the logged loss values and each
    parameter's (sum, norm)."""

    def __init__(self):
        self.grads: list[dict[str, float | None]] = []
        self.lrs: list[dict[str, float]] = []  # each stepped parameter's learning rate
        self.values: list[dict[str, float]] = []
        self.params: list[dict[str, tuple[float, float]]] = []

    def on_before_optimizer_step(self, trainer, pl_module, optimizer):
        names = {id(p): n for n, p in pl_module.named_parameters()}
        self.grads.append({names[id(p)]: None if p.grad is None else float(p.grad.norm())
                           for group in optimizer.param_groups for p in group["params"]})
        self.lrs.append({names[id(p)]: group["lr"] for group in optimizer.param_groups for p in group["params"]})

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.values.append({k: float(v) for k, v in pl_module.training_values.items()})
        self.params.append({n: (float(p.detach().sum()), float(p.detach().norm()))
                            for n, p in pl_module.named_parameters()})


class AfterBatch(pl.Callback):
    def __init__(self, hook, count):
        self.hook, self.count = hook, count

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.hook(self.count)


def train_steps(model, steps: int = 3, after_batch=None) -> StepRecorder:
    """``steps`` training steps on the same padded batch, under the fixed draws; ``after_batch(count)`` may
    advance the draw counters after each batch (to mirror draws a reference loop makes for its logs only)."""
    batch = padded_batch(model)
    recorder = StepRecorder()
    loader = DataLoader([batch] * steps, batch_size=None, collate_fn=lambda b: b)
    with fixed_draws() as count:
        callbacks = [recorder] + ([AfterBatch(after_batch, count)] if after_batch else [])
        quiet_cpu_trainer(1, callbacks=callbacks).fit(model, train_dataloaders=loader)
    return recorder


def compare_parameters(model, recorder, expected, reference_name, grads_of_step, tolerance=1e-6, step3=True):
    """Every parameter of ``model`` against the reference's (|grad| steps 1 and 3, (sum, norm) after 1 and 3;
    step 1 only when ``step3`` is false); returns how many parameters were compared."""
    seen = set()
    steps = (0, 2) if step3 else (0,)
    for name, _ in model.named_parameters():
        seen.add(reference_name(name))
        g1, g3, s1, n1, s3, n3 = expected[reference_name(name)]
        grads = [grads_of_step(recorder, step).get(name) for step in steps]
        for got, want in zip(grads, (g1, g3)):
            assert (got is None) == (want is None), name
            if want is not None:
                assert abs(got - want) <= tolerance, (name, got, want)
        for step, want in zip(steps, ((s1, n1), (s3, n3))):
            got = recorder.params[step][name]
            assert abs(got[0] - want[0]) <= tolerance and abs(got[1] - want[1]) <= tolerance, (name, step, got, want)
    assert seen == set(expected), seen ^ set(expected)  # one of ours for every reference parameter
    return len(seen)


def check_two_phase_steps(model, recorder, expected, reference_name, unused=frozenset()):
    """A two-phase model (three optimiser steps per batch: predictor, generator phase 1, generator phase 2)
    against the reference's logged terms per batch, the stepped parameters' gradient norms of batches 1 and 3,
    and every parameter's (sum, norm) after batches 1 and 3. ``unused``: reference parameters we do not have."""
    for batch, (got, want) in enumerate(zip(recorder.values, expected["losses"])):
        for term, value in want.items():
            assert abs(got[f"train/loss/{term}"] - value) <= 1e-6, (batch + 1, term, got[f"train/loss/{term}"], value)
    assert len(recorder.grads) == 9
    for ours, (_, theirs) in zip([recorder.grads[k] for k in (0, 1, 2, 6, 7, 8)], expected["gradients"]):
        mapped = {reference_name(n): g for n, g in ours.items()}
        assert set(mapped) == set(theirs)
        for name, g in theirs.items():
            assert (mapped[name] is None) == (g is None), name
            assert g is None or abs(mapped[name] - g) <= 1e-6, (name, mapped[name], g)
    seen = set()
    for name, _ in model.named_parameters():
        ref = reference_name(name)
        seen.add(ref)
        s1, n1, s3, n3 = expected["parameters"][ref]
        for batch, want in ((0, (s1, n1)), (2, (s3, n3))):
            got = recorder.params[batch][name]
            assert abs(got[0] - want[0]) <= 1e-6 and abs(got[1] - want[1]) <= 1e-6, (name, batch, got, want)
    assert seen == set(expected["parameters"]) - set(unused)
