"""Task (label prediction) metrics from one confusion matrix."""
from __future__ import annotations

import torch
from torchmetrics import Metric

from pyhighlights.metrics._common import safe_divide


def _confusion_update(preds: torch.Tensor, labels: torch.Tensor, num_classes: int) -> torch.Tensor:
    """Confusion matrix [C, C] (rows: true class, columns: predicted class) of a batch.

    ``preds`` is either class indices [B] or logits/probabilities [B, C]
    (argmax taken).
    """
    if preds.ndim == 2:
        preds = preds.argmax(dim=1)
    if preds.shape != labels.shape:
        raise ValueError(f"preds {tuple(preds.shape)} and labels {tuple(labels.shape)} differ in shape")
    preds, labels = preds.long(), labels.long()
    if preds.numel() and (min(preds.min(), labels.min()) < 0 or max(preds.max(), labels.max()) >= num_classes):
        raise ValueError(f"class indices must lie in [0, {num_classes})")
    flat = torch.bincount(labels * num_classes + preds, minlength=num_classes * num_classes)
    return flat.view(num_classes, num_classes)


def _task_compute(confusion: torch.Tensor) -> dict[str, torch.Tensor]:
    true_pos = confusion.diagonal()
    support = confusion.sum(dim=1)  # examples of each true class
    predicted = confusion.sum(dim=0)  # examples predicted as each class
    per_class_recall = safe_divide(true_pos, support)
    per_class_f1 = safe_divide(2 * true_pos, support + predicted)
    return {
        "accuracy": safe_divide(true_pos.sum(), confusion.sum()),
        # NaN marks classes absent from the labels (recall) or from both labels
        # and predictions (F1); they are left out of the mean, as scikit-learn does.
        "balanced_accuracy": per_class_recall.nanmean(),
        "macro_f1": per_class_f1.nanmean(),
    }


def task_scores(preds: torch.Tensor, labels: torch.Tensor, num_classes: int) -> dict[str, torch.Tensor]:
    r"""Accuracy, balanced accuracy and macro F1 of the label predictions.

    With confusion counts tp_c, support n_c (true class c), predicted count m_c:

    .. math::
        acc = \frac{\sum_c tp_c}{N},\quad
        bal\_acc = \frac{1}{|C_y|}\sum_{c \in C_y} \frac{tp_c}{n_c},\quad
        macro\_F_1 = \frac{1}{|C_{y\hat y}|}\sum_{c \in C_{y\hat y}} \frac{2\,tp_c}{n_c + m_c}

    C_y: classes present in the labels; C_{yŷ}: classes present in labels or
    predictions (scikit-learn's ``balanced_accuracy_score`` and
    ``f1_score(average="macro")`` conventions). The G-RAT reference code
    reports balanced accuracy under the name "acc"; here ``accuracy`` is the
    plain fraction of correct predictions. All are NaN with no example.

    Args:
        preds: [B] predicted class, or [B, C] logits/probabilities.
        labels: [B] true class.
        num_classes: C.

    Example:
        >>> import torch
        >>> preds = torch.tensor([0, 0, 0, 1])
        >>> labels = torch.tensor([0, 0, 1, 1])
        >>> {k: round(v.item(), 3) for k, v in task_scores(preds, labels, 2).items()}
        {'accuracy': 0.75, 'balanced_accuracy': 0.75, 'macro_f1': 0.733}
    """
    return _task_compute(_confusion_update(preds, labels, num_classes))


class TaskScores(Metric):
    """Module form of :func:`task_scores`; state is the confusion matrix (sum-reduced)."""

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    def __init__(self, num_classes: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.num_classes = num_classes
        self.add_state(
            "confusion", default=torch.zeros(num_classes, num_classes, dtype=torch.long), dist_reduce_fx="sum"
        )

    def update(self, preds: torch.Tensor, labels: torch.Tensor) -> None:
        self.confusion += _confusion_update(preds, labels, self.num_classes)

    def compute(self) -> dict[str, torch.Tensor]:
        return _task_compute(self.confusion)
