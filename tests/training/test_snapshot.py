"""The resume snapshot (last.ckpt) holds the epoch's model-selection decisions, and resume keeps the run tidy."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys

import pytest
import torch

from pyhighlights.config.compose import compose_config
from pyhighlights.testing import tiny_overrides
from pyhighlights.training.checkpoints import remove_unreferenced_best
from pyhighlights.training.resume import RunFinished, check_resumable


@pytest.fixture(scope="module")
def monitored_run(tmp_path_factory):
    """An uninterrupted run whose best checkpoint and early stopping watch val/loss/task."""
    from pyhighlights.data.synthetic import write_synthetic_beer
    from pyhighlights.training.run import run

    base = tmp_path_factory.mktemp("snapshot")
    data = write_synthetic_beer(base / "data", seed=3, n_train=64, n_heldout=32, n_test=32, min_length=20,
                                max_length=40)
    run(compose_config(tiny_overrides(data, "trainer.max_epochs=3", "trainer.monitor=val/loss/task",
                                      "trainer.patience=5")), base / "run")
    return base / "run"


def test_the_last_snapshot_holds_the_selection_state_of_its_own_epoch(monitored_run):
    losses = [float(r["val/loss/task"]) for r in csv.DictReader(open(monitored_run / "metrics.csv"))
              if r.get("val/loss/task")]
    assert len(losses) == 3
    best = min(range(3), key=losses.__getitem__)
    since_best = 2 - best
    states = torch.load(monitored_run / "checkpoints" / "last.ckpt", map_location="cpu",
                        weights_only=False)["callbacks"]
    checkpoint = next(v for k, v in states.items() if k.startswith("WarmupAwareCheckpoint"))
    stopping = next(v for k, v in states.items() if k.startswith("WarmupAwareEarlyStopping"))
    # As of the end of the last epoch: its score was already compared with the best.
    # Epochs are counted from 1 in file names and in results.json.
    assert checkpoint["best_model_path"].endswith(f"best-epoch={best + 1}.ckpt")
    assert float(checkpoint["best_model_score"]) == pytest.approx(losses[best])
    assert float(stopping["best_score"]) == pytest.approx(losses[best])
    assert stopping["wait_count"] == since_best
    assert json.loads((monitored_run / "results.json").read_text())["seeds"]["0"]["best_epoch"] == best + 1


def test_best_checkpoints_the_snapshot_does_not_name_are_removed(tmp_path):
    for name in ("best-epoch=1.ckpt", "best-epoch=2.ckpt", "best-epoch=2-v1.ckpt", "last.ckpt"):
        (tmp_path / name).write_bytes(b"x")
    snapshot = {"callbacks": {"ModelCheckpoint{...}": {"best_model_path": "/elsewhere/best-epoch=1.ckpt"},
                              "EarlyStopping{...}": {"wait_count": 0}}}
    removed = remove_unreferenced_best(tmp_path, snapshot)
    assert sorted(p.name for p in removed) == ["best-epoch=2-v1.ckpt", "best-epoch=2.ckpt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best-epoch=1.ckpt", "last.ckpt"]
    remove_unreferenced_best(tmp_path, None)  # a restart from the beginning keeps none
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.ckpt"]


def write_run(path, state, seeds):
    path.mkdir()
    if state is not None:
        (path / "status.json").write_text(json.dumps({"state": state, "pid": 2 ** 22 + 7, "host": "elsewhere"}))
    (path / "results.json").write_text(json.dumps({"seeds": {str(s): {"test/accuracy": 0.5} for s in seeds}}))


def test_a_run_killed_after_its_last_results_may_be_resumed_a_finished_one_not(tmp_path):
    write_run(tmp_path / "killed", "running", [0, 1])
    check_resumable(tmp_path / "killed", [0, 1])  # plots and the final state still to write
    write_run(tmp_path / "finished", "finished", [0, 1])
    with pytest.raises(RunFinished):
        check_resumable(tmp_path / "finished", [0, 1])
    write_run(tmp_path / "old", None, [0, 1])  # written before runs recorded their state
    with pytest.raises(RunFinished):
        check_resumable(tmp_path / "old", [0, 1])


CALL_TWICE = "from pyhighlights.faults import fault_point\nfault_point('results')\nprint('first')\n" \
             "fault_point('plots')\nfault_point('results')\nprint('second')\n"


@pytest.mark.parametrize("spec, returncode, printed", [
    (None, 0, "first\nsecond\n"),          # unset: no effect
    ("results", -signal.SIGKILL, ""),      # the first time
    ("results:2", -signal.SIGKILL, "first\n"),
    ("plots:2", 0, "first\nsecond\n"),     # reached once only
])
def test_the_fault_hook_kills_at_the_named_occurrence_only(spec, returncode, printed):
    env = {k: v for k, v in os.environ.items() if k != "PYHIGHLIGHTS_FAULT_AT"}
    if spec is not None:
        env["PYHIGHLIGHTS_FAULT_AT"] = spec
    result = subprocess.run([sys.executable, "-c", CALL_TWICE], env=env, capture_output=True, text=True,
                            timeout=60)
    assert (result.returncode, result.stdout) == (returncode, printed), result.stderr


def test_a_misspelt_fault_event_is_refused_with_the_events_named(monkeypatch):
    from pyhighlights.faults import fault_point

    monkeypatch.setenv("PYHIGHLIGHTS_FAULT_AT", "resluts")
    with pytest.raises(ValueError, match="resluts.*claimed.*plots"):
        fault_point("results")
