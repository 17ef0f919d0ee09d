"""Sweeps through Hydra's submitit launcher: run locally, and the SLURM job script it would submit."""
from __future__ import annotations

import csv
import io
import json
import os
import statistics
import subprocess

import pytest
from forked_scripts import run_script

from pyhighlights.testing import tiny_overrides

pytest.importorskip("hydra_plugins.hydra_submitit_launcher")


def script(name: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_script(name, *args, env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})})


@pytest.mark.slow  # a sweep of command-line runs through Hydra's launcher, each a fresh process: a minute of CPU
def test_local_launcher_sweep_and_report(tiny_beer_dir, tmp_path):
    sweep = tmp_path / "sweep"
    result = script("train.py", "-m", "hydra/launcher=local", "seed=0,1",
                    *tiny_overrides(tiny_beer_dir, "trainer.limit_train_batches=4"), f"hydra.sweep.dir={sweep}")
    assert result.returncode == 0, result.stderr[-3000:]
    accuracies = [json.loads((sweep / job / "results.json").read_text())["seeds"][seed]["test/accuracy"]
                  for job, seed in (("0", "0"), ("1", "1"))]

    report = script("report.py", str(sweep), "--format", "csv", "--metrics", "accuracy")
    assert report.returncode == 0, report.stderr
    (row,) = list(csv.DictReader(io.StringIO(report.stdout)))
    assert row["n"] == "2"  # both runs of the sweep, pooled into the model's row
    assert float(row["accuracy_mean"]) == pytest.approx(statistics.fmean(accuracies), abs=1e-6)


def test_slurm_preset_submits_one_array_task_per_run_with_the_requeue_signal(tmp_path):
    bin_dir, record = tmp_path / "bin", tmp_path / "job.sh"
    bin_dir.mkdir()
    # submitit looks for srun, then hands the job script to sbatch: keep the script, submit nothing.
    for name, body in (("srun", "exit 0"), ("sbatch", f'cp "$1" {record}; exit 1')):
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    script("train.py", "-m", "hydra/launcher=slurm", "model=rnp,grat", "seed=0,1,2", "trainer.devices=4",
           "trainer.num_nodes=2", "hydra.launcher.partition=gpu", "hydra.launcher.account=lab",
           f"hydra.sweep.dir={tmp_path / 'sweep'}", env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    lines = set(record.read_text().splitlines())
    for expected in ("#SBATCH --array=0-5%6", "#SBATCH --gpus-per-node=4", "#SBATCH --ntasks-per-node=4",
                     "#SBATCH --nodes=2", "#SBATCH --signal=USR1@90", "#SBATCH --partition=gpu",
                     "#SBATCH --account=lab", "#SBATCH --time=240"):
        assert expected in lines, (expected, sorted(lines))
