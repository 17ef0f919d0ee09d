"""Loss terms: a name, a weight and a function of named tensors.

A model's objective is the weighted sum of its terms (:class:`LossSet`); each
term is reported under its name. Terms read what they need from the model's
output dictionary, so a model only has to produce the named tensors.
"""
from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import ClassVar, Literal

import torch
import torch.nn.functional as F

from pyhighlights.registry import Configuration, Param, Real, kind

Outputs = Mapping[str, torch.Tensor]


@kind("loss")
class LossTerm:
    """``weight * value(outputs)``; subclasses define :meth:`value`."""

    def __init__(self, *, weight: float = 1.0):
        self.weight = weight

    @abstractmethod
    def value(self, outputs: Outputs) -> torch.Tensor:
        """The unweighted scalar term from the model's named outputs."""


class WeightOnly(Configuration):
    """A term's parameters. ``reads``: the model outputs it always reads; ``output_fields``: its
    fields whose values name a model output (checked against the model's outputs before building)."""

    reads: ClassVar[tuple[str, ...]] = ()
    output_fields: ClassVar[tuple[str, ...]] = ()
    weight: float = Real(1.0, ge=0.0)


class CrossEntropyConfig(WeightOnly):
    reads = ("labels",)
    output_fields = ("logits",)
    logits: str = Param("logits", description="name of the logits in the model outputs")


class CrossEntropyTerm(LossTerm):
    def __init__(self, *, weight: float = 1.0, logits: str = "logits"):
        super().__init__(weight=weight)
        self.logits = logits

    def value(self, outputs):
        return F.cross_entropy(outputs[self.logits], outputs["labels"])


