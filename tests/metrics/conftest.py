"""Shared fixtures for the metric tests: one hand-counted batch and random documents."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from metrics_test_helpers import make_documents


@pytest.fixture
def hand_batch() -> dict[str, torch.Tensor]:
    """Four documents of lengths 6, 4, 3, 5 padded to W = 6.

    doc0: fully annotated, selection hits 2 highlights, misses 1, adds 1.
    doc1: annotated except position 2 (-1); the selection also covers the
          padding (positions 4, 5), which must be ignored.
    doc2: no annotation at all (all -1): skipped by highlight metrics.
    doc3: annotated with one highlight, empty selection.
    Hand counts are written next to the tests that use them.
    """
    return {
        "word_mask": torch.tensor(
            [[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 0]]
        ),
        "highlights": torch.tensor(
            [
                [1, 1, 0, 0, 1, 0],
                [0, 1, -1, 1, -1, -1],
                [-1, -1, -1, -1, -1, -1],
                [1, 0, 0, 0, 0, -1],
            ]
        ),
        "selection": torch.tensor(
            [[1, 0, 0, 1, 1, 0], [0, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]
        ),
    }


@pytest.fixture
def documents() -> list[dict[str, np.ndarray]]:
    return make_documents(40, seed=0)
