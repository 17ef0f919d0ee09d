"""Fixtures of the SPP-family tests: a tiny corpus for mechanics (learning tests use ``short_learnable_beer_dir``)."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def family_tiny_dir(tmp_path_factory):
    """Short reviews, few of them: for tests of one or a few steps."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(tmp_path_factory.mktemp("family_tiny"), seed=3, n_train=120, n_heldout=40,
                                n_test=40, min_length=30, max_length=60)
