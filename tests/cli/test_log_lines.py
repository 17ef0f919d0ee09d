"""What the per-epoch line and the progress bar say: one name per quantity, no undefined numbers, warm-up epochs
named as such; and Lightning's per-checkpoint weights_only note silenced (only that one)."""
from __future__ import annotations

import logging
import math
from types import SimpleNamespace

from lightning.pytorch.callbacks import TQDMProgressBar

from pyhighlights.training.progress import DocumentsProgressBar, EpochSummary


def _epoch(summary: EpochSummary, module, epoch: int, steps: list[tuple[int, dict]], validation: dict) -> str:
    trainer = SimpleNamespace(current_epoch=epoch, max_epochs=9, is_global_zero=True, sanity_checking=False,
                              callback_metrics={})
    summary.on_train_epoch_start(trainer, module)
    for size, logged in steps:
        trainer.callback_metrics = logged
        summary.on_train_batch_end(trainer, module, None, SimpleNamespace(size=size), 0)
    trainer.callback_metrics = {**trainer.callback_metrics, **validation}
    return summary.line(trainer, module)


def test_the_epoch_line_names_train_selection_rate_and_val_sparsity_apart():
    module = SimpleNamespace(first_scored_epoch=0)
    line = _epoch(EpochSummary(), module, 3, [(30, {"train/loss": 1.0, "train/selection_rate": 0.2}),
                                              (10, {"train/loss": 3.0, "train/selection_rate": 0.6})],
                  {"val/accuracy": 0.75, "val/highlight_f1": math.nan, "val/sparsity": 0.125})
    # means over the epoch's documents: (30*1 + 10*3)/40 = 1.5 and (30*0.2 + 10*0.6)/40 = 0.3
    assert line.split(" s, ", 1)[1] == ("train loss 1.500, train selection rate 0.300, val accuracy 0.750, "
                                        "val highlight F1 –, val sparsity 0.125")
    assert line.startswith("epoch 4/9: ")


def test_a_warm_up_epoch_says_the_rationaliser_is_not_training_yet():
    from pyhighlights.models.grat import GRAT

    module = SimpleNamespace(first_scored_epoch=2, warm_up_description=GRAT.warm_up_description,
                             warm_up_loss=GRAT.warm_up_loss)
    steps = [(20, {"train/guider_loss": 0.5}), (20, {"train/guider_loss": 0.7})]
    line = _epoch(EpochSummary(), module, 1, steps, {"val/accuracy": 0.5, "val/sparsity": 0.624})
    assert line.split(" s, ", 1)[1] == ("warm-up: only the guider trains; the rationaliser is not training yet "
                                        "(from epoch 3), guider loss 0.600")
    assert "selection rate" not in line and "0.624" not in line
    after = _epoch(EpochSummary(), module, 2, [(5, {"train/loss": 1.0, "train/selection_rate": 0.1})], {})
    assert "train loss 1.000" in after and "warm-up" not in after


def test_the_bar_leaves_out_undefined_values_and_names_the_train_selection_rate(monkeypatch):
    logged = {"train/loss": 0.5, "train/selection_rate": 0.25, "val/highlight_f1": math.nan, "val/accuracy": 0.8,
              "v_num": 3}
    monkeypatch.setattr(TQDMProgressBar, "get_metrics", lambda self, trainer, module: dict(logged))
    shown = DocumentsProgressBar().get_metrics(SimpleNamespace(training=False), None)
    assert shown == {"train/loss": 0.5, "train selection rate": 0.25, "val/accuracy": 0.8, "v_num": 3}


def test_only_the_weights_only_note_is_silenced(caplog):
    from pyhighlights.cli.common import quiet_known_warnings

    quiet_known_warnings()
    quiet_known_warnings()  # twice: one filter
    name = "lightning.pytorch.trainer.connectors.checkpoint_connector"
    caplog.set_level(logging.INFO, logger=name)
    logging.getLogger(name).info("`weights_only` was not set, defaulting to `False`.")
    logging.getLogger(name).info("Restoring states from the checkpoint path at x.ckpt")
    assert [r.getMessage() for r in caplog.records if r.name == name] == [
        "Restoring states from the checkpoint path at x.ckpt"]
    assert len(logging.getLogger(name).filters) == 1
