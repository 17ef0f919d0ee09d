"""N2R: the representation-norm term by hand, and one batch's two steps replayed term by term."""
from __future__ import annotations

import copy
import math

import lightning.pytorch as pl
import pytest
import torch
from family_helpers import Recorder, adam_first_step, experiment, trainer

from pyhighlights.components.losses import RepresentationNormTerm


def test_norm_term_by_hand():
    r = torch.tensor([[3.0, 4.0], [0.0, 1.0]], dtype=torch.float64, requires_grad=True)
    value = RepresentationNormTerm(eps=1e-6)({"representation": r})
    assert float(value.detach()) == pytest.approx(-(math.log(5 + 1e-6) + math.log(1 + 1e-6)) / 2, abs=1e-12)
    value.backward()
    # d/dr of -log(eps + |r|) / B is -r / (|r| (eps + |r|)) / B
    want = [-3 / (5 * 5.000001) / 2, -4 / (5 * 5.000001) / 2, 0.0, -1 / 1.000001 / 2]
    assert r.grad.flatten().tolist() == pytest.approx(want, abs=1e-12)


class StepGradients(pl.Callback):
    """Each optimiser step's gradients, by parameter name (None: no gradient)."""

    def __init__(self):
        self.steps = []

    def on_before_optimizer_step(self, trainer, pl_module, optimizer):
        names = {id(p): n for n, p in pl_module.named_parameters()}
        self.steps.append({names[id(p)]: None if p.grad is None else p.grad.clone()
                           for group in optimizer.param_groups for p in group["params"]})


def gradients(total, model, names, retain=False):
    params = dict(model.named_parameters())
    grads = torch.autograd.grad(total, [params[n] for n in names], allow_unused=True, retain_graph=retain)
    return dict(zip(names, grads))


@pytest.mark.parametrize("detached", [False, True])
def test_one_batch_is_rnp_step_then_a_selector_step_on_the_norm(family_tiny_dir, detached):
    lr = 1e-3
    exp = experiment(family_tiny_dir, "n2r", f"model.lr={lr}", f"model.phase1_detached={str(detached).lower()}",
                     "model.pad_to=null")
    pl.seed_everything(0)
    model = exp.model()
    initial = copy.deepcopy(model)
    recorder, steps = Recorder(), StepGradients()
    trainer(1, callbacks=[recorder, steps]).fit(model, datamodule=exp.datamodule(0))
    assert len(steps.steps) == 3  # phase 1: predictor, selector; phase 2: selector
    predictor_names, selector_names = list(steps.steps[0]), list(steps.steps[1])
    assert set(steps.steps[2]) == set(selector_names)

    # Replay from the same weights, batch and random state.
    batch = recorder.batches[0]
    torch.set_rng_state(recorder.rng[0])
    initial.train()
    outputs = initial(batch)  # the selection, then the predictor on it: phase 1's draws in phase 1's order
    terms = initial.losses.terms

    def weighted(names):
        return sum(terms[n].weight * terms[n](outputs) for n in names)

    phase1 = gradients(weighted(["task", "sparsity", "continuity"]), initial, selector_names + predictor_names,
                       retain=True)
    for name in predictor_names:
        assert torch.allclose(steps.steps[0][name], phase1[name], atol=1e-7), name
    # the selector's phase-1 gradient: with the rationale detached, sparsity and continuity only
    selection_only = gradients(weighted(["sparsity", "continuity"]), initial, selector_names)
    want = selection_only if detached else phase1
    for name in selector_names:
        assert torch.allclose(steps.steps[1][name], want[name], atol=1e-7), name
    if not detached:  # the task term reaches the selector through the sample
        assert not torch.allclose(phase1["selector.scorer.weight"], selection_only["selector.scorer.weight"])

    # Adam's first step, then phase 2 on a fresh sample: sparsity + continuity + norm, the predictor frozen.
    params = dict(initial.named_parameters())
    with torch.no_grad():
        for name in predictor_names + selector_names:
            params[name].copy_(adam_first_step(params[name], steps.steps[0 if name in predictor_names else 1][name], lr))
    outputs = initial(batch)
    assert "representation" in outputs and outputs["representation"].shape[0] == batch.size
    phase2 = gradients(weighted(["sparsity", "continuity", "norm"]), initial, selector_names)
    for name in selector_names:
        assert torch.allclose(steps.steps[2][name], phase2[name], atol=1e-7), name
    # after the batch the predictor is where phase 1 left it
    after = dict(model.named_parameters())
    for name in predictor_names:
        assert torch.allclose(after[name], params[name], atol=1e-7), name
