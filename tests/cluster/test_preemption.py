"""SLURM's pre-timeout signal in a simulated SLURM job: checkpoint, requeue, and the requeued job resumes."""
from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from forked_scripts import run_script

from pyhighlights.testing import tiny_overrides

ROOT = Path(__file__).resolve().parents[2]

# scripts/train.py, except that before batch 3 of epoch 1 it writes READY and waits for a signal,
# so the test's SIGUSR1 arrives at a known point of training.
WAITING_TRAIN = """
import sys, time
from pathlib import Path
from pyhighlights.training.checkpoints import LastCheckpoint

READY = Path(sys.argv[1])

def on_train_batch_start(self, trainer, module, batch, batch_idx):
    if (trainer.current_epoch, batch_idx) == (1, 3):
        READY.write_text("ready")
        time.sleep(300)

LastCheckpoint.on_train_batch_start = on_train_batch_start
sys.argv = ["scripts/train.py", *sys.argv[2:]]
from pyhighlights.cli.train import main
main()
"""


def wait_for(condition, process, timeout=300.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, f"training ended early:\n{process.communicate()[1][-3000:]}"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_usr1_saves_requeues_and_the_requeued_job_resumes(tiny_beer_dir, tmp_path):
    bin_dir, requeues = tmp_path / "bin", tmp_path / "scontrol.log"
    bin_dir.mkdir()
    # Like SLURM, a requeue ends the running job: the mock records its arguments and kills its caller.
    (bin_dir / "scontrol").write_text(f'#!/bin/sh\necho "$@" >> {requeues}\nkill -9 $PPID\n')
    (bin_dir / "scontrol").chmod(0o755)
    slurm = {"SLURM_JOB_ID": "4242", "SLURM_JOB_NAME": "train", "SLURM_NTASKS": "1", "SLURM_PROCID": "0",
             "SLURM_LOCALID": "0", "SLURM_NODEID": "0", "SLURM_NODELIST": "localhost",
             "PATH": f"{bin_dir}:{os.environ['PATH']}", "OMP_NUM_THREADS": "1"}
    run_dir = tmp_path / "run"
    command = [sys.executable, str(ROOT / "scripts" / "train.py"),
               *tiny_overrides(tiny_beer_dir, "trainer.max_epochs=4", "trainer.limit_val_batches=2"),
               f"hydra.run.dir={run_dir}"]

    ready = tmp_path / "ready"
    job = subprocess.Popen([sys.executable, "-c", WAITING_TRAIN, str(ready), *command[2:]], cwd=ROOT, env={**os.environ, **slurm}, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        wait_for(ready.exists, job)  # in epoch 1, after last.ckpt of epoch 0
        job.send_signal(signal.SIGUSR1)
        job.wait(timeout=300)
    finally:
        job.kill()
        job.communicate()
    assert job.returncode == -signal.SIGKILL
    assert requeues.read_text().split() == ["requeue", "4242"]
    assert (run_dir / "hpc_ckpt_1.ckpt").exists()
    assert not (run_dir / "results.json").exists()

    requeued = run_script("train.py", *command[2:], env={**os.environ, **slurm, "SLURM_RESTART_COUNT": "1"})
    assert requeued.returncode == 0, requeued.stderr[-3000:]
    assert f"resuming from {run_dir / 'hpc_ckpt_1.ckpt'}" in requeued.stdout + requeued.stderr
    assert (run_dir / "results.json").exists()
    rows = list(csv.DictReader(open(run_dir / "metrics.csv")))
    assert [int(r["epoch"]) for r in rows if r.get("val/loss")] == [0, 1, 2, 3]  # continued, not restarted

    # The same command outside a requeue is still refused: the directory holds a run.
    fresh = run_script("train.py", *command[2:], env={**os.environ, **slurm})
    assert fresh.returncode != 0
