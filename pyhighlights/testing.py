"""Helpers for tests and quick experiments: small corpora and fast overrides."""
from __future__ import annotations

from pathlib import Path


def write_tiny_beer(out_dir: Path) -> Path:
    """A small Lei-format corpus with short reviews: for plumbing tests, not for learning."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(out_dir, seed=3, n_train=400, n_heldout=60, n_test=60, min_length=30, max_length=60)


def write_learnable_beer(out_dir: Path) -> Path:
    """Full-length synthetic reviews, fewer of them: enough signal for a rationaliser to learn in minutes."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(out_dir, seed=3, n_train=1500, n_heldout=100, n_test=100)


def tiny_overrides(data_dir, *extra: str) -> list[str]:
    """Hydra overrides for a fast run on a corpus written by :func:`write_tiny_beer`."""
    return [
        "dataset=beer", f"dataset.data_dir={data_dir}", "backbone.hidden_size=16", "embeddings.dim=16",
        "trainer.batch_size=16", "trainer.max_epochs=1", "trainer.progress_bar=false", *extra,
    ]
