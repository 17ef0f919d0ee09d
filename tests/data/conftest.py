"""Fixtures of the data tests."""
from __future__ import annotations

from pathlib import Path

import pytest

from corpus_fixture_files import ANNOTATION_LINES, HELDOUT_LINES, TRAIN_LINES, write_text


@pytest.fixture
def lei_dir(tmp_path: Path) -> Path:
    """A hand-made Lei corpus with aspect 1 files (labels worked out in corpus_fixture_files)."""
    write_text(tmp_path / "reviews.aspect1.train.txt", TRAIN_LINES)
    write_text(tmp_path / "reviews.aspect1.heldout.txt", HELDOUT_LINES)
    write_text(tmp_path / "annotations.json", ANNOTATION_LINES)
    return tmp_path
