"""The metrics the training loop logs every validation/test epoch, behind one call."""
from __future__ import annotations

import torch
from torchmetrics import MetricCollection

from pyhighlights.metrics.highlight import HighlightScores
from pyhighlights.metrics.highlight_macro import HighlightMacroScores
from pyhighlights.metrics.sparsity import Sparsity
from pyhighlights.metrics.task import TaskScores

# child name -> prefix put before each of its keys in the flat result
_PREFIXES = {"task": "", "highlight": "highlight_", "highlight_macro": "highlight_", "sparsity": ""}


class RationaleMetrics(MetricCollection):
    """Task, highlight (micro and macro) and sparsity metrics of an SPP model.

    ``update(selection, highlights, word_mask, logits, labels)`` feeds every
    child; ``compute()`` returns one flat dict with the keys ``accuracy``,
    ``balanced_accuracy``, ``macro_f1``, ``highlight_precision``,
    ``highlight_recall``, ``highlight_f1``, ``highlight_iou``,
    ``highlight_macro_precision``, ``highlight_macro_recall``,
    ``highlight_macro_f1``, ``sparsity``, ``sparsity_per_document``,
    ``spans_per_document`` (definitions in the child metrics:
    :class:`TaskScores`, :class:`HighlightScores`,
    :class:`HighlightMacroScores`, :class:`Sparsity`).

    Every child keeps sum-reduced sufficient statistics and syncs them in its
    own ``compute()``, so the values under DDP equal one process on all
    documents. ``reset()``, ``.to(device)`` and ``state_dict()`` are the
    ``MetricCollection`` ones.

    Example:
        >>> import torch
        >>> metrics = RationaleMetrics(num_classes=2)
        >>> metrics.update(
        ...     selection=torch.tensor([[1, 0, 1]]), highlights=torch.tensor([[1, 1, -1]]),
        ...     word_mask=torch.tensor([[1, 1, 1]]), logits=torch.tensor([[0.2, 0.8]]),
        ...     labels=torch.tensor([1]))
        >>> out = metrics.compute()
        >>> out["accuracy"].item(), out["highlight_recall"].item(), round(out["sparsity"].item(), 3)
        (1.0, 0.5, 0.667)
    """

    def __init__(self, num_classes: int, **metric_kwargs) -> None:
        # metric_kwargs (e.g. sync_on_compute, process_group) go to every child Metric.
        super().__init__(
            {
                "task": TaskScores(num_classes, **metric_kwargs),
                "highlight": HighlightScores(**metric_kwargs),
                "highlight_macro": HighlightMacroScores(**metric_kwargs),
                "sparsity": Sparsity(**metric_kwargs),
            },
            # The children share no state, so looking for compute groups would
            # only cost a state comparison on the first update.
            compute_groups=False,
        )

    def _child_inputs(self, selection, highlights, word_mask, logits, labels) -> dict[str, tuple]:
        return {
            "task": (logits, labels),
            "highlight": (selection, highlights, word_mask),
            "highlight_macro": (selection, highlights, word_mask),
            "sparsity": (selection, word_mask),
        }

    def _flatten(self, results: dict[str, dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
        return {_PREFIXES[child] + key: value for child, values in results.items() for key, value in values.items()}

    def update(  # type: ignore[override]
        self,
        selection: torch.Tensor,
        highlights: torch.Tensor,
        word_mask: torch.Tensor,
        logits: torch.Tensor,
        labels: torch.Tensor,
    ) -> None:
        for child, inputs in self._child_inputs(selection, highlights, word_mask, logits, labels).items():
            self._modules[child].update(*inputs)

    def forward(  # type: ignore[override]
        self,
        selection: torch.Tensor,
        highlights: torch.Tensor,
        word_mask: torch.Tensor,
        logits: torch.Tensor,
        labels: torch.Tensor,
    ) -> dict[str, torch.Tensor]:
        """Accumulate the batch and return the metrics of this batch alone."""
        inputs = self._child_inputs(selection, highlights, word_mask, logits, labels)
        return self._flatten({child: self._modules[child](*args) for child, args in inputs.items()})

    def compute(self) -> dict[str, torch.Tensor]:
        return self._flatten({child: self._modules[child].compute() for child in _PREFIXES})
