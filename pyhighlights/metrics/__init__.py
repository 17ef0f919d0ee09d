"""Metrics of rationales and predictions, as torchmetrics.

Every metric has a functional form (one batch in, values out) and a module
form (``update`` per batch, ``compute`` at the end) built on the same
helpers. Module state is sufficient statistics reduced by sum, so values
under DDP equal single-process values. Undefined values are NaN, never 0,
except in the metrics that carry ERASER's name (IOU-F1, AUPRC, instance-macro
P/R/F1), which follow ERASER's scorer: a zero denominator gives 0 there and
only an empty split gives NaN.
"""
from pyhighlights.metrics.aopc import (
    AOPC_FRACTIONS,
    AOPCFaithfulness,
    aopc_faithfulness,
    aopc_probabilities,
    top_k_masks,
)
from pyhighlights.metrics.auprc import HighlightAUPRC, auprc_per_document, highlight_auprc
from pyhighlights.metrics.faithfulness import Faithfulness, faithfulness_scores
from pyhighlights.metrics.highlight import HighlightScores, highlight_scores
from pyhighlights.metrics.highlight_macro import HighlightMacroScores, highlight_macro_scores
from pyhighlights.metrics.iou_f1 import IouF1, iou_f1_scores
from pyhighlights.metrics.rationale import RationaleMetrics
from pyhighlights.metrics.sparsity import Sparsity, sparsity_scores
from pyhighlights.metrics.task import TaskScores, task_scores

__all__ = [
    "AOPC_FRACTIONS",
    "AOPCFaithfulness",
    "Faithfulness",
    "HighlightAUPRC",
    "HighlightMacroScores",
    "HighlightScores",
    "IouF1",
    "RationaleMetrics",
    "Sparsity",
    "TaskScores",
    "aopc_faithfulness",
    "aopc_probabilities",
    "auprc_per_document",
    "faithfulness_scores",
    "highlight_auprc",
    "highlight_macro_scores",
    "highlight_scores",
    "iou_f1_scores",
    "sparsity_scores",
    "task_scores",
    "top_k_masks",
]
