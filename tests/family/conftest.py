"""Fixtures of the SPP-family tests: a tiny corpus for mechanics, a small learnable one for learning tests."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def family_tiny_dir(tmp_path_factory):
    """Short reviews, few of them: for tests of one or a few steps."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(tmp_path_factory.mktemp("family_tiny"), seed=3, n_train=120, n_heldout=40,
                                n_test=40, min_length=30, max_length=60)


@pytest.fixture(scope="session")
def family_learn_dir(tmp_path_factory):
    """Short reviews (30-60 words), ~690 balanced training documents: enough for a seeded learning test."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(tmp_path_factory.mktemp("family_learn"), seed=3, n_train=1000, n_heldout=60,
                                n_test=60, min_length=30, max_length=60)
