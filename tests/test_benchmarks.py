"""The GPU benchmark script cannot rot: its CPU dry-run path trains each model for a couple of steps, and without
a GPU its real path refuses with a message instead of measuring nothing quietly."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import torch
from forked_scripts import run_script as run_forked


def run_script(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """``python benchmarks/gpu.py *args`` in ``tmp_path`` (forked from the warm helper: imports shared)."""
    return run_forked("benchmarks/gpu.py", *args, cwd=tmp_path, timeout=900)


@pytest.mark.slow  # three models trained a few steps each
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
