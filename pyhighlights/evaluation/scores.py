"""Every evaluation metric for a word selection and soft word scores, over batches.

Plausibility (against the human highlights): micro and macro highlight
P/R/F1/IoU, sparsity, spans, ERASER IOU-F1 and AUPRC of the soft scores.
Faithfulness (against a model, ERASER's convention, DeYoung et al., 2020):
comprehensiveness and sufficiency of the selection and their AOPC versions
over the top-k% bins of the soft scores, all anchored on the class the
scoring model predicts from the full input. Which model scores the
probabilities is the caller's choice: ``prob_fn(keep_words) -> [B, C]``.

The parts are the torchmetrics of :mod:`pyhighlights.metrics`, so the totals
are exact sums over batches (and over processes, if ever run under DDP).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from pyhighlights.data.batch import Batch
from pyhighlights.metrics import (AOPC_FRACTIONS, AOPCFaithfulness, Faithfulness, HighlightAUPRC, IouF1,
                                  RationaleMetrics, aopc_probabilities)

ProbFn = Callable[[torch.Tensor], torch.Tensor]


def model_probabilities(model, batch: Batch) -> ProbFn:
    """``keep_words [B, W] -> softmax(model.predict(batch, keep_words))``: the model reads only kept words."""

    def probabilities(keep_words: torch.Tensor) -> torch.Tensor:
        keep = keep_words.to(torch.float32) * batch.word_mask.to(torch.float32)
        return torch.softmax(model.predict(batch, keep).float(), dim=-1)

    return probabilities


class ExplanationScores(nn.Module):
    """Accumulates plausibility and faithfulness metrics; :meth:`compute` gives one flat dict of floats.

    Keys: those of :class:`~pyhighlights.metrics.RationaleMetrics` (task,
    highlight micro/macro, sparsity, spans), ``iou_precision``,
    ``iou_recall``, ``iou_f1``, ``auprc``, ``comprehensiveness``,
    ``sufficiency``, ``aopc_comprehensiveness``, ``aopc_sufficiency``.
    """

    def __init__(self, num_classes: int, fractions: Sequence[float] = AOPC_FRACTIONS):
        super().__init__()
        self.fractions = tuple(fractions)
        self.rationale = RationaleMetrics(num_classes)
        self.iou = IouF1()
        self.auprc = HighlightAUPRC()
        self.faithfulness = Faithfulness()
        self.aopc = AOPCFaithfulness()

    @torch.no_grad()
    def update(self, batch: Batch, selection: torch.Tensor, scores: torch.Tensor, logits: torch.Tensor,
               prob_fn: ProbFn) -> None:
        """One batch: ``selection`` [B, W] 0/1, ``scores`` [B, W], the prediction ``logits`` [B, C]."""
        word_mask = batch.word_mask
        selection = (selection > 0.5).long() * word_mask
        self.rationale.update(selection, batch.highlights, word_mask, logits, batch.labels)
        self.iou.update(selection, batch.highlights, word_mask, batch.highlight_spans)
        self.auprc.update(scores, batch.highlights, word_mask)
        p_full = prob_fn(word_mask)
        self.faithfulness.update(p_full, prob_fn(word_mask * (1 - selection)), prob_fn(selection))
        _, p_removed, p_kept = aopc_probabilities(prob_fn, scores, word_mask, self.fractions)
        self.aopc.update(p_full, p_removed, p_kept)

    def compute(self) -> dict[str, float]:
        values = dict(self.rationale.compute())
        values.update(self.iou.compute())
        values["auprc"] = self.auprc.compute()
        values.update(self.faithfulness.compute())
        values.update(self.aopc.compute())
        return {name: float(value) for name, value in values.items()}
