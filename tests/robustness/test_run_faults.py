"""Training runs (in this process) on faults: recorded states, warnings, checks before training."""
from __future__ import annotations

import json
import logging

import pytest

from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import ConfigError
from pyhighlights.testing import tiny_overrides
from pyhighlights.training.rundir import read_state
from pyhighlights.training.run import Experiment, run


def cfg(data_dir, *extra):
    return compose_config(tiny_overrides(data_dir, *extra))


def test_an_interrupted_run_records_it(tiny_beer_dir, tmp_path, monkeypatch):
    def interrupted(self, seed, out_dir, **overrides):
        raise KeyboardInterrupt

    monkeypatch.setattr(Experiment, "train_seed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(cfg(tiny_beer_dir), tmp_path / "run")
    assert read_state(tmp_path / "run") == "interrupted"


def test_an_unknown_monitor_is_refused_before_the_first_training_step(tiny_beer_dir, tmp_path):
    with pytest.raises(ConfigError, match=r"trainer.monitor: 'val/acc' is not logged .* val/accuracy"):
        run(cfg(tiny_beer_dir, "trainer.monitor=val/acc"), tmp_path / "run")
    assert read_state(tmp_path / "run") == "failed"
    assert not (tmp_path / "run" / "checkpoints").exists() and not (tmp_path / "run" / "results.json").exists()


def test_a_diverging_run_is_warned_about_and_recorded(tiny_beer_dir, tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="pyhighlights"):
        run(cfg(tiny_beer_dir, "model.lr=1e6"), tmp_path / "run")
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    growth = [w for w in results["warnings"]["0"] if w["kind"] == "loss_growth"]
    assert growth and growth[0]["after"] > 100 * growth[0]["before"]
    assert "training loss grew from" in caplog.text
    assert read_state(tmp_path / "run") == "finished"


def test_evaluating_an_unfinished_run_says_so(tiny_beer_dir, tmp_path, caplog):
    from pyhighlights.evaluation.evaluate import evaluate_run

    run(cfg(tiny_beer_dir), tmp_path / "run")
    status = tmp_path / "run" / "status.json"
    status.write_text(json.dumps({**json.loads(status.read_text()), "state": "interrupted"}))
    with caplog.at_level(logging.INFO, logger="pyhighlights.evaluation"):
        _, payload = evaluate_run(tmp_path / "run", split="validation")
    assert payload["run_state"] == "interrupted"
    assert f"{tmp_path / 'run'}: the run is interrupted, not finished" in caplog.text
    assert "reading " + str(tmp_path / "run" / "checkpoints") in caplog.text
