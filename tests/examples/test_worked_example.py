"""The README's worked example (examples/soft_agreement): a plugin adding a kind of part, a two-input loss term
and a selector-only phase, with no edit to pyhighlights.

In-process tests import the example fresh inside a scratch registry; the command-line tests see it as an
installed plugin would be seen (its ``.dist-info`` written on ``PYTHONPATH``, as tests/config/test_plugins.py
does for the fixture plugin).
"""
from __future__ import annotations

import importlib
import json
import math
import sys
from pathlib import Path

import pytest
import torch
from plugin_helpers import padded_batches, train_with_plugin, write_dist_info
from torch.utils.data import DataLoader

from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.resolve import build
from pyhighlights.testing import quiet_cpu_trainer, tiny_overrides

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "soft_agreement"


@pytest.fixture
def example(scratch_registry, monkeypatch):
    """The example's modules, imported as the plugin loader would; its kind and entries go with the test."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    for name in [name for name in sys.modules if name.split(".")[0] == "soft_agreement"]:
        monkeypatch.delitem(sys.modules, name)
    importlib.import_module("soft_agreement.registrations")
    yield {name: importlib.import_module(f"soft_agreement.{name}") for name in ("agreement", "model", "soft_predictor")}
    for name in [name for name in sys.modules if name.split(".")[0] == "soft_agreement"]:
        del sys.modules[name]


def built(**options):
    torch.manual_seed(0)
    factory = BackboneFactory({"name": "gru", "hidden_size": 4, "dropout": 0.0},
                              embedding_matrix=torch.randn(12, 4), freeze_embeddings=False)
    spec = {"name": "soft_agreement", "predictor": {"dropout": 0.0}, "soft_predictor": {"dropout": 0.0}, **options}
    return build("model", spec, path="model", backbone_factory=factory, num_classes=2)


def snapshot(modules):
    return [p.detach().clone() for m in modules for p in m.parameters()]


def test_the_model_is_built_from_its_configuration_with_its_slots_bound_by_role(example):
    net = built()
    assert isinstance(net.soft_predictor, example["soft_predictor"].AttentionPredictor)
    assert isinstance(net.losses.terms["agreement"], example["agreement"].TwoSidedJSDTerm)
    assert net.losses.terms["agreement"].inputs == {"p": "logits", "q": "soft_logits"}
    assert net.losses.terms["soft_task"].inputs == {"logits": "soft_logits", "labels": "labels"}
    assert net.losses.terms["task"].inputs == {"logits": "logits", "labels": "labels"}
    # Another divergence in the agreement slot keeps the slot's wiring.
    swapped = built(losses={"agreement": {"name": "jsd"}})
    assert swapped.losses.terms["agreement"].inputs == {"p": "logits", "q": "soft_logits"}


def test_the_selector_only_phase_moves_only_the_selector(example):
    net = built()
    parts = net.parts()
    seen = []
    original = net.run_phase

    def grads():
        return [None if p.grad is None else p.grad.clone()
                for name in ("predictor", "soft_predictor") for m in parts[name] for p in m.parameters()]

    def around(phase, step, optimisers):
        before, before_grads = {name: snapshot(modules) for name, modules in parts.items()}, grads()
        result = original(phase, step, optimisers)
        moved = {name: any(not torch.equal(a, b) for a, b in zip(before[name], snapshot(modules)))
                 for name, modules in parts.items()}
        # the predictors' gradients as the phase found them: nothing added to them
        kept = all((a is None) == (b is None) and (a is None or torch.equal(a, b)) for a, b in zip(before_grads, grads()))
        seen.append((phase.name, moved, kept, set(result.parts)))
        return result

    net.run_phase = around
    quiet_cpu_trainer(1).fit(net, train_dataloaders=DataLoader(padded_batches(), batch_size=None, collate_fn=lambda b: b))
    assert [name for name, *_ in seen] == ["rationaliser", "agreement"] * 2
    everything = {"selector": True, "predictor": True, "soft_predictor": True}
    for name, moved, predictor_grads_kept, terms in seen:
        if name == "rationaliser":
            assert moved == everything and terms == {"task", "soft_task", "sparsity", "continuity"}
        else:
            # the agreement reached the selector through both frozen predictors, and moved neither
            assert moved == {"selector": True, "predictor": False, "soft_predictor": False} and predictor_grads_kept
            assert terms == {"agreement"}
    assert all(p.requires_grad for p in net.parameters())
    assert "train/agreement_loss" in net.training_values


def test_the_two_sided_jsd_is_the_jensen_shannon_divergence_and_moves_both_sides(example):
    term = example["agreement"].TwoSidedJSDTerm(p="a", q="b")
    p = torch.tensor([[2.0, 0.0], [0.0, 0.0], [-1.0, 3.0]], requires_grad=True)
    q = torch.tensor([[0.0, 1.0], [0.0, 0.0], [1.0, 1.0]], requires_grad=True)

    def by_hand(row_p, row_q):
        sp = [math.exp(x) / sum(math.exp(y) for y in row_p) for x in row_p]
        sq = [math.exp(x) / sum(math.exp(y) for y in row_q) for x in row_q]
        m = [(a + b) / 2 for a, b in zip(sp, sq)]
        return 0.5 * sum(a * math.log(a / c) for a, c in zip(sp, m)) + 0.5 * sum(b * math.log(b / c) for b, c in zip(sq, m))

    expected = sum(by_hand(a, b) for a, b in zip(p.tolist(), q.tolist())) / 3
    value = term({"a": p, "b": q, "logits": torch.zeros(3, 2)})
    assert value.item() == pytest.approx(expected, rel=1e-6)
    assert 0.0 < value.item() < math.log(2)
    value.backward()
    # both sides receive a gradient (the project's jsd would give q none); equal rows (row 2) give none
    for grad in (p.grad, q.grad):
        assert grad[[0, 2]].abs().sum() > 0 and torch.allclose(grad[1], torch.zeros(2), atol=1e-7)


def test_the_soft_predictor_reads_an_attention_over_the_real_words_only(example):
    parts = example["soft_predictor"]
    attention = parts.masked_attention(torch.tensor([[0.0, math.log(3.0), 5.0]]), torch.tensor([[1, 1, 0]]))
    assert torch.allclose(attention, torch.tensor([[0.25, 0.75, 0.0]]))
    predictor = parts.AttentionPredictor(input_size=2, num_classes=1, dropout=0.0)
    with torch.no_grad():
        predictor.out.weight.copy_(torch.tensor([[1.0, 10.0]]))
        predictor.out.bias.zero_()
    states = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [100.0, 100.0]]])
    assert predictor(states, attention).item() == pytest.approx(0.25 * 1.0 + 0.75 * 10.0)


# --- as an installed plugin: scripts/train.py ------------------------------------------------------------
def train_py(tmp_path: Path, *arguments: str):
    """``scripts/train.py`` with the example installed as ``pip install examples/soft_agreement`` would leave it."""
    site = tmp_path / "site"
    if not site.exists():
        write_dist_info(site, "pyhighlights-soft-agreement", "0.1.0", {"soft_agreement": "soft_agreement.registrations"})
    return train_with_plugin(tmp_path, [str(site), str(EXAMPLE)], *arguments, cache=tmp_path / "cache")


def test_the_installed_example_is_offered_and_trains_one_epoch(tmp_path, tiny_beer_dir):
    shown = train_py(tmp_path, "model=soft_agreement", "--help")
    assert shown.returncode == 0, shown.stderr[-3000:]
    choices = {line.split(":")[0].strip(): [option.strip() for option in line.split(":", 1)[1].split("(")[0].split(",")]
               for line in shown.stdout.splitlines() if line.startswith("  model")}
    assert "soft_agreement" in choices["model"] and "rnp" in choices["model"]
    # the new kind's slot offers its part; the predictor slot does not
    assert choices["model/soft_predictor"] == ["attention"] and choices["model/predictor"] == ["mlp"]
    # the agreement slot binds p and q: it offers the terms that take both (every divergence), and only those
    assert "two_sided_jsd" in choices["model/losses/agreement"] and "jsd" in choices["model/losses/agreement"]
    assert not {"cross_entropy", "sparsity", "continuity"} & set(choices["model/losses/agreement"])

    run_dir = tmp_path / "run"
    trained = train_py(tmp_path, *tiny_overrides(tiny_beer_dir), "model=soft_agreement", f"hydra.run.dir={run_dir}")
    assert trained.returncode == 0, trained.stderr[-3000:]
    model = json.loads((run_dir / "manifest.json").read_text())["parameters"]["model"]
    assert model["name"] == "soft_agreement" and model["soft_predictor"]["name"] == "attention"
    assert (model["losses"]["agreement"]["p"], model["losses"]["agreement"]["q"]) == ("logits", "soft_logits")
    assert json.loads((run_dir / "status.json").read_text())["state"] == "finished"
    assert "test/accuracy" in json.loads((run_dir / "results.json").read_text())["summary"]
