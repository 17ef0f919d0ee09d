"""Sparsity and continuity averaged per document, as the Inter-RAT reference computes them.

The project's ``sparsity`` and ``continuity`` terms pool the batch (selected words over the batch's words).
The Inter-RAT reference (github.com/yuelinan/Codes-of-Inter-RAT, commit
416f63ce570a40f054d9f214f6452505a23d0091, ``model.py`` ``InterRAT.forward``, the same arithmetic in ``RNP``)
takes each document's own rate and continuity, then the batch mean:

- ``document_sparsity``: mean_b |k_b / (n_b + 1e-8) - s|, k_b the selected words and n_b the real words of
  document b (``infor_loss``); ``penalty=signed`` drops the absolute value (the reference's ``--abs 0``);
- ``document_continuity``: mean_b sum_t |z_{b,t+1} - z_{b,t}| / (n_b - 1 + 1e-8) over the whole padded width,
  so a selected last word followed by padding counts one jump (``regular``; z is zero on padding).
"""
from __future__ import annotations

from typing import Literal

from pyhighlights.components.losses import LossTerm, Role, WeightOnly
from pyhighlights.registry import Param, Real

#: The reference's eps in both denominators.
EPS = 1e-8


class DocumentTermConfig(WeightOnly):
    roles = ("mask", "word_mask")
    mask: str = Role("mask", "the selection, real words only")
    word_mask: str = Role("word_mask", "1 on real words")


class DocumentSparsityConfig(DocumentTermConfig):
    target: float = Real(0.2, ge=0.0, le=1.0, description="target selection rate s (--alpha_rationle)")
    penalty: Literal["abs", "signed"] = Param("abs", description="abs: mean |rate - s| (--abs 1); signed: mean "
                                                                 "(rate - s) (--abs 0)")


class DocumentSparsityTerm(LossTerm):
    roles = DocumentTermConfig.roles

    def __init__(self, *, weight: float = 1.0, target: float = 0.2, penalty: str = "abs", **inputs: str):
        super().__init__(weight=weight, **inputs)
        if penalty not in ("abs", "signed"):
            raise ValueError(f"document_sparsity penalty: expected abs or signed, got {penalty!r}")
        self.target, self.penalty = target, penalty

    def value(self, inputs):
        mask, words = inputs["mask"], inputs["word_mask"].to(inputs["mask"].dtype)
        gap = (mask * words).sum(dim=1) / (words.sum(dim=1) + EPS) - self.target
        return (gap.abs() if self.penalty == "abs" else gap).mean()


class DocumentContinuityTerm(LossTerm):
    roles = DocumentTermConfig.roles

    def value(self, inputs):
        words = inputs["word_mask"].to(inputs["mask"].dtype)
        mask = inputs["mask"] * words
        jumps = (mask[:, 1:] - mask[:, :-1]).abs().sum(dim=1)
        return (jumps / (words.sum(dim=1) - 1 + EPS)).mean()

