"""Fixtures shared across test folders: a tiny synthetic Beer corpus and small model builders."""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_beer_dir(tmp_path_factory):
    """A small corpus in the Lei et al. Beer format (short reviews, few documents)."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    out = tmp_path_factory.mktemp("tiny_beer")
    return write_synthetic_beer(out, seed=3, n_train=120, n_heldout=40, n_test=40, min_length=30, max_length=60)


def tiny_overrides(data_dir, *extra: str) -> list[str]:
    """Hydra overrides for a fast run on ``tiny_beer_dir``."""
    return [
        "dataset=beer", f"dataset.data_dir={data_dir}", "backbone.hidden_size=16", "embeddings.dim=16",
        "trainer.batch_size=16", "trainer.max_epochs=1", "trainer.progress_bar=false", *extra,
    ]
