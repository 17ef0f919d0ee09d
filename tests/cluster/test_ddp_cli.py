"""scripts/train.py with two CPU processes (ddp_spawn, ddp): one run directory, full history, each test
document once, and the results of one process trained on the same global batches.

Rank r trains, at step k, on batch 2k + r of the epoch's global batch list; the single-process reference
(run in this process, its sampler replaced) trains, at step k, on batches 2k and 2k + 1 together. A doubled
batch size would not do: the batch list is cut, bucketed and shuffled per batch size. The two can agree to rounding only where the
processes' gradients average to the global batch's gradient: the full-input classifier with dropout
off draws no random numbers (each DDP process draws its own dropout masks and Gumbel noise, which one
process over the global batch cannot reproduce), its loss is a mean over documents and every batch is
full, so the mean of two equal halves' gradients is the whole batch's. The rationalisers' DDP
arithmetic, with their noise replaced, is compared with one process in tests/family/test_family_ddp.py
and tests/models/test_grat_ddp.py.
"""
from __future__ import annotations

import csv
import json
import math
import os
from pathlib import Path

import pytest
import torch
from forked_scripts import run_script

from pyhighlights.config.compose import compose_config
from pyhighlights.data.samplers import BucketBatchSampler
from pyhighlights.testing import tiny_overrides

# Both runs' directories are compared whole, plots included (the spawned processes draw theirs).
pytestmark = pytest.mark.plots

BATCH = 14  # divides the tiny corpus's 252 training documents: every batch is full


def overrides(data_dir) -> list[str]:
    return tiny_overrides(data_dir, "model=classifier", "backbone.dropout=0", "model.predictor.dropout=0",
                          f"trainer.batch_size={BATCH}", "trainer.max_epochs=2", "trainer.limit_train_batches=3",
                          "trainer.log_every_n_steps=1")


class BothRanksBatches(BucketBatchSampler):
    """One process, the batches of a 2-process run: step k trains on rank 0's and rank 1's k-th batches."""

    def __init__(self, *args, rank: int = 0, world_size: int = 1, **kwargs):
        assert world_size == 1
        super().__init__(*args, rank=0, world_size=2, **kwargs)

    def __iter__(self):
        batches = self.global_batches(self.epoch)[: 2 * len(self)]
        return iter(batches[k] + batches[k + 1] for k in range(0, len(batches), 2))


@pytest.fixture(scope="module")
def reference(tiny_beer_dir, tmp_path_factory):
    """The single-process run on the global batches, and the corpus's test document ids."""
    from pyhighlights.data import datamodule
    from pyhighlights.training.run import Experiment, resolve_specs, run

    cfg = compose_config(overrides(tiny_beer_dir))
    corpus = Experiment(resolve_specs(cfg)).corpus
    assert len(corpus.train) % BATCH == 0
    run_dir = tmp_path_factory.mktemp("one_process") / "run"
    original = datamodule.BucketBatchSampler
    datamodule.BucketBatchSampler = BothRanksBatches
    try:
        run(cfg, run_dir)
    finally:
        datamodule.BucketBatchSampler = original
    return run_dir, sorted(d.doc_id for d in corpus.test)


def rows(run_dir: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(open(run_dir / "metrics.csv")))


def weights(run_dir: Path) -> dict[str, torch.Tensor]:
    return torch.load(run_dir / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=False)["state_dict"]


def assert_close(a, b, name: str) -> None:
    """Equal to rounding; an empty CSV cell, null and NaN are all "undefined" and must match."""
    a, b = (float("nan") if v in (None, "") else float(v) for v in (a, b))
    assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6), (name, a, b)


# Two training processes started from the command line (a minute or more of CPU each way; plain ddp re-launches the
# script per rank), so both run with the slow tests; tests/family/test_family_ddp.py compares DDP with one process
# for every model in the default set.
@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["ddp_spawn", "ddp"])
def test_two_processes_write_one_run_equal_to_one_process_on_the_global_batches(tiny_beer_dir, tmp_path, reference,
                                                                               strategy):
    one_dir, test_ids = reference
    run_dir = tmp_path / strategy
    result = run_script("train.py", *overrides(tiny_beer_dir), "trainer.devices=2", f"trainer.strategy={strategy}",
                        f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr[-3000:]

    # One directory, written by rank 0; under ddp, rank 1's own Hydra log sits beside rank 0's.
    written = set(os.listdir(run_dir)) - {".hydra", "train.log", "train_ddp_process_1.log"}
    assert written == set(os.listdir(one_dir)), written ^ set(os.listdir(one_dir))

    # The whole history: 3 steps per process and epoch, both validation epochs, one test row.
    history = rows(run_dir)
    assert sorted({int(r["step"]) for r in history if r.get("train/loss")}) == list(range(6))
    assert [int(r["epoch"]) for r in history if r.get("val/loss")] == [0, 1]
    assert sum(1 for r in history if r.get("test/accuracy")) == 1

    # Each test document exactly once (an odd count: a padding sampler would repeat one).
    assert len(test_ids) % 2 == 1
    ids = [json.loads(line)["id"] for line in (run_dir / "predictions.jsonl").read_text().splitlines()]
    assert sorted(ids) == test_ids

    # The results of one process on the same global batches: weights, validation history, test metrics.
    one_weights, two_weights = weights(one_dir), weights(run_dir)
    assert one_weights.keys() == two_weights.keys()
    for name, value in one_weights.items():
        assert torch.allclose(two_weights[name], value, atol=2e-6), name
    one_val = [r for r in rows(one_dir) if r.get("val/loss")]
    two_val = [r for r in history if r.get("val/loss")]
    for one_row, two_row in zip(one_val, two_val, strict=True):
        for name in (k for k in one_row if k.startswith("val/")):
            assert_close(two_row[name], one_row[name], name)
    one_results = json.loads((one_dir / "results.json").read_text())["seeds"]["0"]
    two_results = json.loads((run_dir / "results.json").read_text())["seeds"]["0"]
    assert one_results.keys() == two_results.keys()
    for name, value in one_results.items():
        assert_close(two_results[name], value, name)
