"""Helpers for the metric tests (random documents, padding, NaN-aware comparison)."""
from __future__ import annotations

import numpy as np
import torch


def make_documents(n: int, seed: int, num_classes: int = 3, max_len: int = 17) -> list[dict[str, np.ndarray]]:
    """Random documents of lengths 1..max_len as unpadded numpy arrays.

    About one in five is unannotated (all -1), others have some -1 holes;
    scores are rounded to one decimal so that ties occur; selections are
    sometimes empty.
    """
    rng = np.random.default_rng(seed)
    documents = []
    for _ in range(n):
        length = int(rng.integers(1, max_len + 1))
        highlights = (rng.random(length) < 0.35).astype(np.int64)
        if rng.random() < 0.2:
            highlights[:] = -1
        else:
            highlights[rng.random(length) < 0.1] = -1
        selection = (rng.random(length) < rng.choice([0.0, 0.3, 0.6])).astype(np.int64)
        logits = rng.normal(size=num_classes)
        documents.append(
            {
                "selection": selection,
                "highlights": highlights,
                "scores": np.round(rng.random(length), 1),
                "logits": logits,
                "label": int(rng.integers(0, num_classes)),
            }
        )
    return documents


def pad_documents(documents: list[dict[str, np.ndarray]], extra_padding: int = 0) -> dict[str, torch.Tensor]:
    """Stack documents into a padded batch (width = longest + ``extra_padding``).

    Padding gets selection 1 and score 1.0 on purpose: a metric that forgot
    ``word_mask`` would count it.
    """
    width = max(len(d["selection"]) for d in documents) + extra_padding
    batch_size = len(documents)
    batch = {
        "word_mask": torch.zeros(batch_size, width, dtype=torch.long),
        "highlights": torch.full((batch_size, width), -1, dtype=torch.long),
        "selection": torch.ones(batch_size, width, dtype=torch.long),
        "scores": torch.ones(batch_size, width, dtype=torch.float64),
    }
    for row, document in enumerate(documents):
        length = len(document["selection"])
        batch["word_mask"][row, :length] = 1
        batch["highlights"][row, :length] = torch.from_numpy(document["highlights"])
        batch["selection"][row, :length] = torch.from_numpy(document["selection"])
        batch["scores"][row, :length] = torch.from_numpy(document["scores"])
    batch["logits"] = torch.tensor(np.stack([d["logits"] for d in documents]))
    batch["labels"] = torch.tensor([d["label"] for d in documents])
    return batch


def assert_close_dict(actual: dict, expected: dict) -> None:
    """Equal keys and values, NaN equal to NaN."""
    assert set(actual) == set(expected), (sorted(actual), sorted(expected))
    for key, value in expected.items():
        torch.testing.assert_close(
            torch.as_tensor(actual[key]).double().cpu(), torch.as_tensor(value).double(), equal_nan=True, msg=key
        )
