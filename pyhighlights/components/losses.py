"""Loss terms: a name, a weight and a function of its inputs, each input a role.

A model's objective is the weighted sum of its terms (:class:`LossSet`); each
term is reported under its name. A term declares the roles of its inputs
(a divergence reads ``p`` and ``q``, cross-entropy ``logits`` and ``labels``)
and has one field per role naming the model output it reads there; a role's
field defaults to the role's own name. A model binds the roles of the terms in
its slots through its part defaults (``defaults = {"losses": {"divergence":
{"p": "logits", "q": "full_logits"}}}``); every divergence has the same two
roles, so swapping one for another in a slot keeps the slot's wiring.
"""
from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import ClassVar, Literal

import torch
import torch.nn.functional as F

from pyhighlights.registry import Configuration, Param, Real, kind

Outputs = Mapping[str, torch.Tensor]


class WeightOnly(Configuration):
    """A term's parameters. ``roles``: the inputs it reads, each a field naming the model output read
    there (checked against the model's outputs before building)."""

    roles: ClassVar[tuple[str, ...]] = ()
    weight: float = Real(1.0, ge=0.0)


def Role(name: str, description: str):
    """The field of input role ``name``: the model output read in that role (default: the output ``name``)."""
    return Param(name, description=f"{description} (the model output read as {name!r})")


@kind("loss")
class LossTerm:
    """``weight * value(inputs)``; subclasses define :meth:`value` over their ``roles``.

    ``inputs`` maps each role to the model output read there (a role not given reads the output of its own
    name); :meth:`read` picks a term's inputs out of a model's outputs.
    """

    roles: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *, weight: float = 1.0, **inputs: str):
        unknown = sorted(set(inputs) - set(self.roles))
        if unknown:
            raise TypeError(f"{type(self).__name__} has no input role {unknown[0]!r}; roles: {', '.join(self.roles)}")
        self.weight = weight
        self.inputs = {role: inputs.get(role, role) for role in self.roles}

    def read(self, outputs: Outputs) -> dict[str, torch.Tensor]:
        # A role the term does not use for its options (the guide term's keep_logit by default) may be absent.
        return {role: outputs[name] for role, name in self.inputs.items() if name in outputs}

    @abstractmethod
    def value(self, inputs: Outputs) -> torch.Tensor:
        """The unweighted scalar term from the term's inputs, by role."""

    def __call__(self, outputs: Outputs) -> torch.Tensor:
        """The unweighted value on a model's ``outputs``."""
        return self.value(self.read(outputs))


class CrossEntropyConfig(WeightOnly):
    roles = ("logits", "labels")
    logits: str = Role("logits", "the class logits")
    labels: str = Role("labels", "the gold labels")


class CrossEntropyTerm(LossTerm):
    roles = CrossEntropyConfig.roles

    def value(self, inputs):
        return F.cross_entropy(inputs["logits"], inputs["labels"])


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
    roles = ("mask", "word_mask", "raw_mask")
    mask: str = Role("mask", "the selection, real words only")
    word_mask: str = Role("word_mask", "1 on real words")
    raw_mask: str = Role("raw_mask", "the selector's raw sample, padding included")
    padding: Padding = Param("excluded", description="excluded: real words only; counted: the raw selection over "
                                                     "the padded width, as the G-RAT reference code")


class SparsityConfig(PaddingConfig):
    target: float = Real(0.15, ge=0.0, le=1.0, description="target selection rate s")


class SparsityTerm(LossTerm):
    """|selection rate - s| (Lei et al., 2016, as re-implemented by FR/G-RAT)."""

    roles = PaddingConfig.roles

    def __init__(self, *, weight: float = 1.0, target: float = 0.15, padding: Padding = "excluded", **inputs: str):
        super().__init__(weight=weight, **inputs)
        self.target, self.padding = target, padding

    def value(self, inputs):
        if self.padding == "counted":
            rate = padded_selection_rate(inputs["raw_mask"], inputs["word_mask"])
        else:
            rate = selection_rate(inputs["mask"], inputs["word_mask"])
        return (rate - self.target).abs()


class ContinuityTerm(LossTerm):
    roles = PaddingConfig.roles

    def __init__(self, *, weight: float = 1.0, padding: Padding = "excluded", **inputs: str):
        super().__init__(weight=weight, **inputs)
        self.padding = padding

    def value(self, inputs):
        if self.padding == "counted":
            return padded_continuity(inputs["raw_mask"])
        return continuity(inputs["mask"], inputs["word_mask"])


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
            value = term(outputs)
            parts[name] = value.detach()
            weighted = term.weight * scales.get(name, 1.0) * value
            total = weighted if total is None else total + weighted
        if total is None:
            raise ValueError("no loss term selected")
        return total, parts


