"""A GPU run on a machine without a GPU stops with one line, before a run directory is made."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from pyhighlights.testing import tiny_overrides

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_gpu_accelerator_without_gpu_is_a_one_line_error(tiny_beer_dir, tmp_path):
    run_dir = tmp_path / "run"
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "train.py"), *tiny_overrides(tiny_beer_dir),
                             "trainer.accelerator=gpu", f"hydra.run.dir={run_dir}"],
                            capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=300)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        line for line in result.stderr.strip().splitlines() if line.startswith("error: trainer.accelerator=gpu")]
    assert "no CUDA GPU" in result.stderr
    assert not any(name in os.listdir(run_dir) for name in ("manifest.json", "results.json", "checkpoints")) \
        if run_dir.exists() else True
