"""The seeds a learning test runs over. Its thresholds are set below the worst of seeds 0-4; the default set runs
seed 0 of each learning test, the other seeds are marked ``slow`` (``scripts/test.sh --all`` runs them), which
keeps the default set within CI's time while every seed still runs in the full suite."""
from __future__ import annotations

import pytest

SEEDS = (0, 1, 2)


def seed_marks(seed: int, slow: bool = False) -> list:
    """``slow`` for every seed but the first (for every seed when ``slow``)."""
    return [pytest.mark.slow] if slow or seed != SEEDS[0] else []


def seed_params() -> list:
    return [pytest.param(seed, marks=seed_marks(seed)) for seed in SEEDS]
