"""scripts/train.py with two CPU processes (ddp_spawn): one run directory, full history, each document once."""
from __future__ import annotations

import csv
import json
import os

from forked_scripts import run_script

from pyhighlights.config.compose import compose_config
from pyhighlights.testing import tiny_overrides


def test_ddp_spawn_run_keeps_the_history_and_predicts_each_test_document_once(tiny_beer_dir, tmp_path):
    run_dir = tmp_path / "ddp"
    overrides = tiny_overrides(tiny_beer_dir, "trainer.max_epochs=2", "trainer.limit_train_batches=3",
                               "trainer.limit_val_batches=2", "trainer.log_every_n_steps=1")
    result = run_script("train.py", *overrides, "trainer.devices=2", "trainer.strategy=ddp_spawn",
                        f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr[-3000:]

    rows = list(csv.DictReader(open(run_dir / "metrics.csv")))
    train_steps = sorted({int(r["step"]) for r in rows if r.get("train/loss")})
    val_epochs = [int(r["epoch"]) for r in rows if r.get("val/loss")]
    assert train_steps == list(range(6))  # 3 batches per process and epoch, 2 epochs, logged every step
    assert val_epochs == [0, 1]
    assert sum(1 for r in rows if r.get("test/accuracy")) == 1

    from pyhighlights.training.run import Experiment, resolve_specs

    corpus = Experiment(resolve_specs(compose_config(overrides))).corpus
    expected = sorted(d.doc_id for d in corpus.test)
    assert len(expected) % 2 == 1  # an odd count: a padding sampler would repeat one document
    ids = [json.loads(line)["id"] for line in (run_dir / "predictions.jsonl").read_text().splitlines()]
    assert sorted(ids) == expected
    written = set(os.listdir(run_dir))
    assert {"checkpoints", "manifest.json", "metrics.csv", "predictions.jsonl", "results.json"} <= written
    assert not {"lightning_logs", "version_0", "version_1", "seed0"} & written  # one directory, no per-rank copies
