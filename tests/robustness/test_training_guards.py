"""The non-finite guard and the divergence watch, driven directly with hand-made steps."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import torch
from torch import nn

from pyhighlights.checkpoint_file import read_checkpoint
from pyhighlights.components.selectors import Selector
from pyhighlights.training.guards import DivergenceWatch, NonFiniteGuard, NonFiniteTraining


class Module(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(2, 1)
        self.selector = Selector()
        self.training_values: dict[str, torch.Tensor] = {}
        self.first_scored_epoch = 0


def trainer(step=0, epoch=0):
    return SimpleNamespace(global_step=step, current_epoch=epoch, global_rank=0, precision="32-true")


def test_a_non_finite_gradient_stops_before_the_update_and_saves_the_batch(tmp_path):
    module = Module()
    guard = NonFiniteGuard(tmp_path, doc_ids=["a", "b", "c"])
    batch = SimpleNamespace(sample_ids=torch.tensor([2, 0]))
    guard.on_train_batch_start(trainer(), module, batch, 4)
    module.training_values["train/loss"] = torch.tensor(0.7)
    optimizer = torch.optim.SGD(module.parameters(), lr=0.1)
    module.layer.weight.grad = torch.tensor([[0.1, float("inf")]])
    module.layer.bias.grad = torch.tensor([0.2])
    before = module.layer.weight.detach().clone()
    with pytest.raises(NonFiniteTraining, match=r"non-finite gradients in layer.weight at step 7 \(epoch 1, batch 4\); "
                                                r"batch documents: c, a"):
        guard.on_before_optimizer_step(trainer(step=7, epoch=1), module, optimizer)
    report = json.loads((tmp_path / "nonfinite" / "report.json").read_text())
    assert report["documents"] == ["c", "a"] and report["step"] == 7
    saved = read_checkpoint(tmp_path / "nonfinite" / "state.pt")  # data only: no code runs on reading it
    assert torch.equal(saved["state_dict"]["layer.weight"], before)
    assert torch.equal(saved["batch"]["sample_ids"], torch.tensor([2, 0]))


def test_finite_gradients_and_losses_pass(tmp_path):
    module = Module()
    guard = NonFiniteGuard(tmp_path, doc_ids=["a"])
    guard.on_train_batch_start(trainer(), module, SimpleNamespace(sample_ids=torch.tensor([0])), 0)
    module.training_values.update({"train/loss": torch.tensor(0.3), "train/loss/task": torch.tensor(0.2)})
    for p in module.parameters():
        p.grad = torch.ones_like(p)
    guard.on_before_backward(trainer(), module, torch.tensor(0.3))
    guard.on_before_optimizer_step(trainer(), module, torch.optim.SGD(module.parameters(), lr=0.1))
    guard.on_train_batch_end(trainer(), module, None, None, 0)
    assert not (tmp_path / "nonfinite").exists()


def test_a_non_finite_loss_names_its_terms_before_the_backward(tmp_path):
    module = Module()
    guard = NonFiniteGuard(tmp_path, doc_ids=["a", "b"])
    guard.on_train_batch_start(trainer(), module, SimpleNamespace(sample_ids=torch.tensor([1])), 0)
    module.training_values.update({"train/loss/task": torch.tensor(0.5), "train/loss/sparsity": torch.tensor(float("nan"))})
    with pytest.raises(NonFiniteTraining, match=r"non-finite training loss \(train/loss/sparsity\) at step 0 .*: b;"):
        guard.on_before_backward(trainer(), module, torch.tensor(float("nan")))


def epoch(watch, module, number, losses, rates):
    t = trainer(epoch=number)
    watch.on_train_epoch_start(t, module)
    for loss, rate in zip(losses, rates):
        module.training_values = {"train/loss": torch.tensor(loss), "train/selection_rate": torch.tensor(rate)}
        watch.on_train_batch_end(t, module, None, None, 0)
    watch.on_train_epoch_end(t, module)


def test_loss_growth_by_orders_of_magnitude_is_warned_with_its_numbers():
    watch, module = DivergenceWatch(factor=100.0), Module()
    epoch(watch, module, 0, [2.0, 1.0, 0.9], [0.2, 0.3, 0.2])  # mean 1.3: below 100 x the first batch
    assert watch.warnings == []
    epoch(watch, module, 1, [50.0, 300.0], [0.2, 0.3])  # mean 175 > 100 x 1.3 (the lowest so far)
    assert [(w["kind"], w["epoch"], w["before"], w["after"]) for w in watch.warnings] == [
        ("loss_growth", 1, pytest.approx(1.3), pytest.approx(175.0))]


def test_a_loss_trained_down_to_almost_zero_is_not_divergence():
    watch, module = DivergenceWatch(factor=100.0), Module()
    epoch(watch, module, 0, [1.0, 1e-6], [0.2, 0.2])
    epoch(watch, module, 1, [1e-7, 1e-7], [0.2, 0.2])
    epoch(watch, module, 2, [1e-3, 1e-3], [0.2, 0.2])  # 1e4 x the best epoch, but 1e-3 of where it started
    assert watch.warnings == []


@pytest.mark.parametrize("rates, kept", [([1.0, 1.0, 1.0], "every word"), ([0.0, 0.0], "no word")])
def test_a_selector_that_keeps_everything_or_nothing_for_an_epoch_is_warned(rates, kept):
    watch, module = DivergenceWatch(), Module()
    epoch(watch, module, 0, [0.5] * len(rates), rates)
    assert len(watch.warnings) == 1 and watch.warnings[0]["kind"] == "selection_collapse"
    assert f"kept {kept} in all {len(rates)} training batches of epoch 0" in watch.warnings[0]["message"]
    epoch(watch, module, 1, [0.5, 0.5], [1.0, 0.98])
    assert len(watch.warnings) == 1


def test_warm_up_epochs_and_models_without_a_selector_are_not_judged_for_selection():
    watch, module = DivergenceWatch(), Module()
    module.first_scored_epoch = 2
    epoch(watch, module, 0, [0.5, 0.5], [0.0, 0.0])
    del module.selector  # a classifier: every word, always
    module.first_scored_epoch = 0
    epoch(watch, module, 1, [0.5, 0.5], [1.0, 1.0])
    assert watch.warnings == []
