"""Tiny trained runs shared by the evaluation tests (one session, a few seconds of CPU).

A module with its own name rather than conftest.py (several test folders have
one, and ``import conftest`` must stay unambiguous): test modules import the
fixture. The runs are built once per session even though several modules
import the fixture (pytest registers it once per module).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from evaluation_helpers import train_tiny, write_tiny_corpus

_BUILT: dict[str, Path] = {}


@pytest.fixture(scope="session")
def tiny_runs(tmp_path_factory) -> dict[str, Path]:
    """A tiny synthetic Beer corpus, a second one (other seed), a classifier run and a two-seed RNP run."""
    if not _BUILT:
        root = tmp_path_factory.mktemp("tiny_runs")
        corpus = write_tiny_corpus(root / "corpus", seed=0)
        _BUILT.update(corpus=corpus, other=write_tiny_corpus(root / "other", seed=1),
                      classifier=train_tiny(root / "classifier", corpus, "classifier"),
                      rnp=train_tiny(root / "rnp", corpus, "rnp", "seeds=[0,1]"))
    return dict(_BUILT)
