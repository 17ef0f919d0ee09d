"""The GPU benchmark script cannot rot: its CPU dry-run path trains each model for a couple of steps, and without
a GPU its real path refuses with a message instead of measuring nothing quietly."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu.py"


def run_script(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=900)


@pytest.mark.slow  # about two CPU-minutes: three models trained a few steps each in a fresh interpreter
def test_dry_run_measures_every_model(tmp_path):
    out = tmp_path / "gpu.txt"
    result = run_script("--dry-run", "--output", str(out), tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [line.split() for line in out.read_text().splitlines() if not line.startswith(("#", "model"))]
    assert [row[0] for row in rows] == ["grat", "fr", "rnp"]
    for model, precision, rate, peak, speedup in rows:
        assert precision == "32-true" and float(rate) > 0 and peak == "n/a" and speedup == "1.00x"


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is visible: the real path would run")
def test_without_gpu_it_says_so(tmp_path):
    result = run_script("--output", str(tmp_path / "gpu.txt"), tmp_path=tmp_path)
    assert result.returncode == 2
    assert "no CUDA GPU" in result.stderr
    assert not (tmp_path / "gpu.txt").exists()
