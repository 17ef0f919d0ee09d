"""Best-feasible-epoch selection for a sparsity constraint, on a hand-made sequence of dev epochs."""
import lightning.pytorch as pl
import pytest
import torch

from pyhighlights.testing import scripted_validation
from pyhighlights.training.callbacks import FeasibleCheckpoint, FeasibleSelection

# (dev loss, dev selection rate) per epoch; s = 0.15, tolerance 0.005 -> rates in [0.145, 0.155] are feasible.
EPOCHS = [
    (0.10, 0.15),  # 0: guider-only epoch in the callback test (the best of all otherwise)
    (0.50, 0.20),  # 1: infeasible, violation 0.045; nothing kept yet -> kept
    (0.40, 0.17),  # 2: infeasible, violation 0.015 < 0.045 -> kept
    (0.30, 0.19),  # 3: lower loss but a larger violation (0.035) -> not kept
    (0.60, 0.154),  # 4: feasible -> kept although its loss is the highest so far
    (0.20, 0.13),  # 5: infeasible: never replaces a feasible epoch, whatever its loss
    (0.45, 0.146),  # 6: feasible with a lower loss -> kept
    (0.50, 0.150),  # 7: feasible but a higher loss than epoch 6 -> not kept
]
KEPT_FROM_1 = [1, 2, 4, 6]
LOGGED = [{"val/loss": loss, "val/sparsity": rate} for loss, rate in EPOCHS]


def test_rule_on_a_hand_made_sequence():
    rule = FeasibleSelection(target=0.15, tolerance=0.005, mode="min")
    kept = [epoch for epoch, (loss, rate) in enumerate(EPOCHS[1:], start=1) if rule.keep(loss, rate)]
    assert kept == KEPT_FROM_1
    assert rule.violation(0.17) == pytest.approx(0.015)
    assert rule.violation(0.146) == 0.0


def test_max_mode_prefers_the_larger_monitored_value():
    rule = FeasibleSelection(target=0.15, tolerance=0.01, mode="max")
    assert rule.keep(0.7, 0.15)
    assert not rule.keep(0.6, 0.14)
    assert rule.keep(0.8, 0.159)


def test_a_nan_monitor_is_kept_only_for_a_smaller_violation():
    rule = FeasibleSelection(target=0.15)
    assert rule.keep(float("nan"), 0.30)
    assert not rule.keep(float("nan"), 0.30)
    assert rule.keep(float("nan"), 0.20)
    assert rule.keep(1.0, 0.20)  # same violation, a finite loss beats NaN


def test_checkpoint_keeps_the_best_feasible_epoch_and_resumes_its_rule(tmp_path):
    checkpoint = FeasibleCheckpoint(dirpath=tmp_path, target=0.15, tolerance=0.005)
    trainer = pl.Trainer(max_epochs=len(EPOCHS), callbacks=[checkpoint], logger=False, enable_progress_bar=False,
                         enable_model_summary=False, num_sanity_val_steps=0, accelerator="cpu")
    trainer.fit(scripted_validation(1, LOGGED))
    assert trainer.checkpoint_callback is checkpoint
    assert checkpoint.kept_epochs == KEPT_FROM_1
    assert checkpoint.best_model_path.endswith("best-epoch=7.ckpt")  # index 6, counted from 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best-epoch=7.ckpt"]
    saved = torch.load(checkpoint.best_model_path, weights_only=False)["callbacks"]
    state = next(v for k, v in saved.items() if k.startswith("FeasibleCheckpoint"))
    restored = FeasibleCheckpoint(dirpath=tmp_path, target=0.15, tolerance=0.005)
    restored.load_state_dict(state)
    # saved at epoch 6, the rule knows (feasible, loss 0.45; logged in float32): an infeasible epoch or a
    # worse feasible one is refused after the resume, a better feasible one kept
    assert restored.rule.best == pytest.approx((0.0, 0.45))
    assert not restored.rule.keep(0.01, 0.20)
    assert not restored.rule.keep(0.46, 0.15)
    assert restored.rule.keep(0.44, 0.15)


@pytest.mark.parametrize(("overrides", "expected"), [
    ((), "monitor"),  # RNP's penalty
    (("model.losses.sparsity.mode=constraint",), "feasible"),
    (("model.losses.sparsity.mode=constraint", "trainer.selection=monitor"), "monitor"),  # said, so kept
    (("trainer.selection=accuracy_in_band",), "accuracy_in_band"),
    (("model=hardkuma",), "monitor"),  # its L0 constraint is an inequality: no rate to be *at*
])
def test_auto_selection_keeps_the_best_feasible_epoch_of_a_constrained_run(tiny_beer_dir, tmp_path, overrides,
                                                                          expected):
    from pyhighlights.config.compose import compose_config
    from pyhighlights.testing import tiny_overrides
    from pyhighlights.training.callbacks import FeasibleCheckpoint
    from pyhighlights.training.run import Experiment, checkpoint_selection, resolve_specs

    exp = Experiment(resolve_specs(compose_config(tiny_overrides(tiny_beer_dir, *overrides))))
    model = exp.model()
    assert checkpoint_selection(exp.settings, model) == expected
    feasible = [c for c in exp.trainer(tmp_path, model).callbacks if isinstance(c, FeasibleCheckpoint)]
    assert len(feasible) == (expected == "feasible")
    if feasible:
        assert (feasible[0].rule.target, feasible[0].rule.tolerance) == (0.15, 0.005)


@pytest.mark.parametrize(("overrides", "selects"), [
    (("model.losses.sparsity.mode=constraint",), r"feasible \(auto: its sparsity term is a constraint\)"),
    (("trainer.selection=accuracy_in_band",), "accuracy_in_band;"),
])
def test_a_tie_rule_the_selection_would_not_read_is_refused(tiny_beer_dir, overrides, selects):
    from pyhighlights.config.compose import compose_config
    from pyhighlights.config.resolve import ConfigError
    from pyhighlights.testing import tiny_overrides
    from pyhighlights.training.run import Experiment, checkpoint_selection, resolve_specs

    exp = Experiment(resolve_specs(compose_config(tiny_overrides(tiny_beer_dir, *overrides,
                                                                 "trainer.monitor_ties=latest"))))
    with pytest.raises(ConfigError, match=rf"monitor_ties=latest: applies to trainer.selection=monitor .* selects by "
                                          rf"{selects}"):
        checkpoint_selection(exp.settings, exp.model())
    # the monitor rule reads it
    exp = Experiment(resolve_specs(compose_config(tiny_overrides(tiny_beer_dir, *overrides, "trainer.selection=monitor",
                                                                 "trainer.monitor_ties=latest"))))
    assert checkpoint_selection(exp.settings, exp.model()) == "monitor"