class GuideConfig(WeightOnly):
    roles = ("selector_logits", "keep_logit", "keep_target", "word_mask")
    selector_logits: str = Role("selector_logits", "the selector's [drop, keep] logits per word")
    keep_logit: str = Role("keep_logit", "the selector's log-odds of keeping each word")
    keep_target: str = Role("keep_target", "the per-word keep target in [0, 1]")
    word_mask: str = Role("word_mask", "1 on real words")
    logit: Literal["keep_column", "log_odds"] = Param(
        "keep_column", description="keep_column: the selector's raw keep logit (column 1), as the G-RAT reference; "
                                   "log_odds: logit_keep - logit_drop, i.e. BCE on p(keep)")
    average: Literal["padded", "valid"] = Param(
        "padded", description="padded: mean over the padded width, as the G-RAT reference; valid: real words only")


class GuideTerm(LossTerm):
    """BCEWithLogits(selector logit, guide target) per word, averaged (G-RAT, Hu and Yu 2024)."""

    roles = GuideConfig.roles

    def __init__(self, *, weight: float = 1.0, logit: str = "keep_column", average: str = "padded", **inputs: str):
        super().__init__(weight=weight, **inputs)
        self.logit, self.average = logit, average

    def value(self, inputs):
        logit = inputs["selector_logits"][..., 1] if self.logit == "keep_column" else inputs["keep_logit"]
        per_word = F.binary_cross_entropy_with_logits(logit, inputs["keep_target"], reduction="none")
        if self.average == "padded":
            return per_word.mean()
        word_mask = inputs["word_mask"]
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


class DivergenceConfig(WeightOnly):
    """The two roles of every divergence between class distributions: ``p``, the logits that move (the
    gradient flows into them), and ``q``, the reference logits (read detached)."""

    roles = ("p", "q")
    p: str = Role("p", "the logits pulled toward (or, maximised, pushed from) the reference")
    q: str = Role("q", "the reference logits (detached)")


class JSDConfig(DivergenceConfig):
    pass


class JSDTerm(LossTerm):
    """Textbook JSD(softmax(p), softmax(q).detach()), averaged over the batch."""

    roles = DivergenceConfig.roles

    def value(self, inputs):
        p = torch.softmax(inputs["p"], dim=-1)
        q = torch.softmax(inputs["q"].detach(), dim=-1)
        return jensen_shannon(p, q).mean()


class MixtureMatchTerm(JSDTerm):
    """½[KL(M‖P) + KL(M‖Q)] with P = softmax(p), Q = softmax(q) (q detached), averaged over the batch.

    G-RAT's match term as its reference code computes it (the default of ``model=grat``).
    """

    def value(self, inputs):
        log_p = torch.log_softmax(inputs["p"], dim=-1)
        log_q = torch.log_softmax(inputs["q"].detach(), dim=-1)
        return mixture_to_both(log_p, log_q).mean()


class KLConfig(DivergenceConfig):
    maximise: bool = Param(False, description="minimise -KL instead of KL (the value reported is then -KL)")


def kl_divergence(reference_logits: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    """KL(P || Q) per row (natural log), P = softmax(reference_logits), Q = softmax(logits)."""
    log_p = torch.log_softmax(reference_logits, dim=-1)
    log_q = torch.log_softmax(logits, dim=-1)
    return (log_p.exp() * (log_p - log_q)).sum(-1)


class KLTerm(LossTerm):
    """KL(softmax(q).detach() || softmax(p)), averaged over the batch (MCD, MRD): the reference q is the
    first argument, as ``kl_div(log_softmax(p), softmax(q))`` computes it.

    With ``maximise`` the term's value is -KL, so minimising the weighted sum
    increases the divergence (MRD's selector objective).
    """

    roles = DivergenceConfig.roles

    def __init__(self, *, weight: float = 1.0, maximise: bool = False, **inputs: str):
        super().__init__(weight=weight, **inputs)
        self.maximise = maximise

    def value(self, inputs):
        kl = kl_divergence(inputs["q"].detach(), inputs["p"]).mean()
        return -kl if self.maximise else kl


class RepresentationNormConfig(WeightOnly):
    roles = ("representation",)
    representation: str = Role("representation", "a pooled representation per document [B, H]")
    eps: float = Real(1e-6, ge=0.0, description="added to each norm before the log")


class RepresentationNormTerm(LossTerm):
    """-mean log(eps + ||r||_2) over the batch: minimising it lengthens each document's representation r.

    N2R (Liu et al., ICLR 2025, "Breaking Free from MMI: A New Frontier in Rationalization by Probing Input
    Utilization"; github.com/jugechengzi/Rationalization-N2R ``train_util.py`` train_pred_mochang) reads it on
    the predictor's max-pooled states of the rationale, eps 1e-6.
    """

    roles = RepresentationNormConfig.roles

    def __init__(self, *, weight: float = 1.0, eps: float = 1e-6, **inputs: str):
        super().__init__(weight=weight, **inputs)
        self.eps = eps

    def value(self, inputs):
        return -torch.log(self.eps + inputs["representation"].norm(p=2, dim=1)).mean()
