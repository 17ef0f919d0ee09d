"""Phases as data: a model declaring a selector-only phase, run by the one phase mechanism."""
from __future__ import annotations

import pytest
import torch
from torch.utils.data import DataLoader

from cinnamon.registry import RegistrationKey

from pyhighlights import registry
from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.resolve import build
from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.phases import Phase, PhasedTraining
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, registration_key as key
from pyhighlights.testing import quiet_cpu_trainer
from plugin_helpers import padded_batches

class SelectorAgreementConfig(RNPConfig):
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"), "agreement": key("loss", "jsd")})
    agreement_every: int = Param(1, ge=1, description="the agreement phase runs every n-th batch")
    agreement_from: int = Param(0, ge=0, description="the first epoch of the agreement phase")
    outputs = {"losses": SELECTION_OUTPUTS | {"full_logits"}}
    defaults = {"lr": 0.01, "losses": {"agreement": {"p": "logits", "q": "full_logits"}}}


class SelectorAgreement(PhasedTraining, RNP):
    """RNP, plus a phase in which only the selector trains, on one term (an A2R-like agreement: the predictor on
    the selection should agree with the predictor on the full text); the predictor is frozen in it, so the
    term's gradient reaches the selector through the predictor without moving the predictor."""

    def __init__(self, *, agreement_every, agreement_from, **rnp):
        super().__init__(**rnp)
        self.agreement_every, self.agreement_from = agreement_every, agreement_from
        self.stepped: list[tuple[str, int]] = []  # (phase, epoch) of every step taken

    def parts(self):
        return {"selector": [self.selector_encoder, self.selector],
                "predictor": [self.predictor_encoder, self.predictor]}

    def optimisers(self):
        return {"selector": self.make_optimizer(self.parts()["selector"]),
                "predictor": self.make_optimizer(self.parts()["predictor"])}

    def phases(self):
        return [
            Phase("rationaliser", trains=("selector", "predictor"), optimisers=("selector", "predictor"),
                  outputs=self.rationaliser_outputs, terms=("task", "sparsity"), after=self.record),
            Phase("agreement", trains=("selector",), optimisers=("selector",), outputs=self.agreement_outputs,
                  terms=("agreement",), frozen=("predictor",), every=self.agreement_every,
                  start_epoch=self.agreement_from, after=self.record, logged="train/agreement_loss"),
        ]

    def record(self, result, step):
        self.stepped.append((result.phase.name, self.current_epoch))

    def rationaliser_outputs(self, step):
        return self(step.batch)

    def agreement_outputs(self, step):
        selection = self.select(step.batch)
        with torch.no_grad():
            full = self.predict(step.batch, None)
        return self.outputs(step.batch, selection, self.predict(step.batch, selection.mask), full_logits=full)


@pytest.fixture(autouse=True)
def registered_model(scratch_registry):
    registry.register("model", "selector_agreement_test", SelectorAgreementConfig, SelectorAgreement)


def model(**options) -> SelectorAgreement:
    torch.manual_seed(0)
    factory = BackboneFactory({"name": "gru", "hidden_size": 4, "dropout": 0.0},
                              embedding_matrix=torch.randn(12, 4), freeze_embeddings=False)
    spec = {"name": "selector_agreement_test", "predictor": {"dropout": 0.0}, **options}
    return build("model", spec, path="model", backbone_factory=factory, num_classes=2)


def fit(net, epochs: int = 1, count: int = 2):
    loader = DataLoader(padded_batches(count), batch_size=None, collate_fn=lambda b: b)
    quiet_cpu_trainer(epochs).fit(net, train_dataloaders=loader)


def snapshot(modules):
    return [p.detach().clone() for m in modules for p in m.parameters()]


def test_the_selector_only_phase_moves_only_the_selector():
    net = model()
    seen = []
    original = net.run_phase

    def grads():
        return [None if p.grad is None else p.grad.clone() for m in net.parts()["predictor"] for p in m.parameters()]

    def around(phase, step, optimisers):
        before = (snapshot(net.parts()["selector"]), snapshot(net.parts()["predictor"]), grads())
        result = original(phase, step, optimisers)
        after = (snapshot(net.parts()["selector"]), snapshot(net.parts()["predictor"]), grads())
        moved = [not all(torch.equal(a, b) for a, b in zip(x, y)) for x, y in zip(before[:2], after[:2])]
        # the predictor's gradients as the phase found them (the rationaliser's, or none): nothing added
        kept = all((a is None) == (b is None) and (a is None or torch.equal(a, b)) for a, b in zip(before[2], after[2]))
        seen.append((phase.name, moved, kept, set(result.parts)))
        return result

    net.run_phase = around
    fit(net)
    assert [name for name, *_ in seen] == ["rationaliser", "agreement"] * 2
    for name, (selector_moved, predictor_moved), predictor_grads_kept, terms in seen:
        if name == "rationaliser":
            assert selector_moved and predictor_moved and terms == {"task", "sparsity"}
        else:
            # the term's gradient reached the selector through the frozen predictor, which got none
            assert selector_moved and not predictor_moved and predictor_grads_kept and terms == {"agreement"}
    # frozen only during its phase: every predictor parameter requires gradients again
    assert all(p.requires_grad for m in net.parts()["predictor"] for p in m.parameters())


def test_a_phase_runs_from_its_start_epoch_every_nth_batch():
    net = model(agreement_every=2, agreement_from=1)
    fit(net, epochs=2, count=3)
    assert net.stepped == [("rationaliser", 0)] * 3 + [("rationaliser", 1), ("agreement", 1),
                                                       ("rationaliser", 1), ("rationaliser", 1), ("agreement", 1)]


def test_the_reported_loss_sums_the_reported_phases_and_prefixes_a_repeated_term():
    net = model()
    logged = {}
    original = net.log_train

    def keep(total, parts, outputs, batch_size):
        logged.update(parts)
        original(total, parts, outputs, batch_size)

    net.log_train = keep
    fit(net, count=1)
    assert set(logged) == {"task", "sparsity", "agreement"}
    assert "train/agreement_loss" in net.training_values


@pytest.mark.parametrize("fields, message", [
    ({"trains": (), "optimisers": ("a",)}, "must train at least one part"),
    ({"trains": ("a",), "optimisers": ("a",), "every": 0}, "every must be >= 1"),
    ({"trains": ("a",), "optimisers": ("a",), "frozen": ("a",)}, "part 'a' is both trained and frozen"),
])
def test_a_malformed_phase_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        Phase("p", outputs=lambda step: {}, **fields)


def test_a_phase_naming_an_unknown_part_is_refused_with_the_parts():
    net = model()
    with pytest.raises(KeyError, match="no part 'teacher'; parts: selector, predictor"):
        net.part_modules(["teacher"])
