"""Runs of scripts/train.py that several tests assert on (trained once per session)."""
from __future__ import annotations

import pytest

from pyhighlights.testing import tiny_overrides


@pytest.fixture(scope="session")
def tiny_cli_run(tiny_beer_dir, tmp_path_factory):
    """One seed, one epoch on the tiny corpus: (run directory, finished process). Tests only read it or rerun into
    it (a rerun is refused and must change nothing)."""
    from test_train_cli import train

    run_dir = tmp_path_factory.mktemp("cli") / "run"
    return run_dir, train(*tiny_overrides(tiny_beer_dir), f"hydra.run.dir={run_dir}")


@pytest.fixture(scope="session")
def two_seed_cli_run(tiny_beer_dir, tmp_path_factory):
    """Seeds 0 and 1 in one run on the tiny corpus: (run directory, finished process)."""
    from test_train_cli import train

    run_dir = tmp_path_factory.mktemp("cli") / "seeds"
    return run_dir, train(*tiny_overrides(tiny_beer_dir), "seeds=[0,1]", f"hydra.run.dir={run_dir}")
