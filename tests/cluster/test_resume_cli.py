"""scripts/train.py killed with SIGKILL during epoch 3, then ``resume=<dir>``: the results of an uninterrupted run."""
from __future__ import annotations

import json
import signal
import subprocess

import pytest
from forked_scripts import run_script

from pyhighlights.testing import tiny_overrides

# Makes scripts/train.py SIGKILL its own process when epoch EPOCH reaches batch BATCH
# (after the mid-epoch checkpoint of batch 4): a kill with no chance to clean up.
KILL_AT = """
import os, signal
from pyhighlights.training.checkpoints import LastCheckpoint

def on_train_batch_start(self, trainer, module, batch, batch_idx):
    if (trainer.current_epoch, batch_idx) == ({epoch}, {batch}):
        os.kill(os.getpid(), signal.SIGKILL)

LastCheckpoint.on_train_batch_start = on_train_batch_start
"""


def train(*args: str, kill_at: tuple[int, int] | None = None) -> subprocess.CompletedProcess:
    return run_script("train.py", *args, prelude=KILL_AT.format(epoch=kill_at[0], batch=kill_at[1]) if kill_at else "")


def overrides(data_dir, model):
    extra = ["model.pretrain_epochs=1", "model.decay=0.1", "model.lr=0.001"] if model == "grat" else []
    return tiny_overrides(data_dir, f"model={model}", "trainer.max_epochs=4", "trainer.limit_train_batches=6",
                          "trainer.limit_val_batches=2", "trainer.checkpoint_every_n_steps=2",
                          "trainer.log_every_n_steps=2", *extra)


@pytest.mark.parametrize("model", ["rnp", "grat"])
def test_sigkill_during_epoch_3_then_resume_equals_an_uninterrupted_run(tiny_beer_dir, tmp_path, model):
    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import run

    straight, killed = tmp_path / "straight", tmp_path / "killed"
    run(compose_config(overrides(tiny_beer_dir, model)), straight)  # in this process: one start-up less

    stopped = train(*overrides(tiny_beer_dir, model), f"hydra.run.dir={killed}", kill_at=(2, 5))
    assert stopped.returncode == -signal.SIGKILL
    assert not (killed / "results.json").exists()

    resumed = train(f"resume={killed}")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "last.ckpt" in resumed.stdout + resumed.stderr  # continued from the mid-epoch checkpoint, not from scratch
    for name in ("results.json", "predictions.jsonl", "metrics.csv"):
        assert (killed / name).read_bytes() == (straight / name).read_bytes(), name


def test_resume_refuses_other_overrides_and_shorter_runs(tiny_beer_dir, tmp_path):
    run_dir = tmp_path / "run"
    first = tiny_overrides(tiny_beer_dir, "trainer.limit_train_batches=2", "trainer.max_epochs=2")
    assert train(*first, f"hydra.run.dir={run_dir}", kill_at=(1, 0)).returncode == -signal.SIGKILL
    again = train(*first, f"hydra.run.dir={run_dir}")
    assert again.returncode == 2 and f"resume={run_dir}" in again.stderr  # still refused, with the way out
    for override, message in (("model.lr=0.1", "only trainer.max_epochs"), ("trainer.max_epochs=1", "only train longer")):
        result = train(f"resume={run_dir}", override)
        assert result.returncode == 2 and message in result.stderr, result.stderr[-2000:]
    longer = train(f"resume={run_dir}", "trainer.max_epochs=3")
    assert longer.returncode == 0, longer.stderr[-3000:]
    results = json.loads((run_dir / "results.json").read_text())
    assert json.loads((run_dir / "manifest.json").read_text())["parameters"]["trainer"]["max_epochs"] == 3
    assert results["seeds"]["0"]["test/accuracy"] is not None
    finished = train(f"resume={run_dir}")
    assert finished.returncode == 2 and "finished" in finished.stderr
