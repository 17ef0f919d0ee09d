"""MCD and MRD: two phases per batch; phase 2 moves only the selector, in the direction of its divergence."""
from __future__ import annotations

import copy

import lightning.pytorch as pl
import pytest
import torch
from family_helpers import SHORT_PADDING, experiment, same, snapshot, soft_keep, trainer

from pyhighlights.components import selectors
from pyhighlights.components.losses import kl_divergence
from pyhighlights.models.liu_family.mrd import remainder


def grads(modules):
    return [None if p.grad is None else p.grad.clone() for m in modules for p in m.parameters()]


def record_phases(model):
    """Wraps manual_step: per phase, the modules stepped, parameters and Adam state before/after."""
    phases = []
    original = model.manual_step

    def recording(optimizer, loss, modules):
        entry = {"modules": list(modules), "predictor_before": snapshot(model.predictor_modules()),
                 "selector_before": snapshot(model.selector_modules()),
                 "predictor_state_before": copy.deepcopy(model.trainer.optimizers[0].state_dict()["state"]),
                 "predictor_grads_before": grads(model.predictor_modules())}
        original(optimizer, loss, modules)
        entry.update(predictor_after=snapshot(model.predictor_modules()),
                     selector_after=snapshot(model.selector_modules()),
                     predictor_state_after=copy.deepcopy(model.trainer.optimizers[0].state_dict()["state"]),
                     predictor_grads_after=grads(model.predictor_modules()))
        phases.append(entry)

    model.manual_step = recording
    return phases


@pytest.mark.parametrize("name", ["mcd", "mrd"])
def test_phase_two_leaves_the_predictor_unchanged(family_tiny_dir, name):
    lr = 1e-3
    exp = experiment(family_tiny_dir, name, f"model.lr={lr}", SHORT_PADDING)
    pl.seed_everything(0)
    model = exp.model()
    phases = record_phases(model)
    trainer(1, limit_train_batches=2).fit(model, datamodule=exp.datamodule(0))
    assert len(phases) == 4  # two batches x (predictor phase, selector phase)
    for first, second in zip(phases[::2], phases[1::2]):
        # phase 1 steps the predictor and, with the gradient of sparsity and continuity, the selector
        # (see test_reference_steps.py for the arithmetic of both phases)
        assert first["modules"] == model.predictor_modules() + model.selector_modules()
        assert not same(first["predictor_before"], first["predictor_after"])
        assert not same(first["selector_before"], first["selector_after"])
        # phase 2: the predictor is frozen (its backward adds no gradient to the predictor), its
        # parameters and Adam state unchanged
        assert second["modules"] == model.selector_modules()
        assert same(second["predictor_before"], second["predictor_after"])
        assert all((a is None and b is None) or torch.equal(a, b)
                   for a, b in zip(second["predictor_grads_before"], second["predictor_grads_after"]))
        assert second["predictor_state_before"].keys() == second["predictor_state_after"].keys()
        for key, state in second["predictor_state_before"].items():
            after = second["predictor_state_after"][key]
            assert all(torch.equal(state[k], after[k]) for k in ("exp_avg", "exp_avg_sq"))
        assert not same(second["selector_before"], second["selector_after"])


def divergence(model, batch, name):
    """KL(P(y|X) || P(y|view)) with view = Z (MCD) or X minus Z (MRD), noiseless (soft selection)."""
    with torch.no_grad():
        keep = model.select(batch).mask
        full = model.predict(batch, None)
        view = keep if name == "mcd" else remainder(keep, batch.word_mask)
        return float(kl_divergence(full, model.predict(batch, view)).mean())


@pytest.mark.parametrize("name,maximise,direction", [("mrd", True, +1), ("mrd", False, -1), ("mcd", False, -1)])
def test_selector_step_moves_the_divergence(family_tiny_dir, monkeypatch, name, maximise, direction):
    """The selector's phase-2 step increases KL(full || remainder) for MRD (and would decrease it with the
    sign flipped); for MCD it decreases KL(full || rationale). Only the divergence term drives the
    selector here, the selection is p(keep) itself (smooth, noiseless) and nothing is random."""
    monkeypatch.setattr(selectors, "hard_gumbel_mask", soft_keep)
    exp = experiment(family_tiny_dir, name, "model.lr=0.001", "backbone.dropout=0", "model.predictor.dropout=0",
                     "model.selector.dropout=0", SHORT_PADDING,
                     "model.losses.sparsity.weight=0", "model.losses.continuity.weight=0",
                     f"model.losses.divergence.maximise={str(maximise).lower()}",
                     "model.losses.divergence.weight=1")
    pl.seed_everything(0)
    model = exp.model()
    scores, seen = {}, []
    original_step, original_training_step = model.manual_step, model.training_step

    def measuring(optimizer, loss, modules):
        original_step(optimizer, loss, modules)
        key = "after" if modules == model.selector_modules() else "before"
        scores[key] = divergence(model, seen[0], name)  # after the predictor's, then the selector's update

    def keeping_batch(batch, batch_idx):
        seen.append(batch)
        return original_training_step(batch, batch_idx)

    model.manual_step, model.training_step = measuring, keeping_batch
    trainer(1, limit_train_batches=1).fit(model, datamodule=exp.datamodule(0))
    assert direction * (scores["after"] - scores["before"]) > 0, scores


@pytest.mark.parametrize("name", ["mcd", "mrd"])
def test_reusing_the_sample_needs_phase_one_without_selection_terms(family_tiny_dir, name):
    """Phase 1's backward through sparsity/continuity frees the sample's graph: reusing it is refused up front."""
    from pyhighlights.config.resolve import ConfigError

    with pytest.raises(ConfigError, match="fresh_sample=false"):
        experiment(family_tiny_dir, name, "model.fresh_sample=false")
