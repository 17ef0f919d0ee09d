"""trainer.<any lightning.Trainer argument>, and the logger= and callbacks= sections, checked before anything is built."""
from __future__ import annotations

import inspect

import lightning.pytorch as pl
import pytest

from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import ConfigError
from pyhighlights.testing import tiny_overrides
from pyhighlights.training.lightning_args import OWNED, settings_fields
from pyhighlights.training.run import Experiment, resolve_specs, run

PASSED = ("trainer.gradient_clip_val=1.0", "trainer.accumulate_grad_batches=2", "trainer.val_check_interval=0.5",
          "trainer.num_sanity_val_steps=0")


def specs(*overrides):
    return resolve_specs(compose_config(list(overrides)))


def refusal(*overrides) -> str:
    with pytest.raises(ConfigError) as error:
        specs(*overrides)
    return str(error.value)


def test_trainer_arguments_reach_lightnings_trainer(tiny_beer_dir, tmp_path):
    exp = Experiment(resolve_specs(compose_config(tiny_overrides(tiny_beer_dir, *PASSED))))
    trainer = exp.trainer(tmp_path, exp.model())
    assert (trainer.gradient_clip_val, trainer.accumulate_grad_batches, trainer.val_check_interval) == (1.0, 2, 0.5)
    assert trainer.max_epochs == 1  # our own settings still apply
    assert trainer.num_sanity_val_steps == 0  # Lightning's default is 2


def test_every_argument_of_the_trainers_signature_is_accepted_unless_the_run_owns_it():
    names = [n for n in inspect.signature(pl.Trainer).parameters if n not in OWNED and n not in settings_fields()]
    accepted = specs(*(f"trainer.{name}=null" for name in names)).trainer
    assert all(name in accepted for name in names)


@pytest.mark.parametrize("override, named", [
    ("trainer.foo=1", "trainer.foo: neither"),
    ("trainer.gradient_clip_vall=1", "did you mean trainer.gradient_clip_val?"),
    ("trainer.max_epoch=2", "did you mean trainer.max_epochs?"),
])
def test_an_unknown_trainer_argument_is_named_with_the_valid_ones(override, named):
    message = refusal(override)
    assert named in message and "\n" not in message
    assert "gradient_clip_val" in message and "selection_band" in message  # both kinds of valid names


@pytest.mark.parametrize("name, instead", [("default_root_dir", "hydra.run.dir"), ("logger", "logger="),
                                           ("callbacks", "callbacks="), ("enable_checkpointing", "save_checkpoints"),
                                           ("enable_progress_bar", "progress_bar")])
def test_arguments_the_run_sets_itself_are_refused_with_what_to_use(name, instead):
    message = refusal(f"trainer.{name}=null")
    assert message.startswith(f"trainer.{name}: set by the run itself") and instead in message


def test_our_settings_keep_their_bounds():
    assert "trainer.max_epochs" in refusal("trainer.max_epochs=0")


def test_one_clipping_threshold():
    assert "model.grad_clip" in refusal("model.grad_clip=1", "trainer.gradient_clip_val=0.5")


def test_accumulation_is_refused_for_a_model_stepping_its_optimisers_before_the_run_is_claimed(tiny_beer_dir,
                                                                                              tmp_path):
    cfg = compose_config(tiny_overrides(tiny_beer_dir, "model=dr",
                                        "trainer.accumulate_grad_batches=2"))
    with pytest.raises(ConfigError, match="trainer.accumulate_grad_batches=2: dr steps its optimisers itself"):
        run(cfg, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_logger_and_callback_presets_are_lightning_classes():
    chosen = specs("logger=tensorboard", "callbacks=[lr_monitor,timer]")
    assert chosen.logger["tensorboard"]["_target_"] == "lightning.pytorch.loggers.TensorBoardLogger"
    assert set(chosen.callbacks) == {"lr_monitor", "timer"}
    assert "logger" in chosen.as_dict() and "logger" not in specs().as_dict()  # recorded only when chosen


@pytest.mark.parametrize("overrides, named", [
    (["+callbacks.mine._target_=no.such.Class"], "callbacks.mine._target_: cannot import"),
    (["+callbacks.mine._target_=lightning.pytorch.loggers.CSVLogger"], "not a Callback subclass"),
    (["callbacks=timer", "+callbacks.timer.durration=1"], "callbacks.timer.durration: not an argument of Timer"),
    (["logger=tensorboard", "+logger.tensorboard.save_dir=/elsewhere"], "logger.tensorboard.save_dir: set by the run"),
    (["logger=mlflow", "+logger.mlflow.tracking_uri=http://x"], "logger.mlflow.tracking_uri: set by the run"),
])
def test_bad_logger_and_callback_entries_are_named(overrides, named):
    assert named in refusal(*overrides)


def test_a_missing_logger_package_names_the_extra(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)
    assert "pip install 'pyhighlights[mlflow]'" in refusal("logger=mlflow")


def test_a_user_callback_is_built_with_its_arguments(tiny_beer_dir, tmp_path):
    cfg = compose_config(tiny_overrides(tiny_beer_dir, "+callbacks.stop._target_=lightning.pytorch.callbacks.Timer",
                                        "+callbacks.stop.duration=00:00:01:00"))
    exp = Experiment(resolve_specs(cfg))
    timers = [c for c in exp.trainer(tmp_path, exp.model()).callbacks if type(c).__name__ == "Timer"]
    assert len(timers) == 1 and timers[0]._duration == 60.0


def test_mlflow_logs_every_metric_into_a_store_inside_the_run_directory(tiny_beer_dir, tmp_path):
    pytest.importorskip("mlflow")
    pytest.importorskip("sqlalchemy")
    trainer = fit_one_batch(tiny_beer_dir, tmp_path, "logger=mlflow")
    from mlflow.tracking import MlflowClient

    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow' / 'mlflow.db'}")
    run = client.get_run(trainer.loggers[1].run_id)
    assert {"val/loss", "val/loss/task", "val/accuracy"} <= set(run.data.metrics)  # a name may extend another
    assert (tmp_path / "metrics.csv").is_file()


def test_wandb_writes_offline_inside_the_run_directory(tiny_beer_dir, tmp_path):
    pytest.importorskip("wandb")
    fit_one_batch(tiny_beer_dir, tmp_path, "logger=wandb")
    assert list(tmp_path.glob("wandb/wandb/offline-run-*/run-*.wandb")) and (tmp_path / "metrics.csv").is_file()


def fit_one_batch(data_dir, out_dir, *overrides):
    exp = Experiment(resolve_specs(compose_config(tiny_overrides(data_dir, *overrides))))
    model = exp.model()
    trainer = exp.trainer(out_dir, model, limit_train_batches=1, limit_val_batches=1, callbacks=[],
                          enable_checkpointing=False)
    trainer.fit(model, datamodule=exp.datamodule(0))
    for logger in trainer.loggers:
        logger.finalize("success")
    return trainer
