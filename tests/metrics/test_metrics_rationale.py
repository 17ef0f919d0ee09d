"""RationaleMetrics: the one-call collection used by the training loop."""
from __future__ import annotations

import math

import torch
from metrics_test_helpers import assert_close_dict, pad_documents

from pyhighlights.metrics import (
    RationaleMetrics,
    highlight_macro_scores,
    highlight_scores,
    sparsity_scores,
    task_scores,
)

KEYS = {
    "accuracy",
    "balanced_accuracy",
    "macro_f1",
    "highlight_precision",
    "highlight_recall",
    "highlight_f1",
    "highlight_iou",
    "highlight_macro_precision",
    "highlight_macro_recall",
    "highlight_macro_f1",
    "sparsity",
    "sparsity_per_document",
    "spans_per_document",
}


def _expected(batch, num_classes):
    """The flat dict assembled by hand from the functional forms."""
    selection, highlights, word_mask = batch["selection"], batch["highlights"], batch["word_mask"]
    out = dict(task_scores(batch["logits"], batch["labels"], num_classes))
    out.update({f"highlight_{k}": v for k, v in highlight_scores(selection, highlights, word_mask).items()})
    out.update({f"highlight_{k}": v for k, v in highlight_macro_scores(selection, highlights, word_mask).items()})
    out.update(sparsity_scores(selection, word_mask))
    return out


def test_keys_and_values_over_batches(documents):
    metrics = RationaleMetrics(num_classes=3)
    for start in range(0, len(documents), 11):
        batch = pad_documents(documents[start : start + 11])
        metrics.update(batch["selection"], batch["highlights"], batch["word_mask"], batch["logits"], batch["labels"])
    out = metrics.compute()
    assert set(out) == KEYS
    assert_close_dict(out, _expected(pad_documents(documents), num_classes=3))


def test_predicted_classes_keywords_forward_and_reset(hand_batch):
    batch = dict(hand_batch, logits=torch.tensor([0, 1, 1, 0]), labels=torch.tensor([0, 1, 0, 0]))
    metrics = RationaleMetrics(num_classes=2)
    # forward: accumulates and returns this batch's values
    batch_values = metrics(
        selection=batch["selection"],
        highlights=batch["highlights"],
        word_mask=batch["word_mask"],
        logits=batch["logits"],
        labels=batch["labels"],
    )
    assert_close_dict(batch_values, _expected(batch, num_classes=2))
    assert_close_dict(metrics.compute(), _expected(batch, num_classes=2))
    assert metrics.compute()["accuracy"].item() == 0.75
    metrics.reset()
    assert metrics["task"].confusion.sum() == 0 and metrics["highlight"].tp == 0


def test_moves_with_to_and_keeps_state_dtypes():
    metrics = RationaleMetrics(num_classes=2).to(torch.device("cpu"))
    assert metrics["highlight_macro"].sums.dtype == torch.float64
    assert metrics["task"].confusion.dtype == torch.long
    if torch.cuda.is_available():
        metrics = metrics.to("cuda")
        batch = {
            "selection": torch.tensor([[1, 0]], device="cuda"),
            "highlights": torch.tensor([[1, -1]], device="cuda"),
            "word_mask": torch.tensor([[1, 1]], device="cuda"),
            "logits": torch.tensor([[0.1, 0.9]], device="cuda"),
            "labels": torch.tensor([1], device="cuda"),
        }
        metrics.update(**batch)
        out = metrics.compute()
        assert out["highlight_precision"].device.type == "cuda" and out["accuracy"].item() == 1.0
        assert math.isclose(out["sparsity"].item(), 0.5)
