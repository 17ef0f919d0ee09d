"""kill -9 at every event of a run's life, then ``resume=DIR``: the files of an uninterrupted run, byte for byte.

Each configuration's run is killed over and over, each time at the next event of its life, through the
``PYHIGHLIGHTS_FAULT_AT`` hook (pyhighlights/faults.py: the process SIGKILLs itself when it
reaches the named point, so every kill is repeatable; no timing is guessed). Every resume in a chain
starts from what the previous kill left behind, and the last one runs to the end. Event counts are per
process: ``epoch_end:2`` is the second epoch end the resumed process itself reaches.

results.json, predictions.jsonl and metrics.csv hold no timings or timestamps (status.json and
manifest.json do, and are not compared), so they are compared whole, byte for byte, with a run of the
same configuration that nobody interrupted. A divergence anywhere along a chain persists into these
files (the runs are deterministic), so the final comparison checks every step of it.
"""
from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from forked_scripts import run_script

from pyhighlights.testing import tiny_overrides

pytestmark = pytest.mark.plots  # a killed run's plots are drawn again on resume, as the uninterrupted run's

COMPARED = ("results.json", "predictions.jsonl", "metrics.csv")

# About 48 training documents (the corpus keeps some for validation): three batches of 16 per epoch in one
# process, a mid-epoch snapshot after the second.
COMMON = ("trainer.max_epochs=3", "trainer.log_every_n_steps=1", "trainer.checkpoint_every_n_steps=2")

CONFIGS = {
    # Best checkpoint and early stopping on a chosen monitor (counters in the snapshot; patience 2 never stops
    # a 3-epoch run, but its state is saved and restored all the same).
    "rnp_monitor": ("model=rnp", "trainer.monitor=val/loss/task", "trainer.mode=min", "trainer.patience=2"),
    # Two optimisers, annealing, a guider-only first epoch and the band rule (its previous accuracy in the
    # snapshot); a band this wide keeps every epoch whose balanced accuracy beats the previous epoch's.
    "grat_band": ("model=grat", "model.pretrain_epochs=1", "model.lr=0.01", "trainer.selection=accuracy_in_band",
                  "trainer.selection_floor=0.0", "trainer.selection_band=0.5"),
    # Two phases: the predictor and the selector take turns. Batches padded to their longest document rather
    # than MCD's 256 tokens: a quarter of the recurrent work, and padding width is not what a resume restores.
    "mcd": ("model=mcd", "model.pad_to=null"),
    # Two processes; the test runs in freshly spawned ones.
    "rnp_ddp_spawn": ("model=rnp", "trainer.devices=2", "trainer.strategy=ddp_spawn"),
}

# In the order a run meets them, as one chain: each resumed process counts its own events.
WHOLE_LIFE = (
    "claimed",             # directory and manifest written; no checkpoint: the resume starts from scratch
    "train_batch:3",       # epoch 0's last batch, after its mid-epoch snapshot
    "checkpoint_write:1",  # epoch 0's end snapshot half written: the mid-epoch one is used; best-epoch=0 is stale
    "epoch_end:1",         # epoch 0's end snapshot in place, epoch 1 not begun
    "epoch_start:1",       # epoch 1 begins
    "train_batch:6",       # epoch 2's last batch (the resumed process trains epoch 1 from its start)
    "epoch_end:1",         # the last epoch's snapshot in place: nothing left to train, testing not begun
    "test_batch:1",        # during the test
    "predictions",         # predictions written, results not
    "results",             # results written; plots and the final status not
    "plots:2",             # the plots half drawn
)

# The steps after training do not depend on the model: the whole life once, the training events for the others.
TRAINING_EVENTS = ("train_batch:3", "checkpoint_write:1", "epoch_end:1", "train_batch:6", "epoch_end:1",
                   "test_batch:1")

CHAINS = {
    "rnp_monitor": WHOLE_LIFE,
    "grat_band": TRAINING_EVENTS,
    "mcd": ("train_batch:5", "epoch_end:1", "test_batch:1"),
    # Each process trains one or two batches per epoch; the test runs in newly spawned processes.
    "rnp_ddp_spawn": ("train_batch:2", "epoch_end:1", "test_batch:1"),
}
# Every spawned process imports torch and Lightning again: minutes of CPU for this chain alone.
SLOW = {"rnp_ddp_spawn"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A few dozen short documents: 64 training documents, 16 in each of validation and test."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(tmp_path_factory.mktemp("fault_corpus"), seed=3, n_train=64, n_heldout=32,
                                n_test=32, min_length=20, max_length=40)


def overrides(corpus, name: str) -> list[str]:
    return tiny_overrides(corpus, *COMMON, *CONFIGS[name])


def train(*args: str, fault: str | None = None):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("PYHIGHLIGHTS_FAULT_AT", None)
    if fault is not None:
        env["PYHIGHLIGHTS_FAULT_AT"] = fault
    return run_script("train.py", *args, env=env, timeout=300)


@pytest.fixture(scope="module")
def uninterrupted(corpus, tmp_path_factory):
    """One uninterrupted run per configuration, trained when first asked for."""
    runs: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in runs:
            run_dir = tmp_path_factory.mktemp(f"straight_{name}") / "run"
            result = train(*overrides(corpus, name), f"hydra.run.dir={run_dir}")
            assert result.returncode == 0, result.stderr[-3000:]
            runs[name] = run_dir
        return runs[name]
    return get


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name
                                  for name in CHAINS])
def test_killed_at_each_event_and_resumed_equals_the_uninterrupted_run(corpus, uninterrupted, tmp_path, name):
    run_dir, chain = tmp_path / "run", CHAINS[name]
    first, *rest = chain
    result = train(*overrides(corpus, name), f"hydra.run.dir={run_dir}", fault=first)
    for fault, following in zip(chain, [*rest, None]):
        if name.endswith("ddp_spawn"):
            assert result.returncode != 0, f"the run was not killed at {fault}: it finished"
        else:
            assert result.returncode == -signal.SIGKILL, \
                f"{fault}: expected a SIGKILL there, got exit {result.returncode}\n{result.stderr[-3000:]}"
        result = train(f"resume={run_dir}", fault=following)
    assert result.returncode == 0, result.stderr[-3000:]

    straight = uninterrupted(name)
    for file in COMPARED:
        assert (run_dir / file).read_bytes() == (straight / file).read_bytes(), f"{file} differs after kills at {chain}"
    assert_complete(run_dir, straight)


def assert_complete(run_dir: Path, straight: Path) -> None:
    """Finished, read by the results reader, one best checkpoint, the same plots, no half-written file."""
    from pyhighlights.reporting.reader import read_results
    from pyhighlights.training.rundir import read_state

    assert read_state(run_dir) == "finished"
    skipped: list = []
    assert len(read_results([run_dir], skipped=skipped)) == 1 and not skipped, skipped
    best = sorted(p.name for p in (run_dir / "checkpoints").glob("best-*.ckpt"))
    assert best == sorted(p.name for p in (straight / "checkpoints").glob("best-*.ckpt")) and len(best) <= 1, best
    assert sorted(p.name for p in (run_dir / "plots").iterdir()) == sorted(p.name for p in (straight / "plots").iterdir())
    assert not [p for p in run_dir.rglob("*.tmp")], "a temporary file was left behind"
