"""Tiny trained runs shared by the evaluation tests (one session, a few seconds of CPU)."""
from __future__ import annotations

from pathlib import Path

import pytest
from evaluation_helpers import train_tiny, write_tiny_corpus


@pytest.fixture(scope="session")
def tiny_runs(tmp_path_factory) -> dict[str, Path]:
    """A tiny synthetic Beer corpus, a second one (other seed), a classifier run and a two-seed RNP run."""
    root = tmp_path_factory.mktemp("tiny_runs")
    corpus = write_tiny_corpus(root / "corpus", seed=0)
    other = write_tiny_corpus(root / "other", seed=1)
    classifier = train_tiny(root / "classifier", corpus, "classifier")
    rnp = train_tiny(root / "rnp", corpus, "rnp", "seeds=[0,1]")
    return {"corpus": corpus, "other": other, "classifier": classifier, "rnp": rnp}