def selection_rate(mask: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """Selected real words / real words in the batch (micro)."""
    return (mask * word_mask).sum() / word_mask.sum().clamp(min=1)


def continuity(mask: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """Mean |m_t - m_{t-1}| over pairs of neighbouring real words."""
    pairs = word_mask[:, 1:] * word_mask[:, :-1]
    jumps = (mask[:, 1:] - mask[:, :-1]).abs() * pairs
    return jumps.sum() / pairs.sum().clamp(min=1)


# How padding enters the sparsity and continuity terms. "excluded": only real words count.
# "counted": the selector's raw sample, padding included, over the padded width of the batch -- the
# selected count over the real-word count, and the mean jump over all B x (W - 1) neighbours (the
# arithmetic of the G-RAT reference code, model/model_st.py calculate_loss_).
Padding = Literal["excluded", "counted"]


def padded_selection_rate(raw_mask: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """Selected positions (padding included) / real words."""
    return raw_mask.sum() / word_mask.sum().clamp(min=1)


def padded_continuity(raw_mask: torch.Tensor) -> torch.Tensor:
    """Mean |m_t - m_{t-1}| over every neighbouring pair of the padded width."""
    return (raw_mask[:, 1:] - raw_mask[:, :-1]).abs().mean()


class PaddingConfig(WeightOnly):
    reads = ("mask", "word_mask", "raw_mask")
    padding: Padding = Param("excluded", description="excluded: real words only; counted: the raw selection over "
                                                     "the padded width, as the G-RAT reference code")


class SparsityConfig(PaddingConfig):
    target: float = Real(0.15, ge=0.0, le=1.0, description="target selection rate s")


class SparsityTerm(LossTerm):
    """|selection rate - s| (Lei et al., 2016, as re-implemented by FR/G-RAT)."""

    def __init__(self, *, weight: float = 1.0, target: float = 0.15, padding: Padding = "excluded"):
        super().__init__(weight=weight)
        self.target, self.padding = target, padding

    def value(self, outputs):
        if self.padding == "counted":
            rate = padded_selection_rate(outputs["raw_mask"], outputs["word_mask"])
        else:
            rate = selection_rate(outputs["mask"], outputs["word_mask"])
        return (rate - self.target).abs()


class ContinuityTerm(LossTerm):
    def __init__(self, *, weight: float = 1.0, padding: Padding = "excluded"):
        super().__init__(weight=weight)
        self.padding = padding

    def value(self, outputs):
        if self.padding == "counted":
            return padded_continuity(outputs["raw_mask"])
        return continuity(outputs["mask"], outputs["word_mask"])


class LossSet:
    """The named terms of a model. ``scales`` multiplies named terms (annealing)."""

    def __init__(self, terms: Mapping[str, LossTerm]):
        self.terms = dict(terms)

    def __contains__(self, name: str) -> bool:
        return name in self.terms

    def require(self, names, what: str) -> None:
        missing = [n for n in names if n not in self.terms]
        if missing:
            raise ValueError(f"{what} names loss term(s) {missing} but the model's terms are {sorted(self.terms)}")

    def __call__(self, outputs: Outputs, scales: Mapping[str, float] | None = None,
                 only: set[str] | None = None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        scales = scales or {}
        parts: dict[str, torch.Tensor] = {}
        total = None
        for name, term in self.terms.items():
            if only is not None and name not in only:
                continue
            value = term.value(outputs)
            parts[name] = value.detach()
            weighted = term.weight * scales.get(name, 1.0) * value
            total = weighted if total is None else total + weighted
        if total is None:
            raise ValueError("no loss term selected")
        return total, parts


class GuideConfig(WeightOnly):
    reads = ("selector_logits", "keep_logit", "guide_target", "word_mask")
    logit: Literal["keep_column", "log_odds"] = Param(
        "keep_column", description="keep_column: the selector's raw keep logit (column 1), as the G-RAT reference; "
                                   "log_odds: logit_keep - logit_drop, i.e. BCE on p(keep)")
    average: Literal["padded", "valid"] = Param(
        "padded", description="padded: mean over the padded width, as the G-RAT reference; valid: real words only")


class GuideTerm(LossTerm):
    """BCEWithLogits(selector logit, guide target) per word, averaged (G-RAT, Hu and Yu 2024)."""

    def __init__(self, *, weight: float = 1.0, logit: str = "keep_column", average: str = "padded"):
        super().__init__(weight=weight)
        self.logit, self.average = logit, average

    def value(self, outputs):
        logit = outputs["selector_logits"][..., 1] if self.logit == "keep_column" else outputs["keep_logit"]
        per_word = F.binary_cross_entropy_with_logits(logit, outputs["guide_target"], reduction="none")
        if self.average == "padded":
            return per_word.mean()
        word_mask = outputs["word_mask"]
        return (per_word * word_mask).sum() / word_mask.sum().clamp(min=1)


def jensen_shannon(p: torch.Tensor, q: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    """Jensen-Shannon divergence per row (Lin, 1991; natural log): ½[KL(P‖M) + KL(Q‖M)], M = (P+Q)/2.

    Bounded by log 2 and finite even where P or Q has zeros.
    """
    m = 0.5 * (p + q)
    log_m = m.clamp(min=eps).log()
    kl_pm = (p * (p.clamp(min=eps).log() - log_m)).sum(-1)
    kl_qm = (q * (q.clamp(min=eps).log() - log_m)).sum(-1)
    return 0.5 * (kl_pm + kl_qm)


def mixture_to_both(log_p: torch.Tensor, log_q: torch.Tensor) -> torch.Tensor:
    """½[KL(M‖P) + KL(M‖Q)] per row, M = (P+Q)/2: G-RAT's match term as its reference code computes it.

    The reference (model/common/modules.py) calls ``kl_div(log_softmax(x), M)``, which is KL(M‖softmax(x)).
    Unlike the Jensen-Shannon divergence it is unbounded, and where P and Q disagree its gradient is
    much larger.
    """
    m = 0.5 * (log_p.exp() + log_q.exp())
    log_m = torch.log(m)
    return 0.5 * ((m * (log_m - log_p)).sum(-1) + (m * (log_m - log_q)).sum(-1))


class JSDConfig(WeightOnly):
    output_fields = ("logits", "reference")
    logits: str = Param("logits", description="the distribution pulled toward the reference")
    reference: str = Param("guider_logits", description="the reference distribution (detached)")


class JSDTerm(LossTerm):
    """Textbook JSD(softmax(logits), softmax(reference).detach()), averaged over the batch."""

    def __init__(self, *, weight: float = 1.0, logits: str = "logits", reference: str = "guider_logits"):
        super().__init__(weight=weight)
        self.logits, self.reference = logits, reference

    def value(self, outputs):
        p = torch.softmax(outputs[self.logits], dim=-1)
        q = torch.softmax(outputs[self.reference].detach(), dim=-1)
        return jensen_shannon(p, q).mean()


class MixtureMatchTerm(JSDTerm):
    """½[KL(M‖P) + KL(M‖Q)] with P from ``logits``, Q from ``reference`` (detached), averaged over the batch.

    G-RAT's match term as its reference code computes it (the default of ``model=grat``).
    """

    def value(self, outputs):
        log_p = torch.log_softmax(outputs[self.logits], dim=-1)
        log_q = torch.log_softmax(outputs[self.reference].detach(), dim=-1)
        return mixture_to_both(log_p, log_q).mean()


class KLConfig(WeightOnly):
    output_fields = ("logits", "reference")
    logits: str = Param("logits", description="Q: the distribution that moves (name in the model outputs)")
    reference: str = Param("full_logits", description="P: the reference distribution (detached)")
    maximise: bool = Param(False, description="minimise -KL instead of KL (the value reported is then -KL)")


def kl_divergence(reference_logits: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    """KL(P || Q) per row (natural log), P = softmax(reference_logits), Q = softmax(logits)."""
    log_p = torch.log_softmax(reference_logits, dim=-1)
    log_q = torch.log_softmax(logits, dim=-1)
    return (log_p.exp() * (log_p - log_q)).sum(-1)


class KLTerm(LossTerm):
    """KL(softmax(reference).detach() || softmax(logits)), averaged over the batch (MCD, MRD).

    With ``maximise`` the term's value is -KL, so minimising the weighted sum
    increases the divergence (MRD's selector objective).
    """

    def __init__(self, *, weight: float = 1.0, logits: str = "logits", reference: str = "full_logits",
                 maximise: bool = False):
        super().__init__(weight=weight)
        self.logits, self.reference, self.maximise = logits, reference, maximise

    def value(self, outputs):
        kl = kl_divergence(outputs[self.reference].detach(), outputs[self.logits]).mean()
        return -kl if self.maximise else kl
