"""Fixtures shared across test folders (helpers live in pyhighlights.testing)."""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_beer_dir(tmp_path_factory):
    from pyhighlights.testing import write_tiny_beer

    return write_tiny_beer(tmp_path_factory.mktemp("tiny_beer"))


@pytest.fixture(scope="session")
def learnable_beer_dir(tmp_path_factory):
    from pyhighlights.testing import write_learnable_beer

    return write_learnable_beer(tmp_path_factory.mktemp("learnable_beer"))


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
