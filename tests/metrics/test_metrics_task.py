"""Accuracy, balanced accuracy and macro F1, checked against scikit-learn."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from metrics_test_helpers import assert_close_dict
from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score

from pyhighlights.metrics import TaskScores, task_scores


def _sklearn(preds, labels):
    return {
        "accuracy": accuracy_score(labels, preds),
        "balanced_accuracy": balanced_accuracy_score(labels, preds),
        "macro_f1": f1_score(labels, preds, average="macro"),
    }


def test_hand_counts():
    # labels 0 0 1 1 2, preds 0 1 1 1 0
    # class 0: tp 1, support 2, predicted 2 -> recall 1/2, F1 2/4
    # class 1: tp 2, support 2, predicted 3 -> recall 1,   F1 4/5
    # class 2: tp 0, support 1, predicted 0 -> recall 0,   F1 0
    # class 3: absent everywhere -> left out of both means
    out = task_scores(torch.tensor([0, 1, 1, 1, 0]), torch.tensor([0, 0, 1, 1, 2]), num_classes=4)
    assert_close_dict(
        out, {"accuracy": 3 / 5, "balanced_accuracy": (1 / 2 + 1 + 0) / 3, "macro_f1": (1 / 2 + 4 / 5 + 0) / 3}
    )


@pytest.mark.filterwarnings("ignore::UserWarning")  # sklearn: "y_pred contains classes not in y_true"
def test_random_against_sklearn_with_logits_and_multi_batch():
    rng = np.random.default_rng(2)
    logits = torch.from_numpy(rng.normal(size=(101, 5)))
    labels = torch.from_numpy(rng.integers(0, 4, size=101))  # class 4 never a label, may be predicted
    expected = _sklearn(logits.argmax(1).numpy(), labels.numpy())
    assert_close_dict(task_scores(logits, labels, num_classes=5), expected)

    metric = TaskScores(num_classes=5)
    for start in range(0, 101, 30):
        metric.update(logits[start : start + 30], labels[start : start + 30])
    assert_close_dict(metric.compute(), expected)
    assert metric.confusion.sum() == 101


def test_empty_is_nan_and_bad_class_raises():
    metric = TaskScores(num_classes=3)
    metric.update(torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long))
    assert all(math.isnan(v) for v in metric.compute().values())
    with pytest.raises(ValueError, match="class indices"):
        task_scores(torch.tensor([3]), torch.tensor([0]), num_classes=3)
