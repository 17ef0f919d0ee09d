"""A GPU run on a machine without a GPU stops with one line, before a run directory is made."""
from __future__ import annotations

import os

import pytest
import torch
from forked_scripts import run_script

from pyhighlights.testing import tiny_overrides


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_gpu_accelerator_without_gpu_is_a_one_line_error(tiny_beer_dir, tmp_path):
    run_dir = tmp_path / "run"
    result = run_script("train.py", *tiny_overrides(tiny_beer_dir), "trainer.accelerator=gpu", f"hydra.run.dir={run_dir}",
                        timeout=300)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        line for line in result.stderr.strip().splitlines() if line.startswith("error: trainer.accelerator=gpu")]
    assert "no CUDA GPU" in result.stderr
    assert not any(name in os.listdir(run_dir) for name in ("manifest.json", "results.json", "checkpoints")) \
        if run_dir.exists() else True
