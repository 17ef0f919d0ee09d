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

    def weighted(self, outputs: Outputs, scale: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
        """(the value reported, its share of the objective): ``weight * scale * value`` unless a term
        computes its share otherwise (a constrained sparsity term)."""
        value = self(outputs)
        return value, self.weight * scale * value

    # A term with state that training changes (a Lagrange multiplier) keeps it here; the model saves it in
    # checkpoints and calls begin_step at the start of every training batch.
    def state_dict(self, shared: bool = False) -> dict | None:
        """``shared``: for a checkpoint (every process calls it together, so the state may be reduced)."""
        return None

    def load_state_dict(self, state: dict) -> None:
        raise TypeError(f"{type(self).__name__} has no state to load")

    def begin_step(self) -> dict[str, float]:
        """A training batch starts: fold the previous one into the term's state; the values to log, by name."""
        return {}

    def begin_fit(self, epoch_length: int) -> None:
        """Training starts (or resumes), ``epoch_length`` training batches an epoch on this process."""


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


def threshold_selection_rate(keep_logit: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """The share of real words whose keep logit is >= 0 (p(keep) >= 0.5): what a threshold evaluation keeps."""
    if not torch.is_floating_point(word_mask):
        word_mask = word_mask.to(keep_logit.dtype)
    return selection_rate((keep_logit.detach() >= 0).to(word_mask.dtype), word_mask)


class SparsityConfig(PaddingConfig):
    target: float = Real(0.15, ge=0.0, le=1.0, description="target selection rate s")
    mode: Literal["penalty", "constraint"] = Param(
        "penalty", description="penalty: weight·|rate - s|; constraint: weight·|rate - s| + λ·(rate - s), the "
                               "Lagrange multiplier λ updated by dual ascent after every training batch (Bastings "
                               "et al., 2019) so the rate converges to s (weight 0: the reference's pure Lagrangian)")
    multiplier_update: Literal["additive", "multiplicative"] = Param(
        "additive", description="constraint mode. additive: λ <- λ + lr·c, λ of either sign, the rate held at s from "
                                "both sides; multiplicative: λ <- λ·exp(lr·c), λ > 0, only rate <= s enforced "
                                "(the reference code's update); c is the moving average of rate - s")
    multiplier_lr: float = Real(0.2, gt=0.0, description="constraint mode: the multiplier's learning rate (the "
                                                          "reference's --lagrange_lr 0.05 is for its multiplicative "
                                                          "update, a relative step)")
    multiplier_init: float = Real(1e-5, description="constraint mode: the initial multiplier (reference --lambda_init "
                                                    "1e-5; > 0 for the multiplicative update)")
    multiplier_decay: float = Real(0.5, ge=0.0, lt=1.0,
                                   description="constraint mode: decay α of the moving average of the violation, "
                                               "c <- α·c + (1 - α)·(rate - s) (reference --lagrange_alpha 0.5)")
    multiplier_max: float = Real(5.0, gt=0.0, description="constraint mode: |λ| is clamped to this bound "
                                                          "(reference --lambda_max 5)")
    multiplier_kp: float = Real(0.0, ge=0.0, description="constraint mode, additive update: the proportional gain; "
                                                      "the λ a loss uses is λ + kp·c (Stooke et al., 2020, PID "
                                                      "Lagrangian), c the moving average of the violation; 0: "
                                                      "dual ascent alone")
    multiplier_rate: Literal["sample", "threshold", "evaluated"] = Param(
        "threshold", description="constraint mode: the rate whose violation moves λ. sample: the training sample's "
                              "(the rate of the objective, as the reference); threshold: the share of real words "
                              "with p(keep) >= 0.5, what a threshold evaluation keeps (the model output "
                              "keep_logit, without the selector's training-time dropout), so λ holds the "
                              "evaluated rate at s; evaluated: the same share read by a second, gradient-free pass "
                              "of the selector path in evaluation mode at the batch's start (no dropout anywhere "
                              "in it, the encoder's included), one more selector forward per batch")
    multiplier_warmup: int = Param(
        0, ge=0, description="constraint mode: the first training batches during which λ stays at multiplier_init "
                             "and their violations are dropped (0: none). While the keep probabilities are still "
                             "diffuse the threshold rate lies far below s however much the sample selects, and "
                             "integrating that deficit winds λ up into an overshoot")
    multiplier_warmup_epochs: int = Param(
        3, ge=0, description="constraint mode: as multiplier_warmup, counted in epochs of the batches in which the "
                             "term trains (after multiplier_warmup batches, if both are set); on the embedded "
                             "corpus 3 held RNP's test rate within 0.006 of s over seeds 0-4, against 0.023 "
                             "without a warm-up (seed 0). Must be below the epochs the term trains in")


class SparsityTerm(LossTerm):
    """|selection rate - s| (Lei et al., 2016, as re-implemented by FR/G-RAT), weighted: the penalty.

    ``mode="constraint"``: the objective's share is ``weight·|rate - s| + λ·(rate - s)``, λ a Lagrange
    multiplier kept by the term (:class:`~pyhighlights.components.multiplier.RateMultiplier`) and moved by
    dual ascent on the violations of the training batches; the value reported stays |rate - s|.

    The penalty is kept beside the multiplier (an augmented Lagrangian; Stooke, Achiam and Abbeel, ICML 2020,
    read dual ascent as integral control and add the proportional part): λ alone reacts only as fast as it
    integrates the violation, and with a Gumbel selector and a continuity term a selection that falls below
    s within the first batches saturates at nothing selected before λ turns (RNP on the embedded corpus,
    pure Lagrangian: nothing selected from batch 20 on while λ fell to -0.5 or -3 in the first epoch).
    ``weight=0`` is the reference's pure Lagrangian.
    """

    roles = PaddingConfig.roles

    def __init__(self, *, weight: float = 1.0, target: float = 0.15, padding: Padding = "excluded",
                 mode: str = "penalty", multiplier_update: str = "additive", multiplier_lr: float = 0.2,
                 multiplier_init: float = 1e-5, multiplier_decay: float = 0.5, multiplier_max: float = 5.0,
                 multiplier_rate: str = "threshold", multiplier_warmup: int = 0, multiplier_warmup_epochs: int = 3,
                 multiplier_kp: float = 0.0, **inputs: str):
        super().__init__(weight=weight, **inputs)
        self.target, self.padding = target, padding
        if mode not in ("penalty", "constraint"):
            raise ValueError(f"sparsity mode: expected penalty or constraint, got {mode!r}")
        if multiplier_rate not in ("sample", "threshold", "evaluated"):
            raise ValueError(f"sparsity multiplier_rate: expected sample, threshold or evaluated, got "
                             f"{multiplier_rate!r}")
        self.multiplier, self.multiplier_rate = None, multiplier_rate
        # multiplier_rate=evaluated: whether the model gave this batch's evaluation-mode rate (at the batch's start)
        self._evaluated_given = False
        if mode == "constraint":
            from pyhighlights.components.multiplier import RateMultiplier

            self.multiplier = RateMultiplier(lr=multiplier_lr, init=multiplier_init, decay=multiplier_decay,
                                             bound=multiplier_max, update=multiplier_update,
                                             warmup=multiplier_warmup, warmup_epochs=multiplier_warmup_epochs,
                                             proportional=multiplier_kp)

    def rate(self, inputs) -> torch.Tensor:
        if self.padding == "counted":
            return padded_selection_rate(inputs["raw_mask"], inputs["word_mask"])
        return selection_rate(inputs["mask"], inputs["word_mask"])

    def value(self, inputs):
        return (self.rate(inputs) - self.target).abs()

    def weighted(self, outputs, scale=1.0):
        # Evaluation runs without gradients and scores the penalty alone: λ·(rate - s) is the training's lever,
        # not a cost of the selection; with λ < 0 it would lower the validation loss of a checkpoint the more it
        # selects beyond s, and the best-loss checkpoint would be picked for it.
        if self.multiplier is None or not torch.is_grad_enabled():
            return super().weighted(outputs, scale)
        inputs = self.read(outputs)
        violation = self.rate(inputs) - self.target
        distance = violation.abs()
        if self.multiplier_rate == "evaluated":
            if not self._evaluated_given:
                raise ValueError("sparsity multiplier_rate=evaluated: the model gave no evaluation-mode selection "
                                 "rate for this batch (a model that selects through select(batch) gives it at each "
                                 "training batch's start)")
        else:
            self.multiplier.record(violation if self.multiplier_rate == "sample" else
                                   self.threshold_rate(outputs, inputs["word_mask"]) - self.target)
        # the penalty's immediate pull toward s plus the multiplier's correction of where the penalty settles
        return distance.detach(), scale * (self.weight * distance + self.multiplier.value * violation)

    @property
    def reads_evaluated_selection(self) -> bool:
        """Whether the model must give this term each training batch's evaluation-mode selection rate."""
        return self.multiplier is not None and self.multiplier_rate == "evaluated"

    def give_evaluated_rate(self, rate: torch.Tensor) -> None:
        """This training batch's rate as the model's evaluation selects it: recorded once, however many times the
        batch evaluates the term (MGR's generators)."""
        self.multiplier.record(rate.detach() - self.target)
        self._evaluated_given = True

    @staticmethod
    def threshold_rate(outputs: Outputs, word_mask: torch.Tensor) -> torch.Tensor:
        # Read by name, not through a role: only this option needs it, and every selection model outputs it.
        if "keep_logit" not in outputs:
            raise ValueError("sparsity multiplier_rate=threshold reads the model output 'keep_logit', which this "
                             f"model does not produce (outputs: {', '.join(sorted(outputs))})")
        # the selector's decision without its training-time dropout where the model gives it: the rate its
        # evaluation keeps (FR and G-RAT drop 0.2 before the selector head; the noisy logits' rate lay 0.03-0.08
        # below the evaluated one on the embedded corpus, and λ pushed on against a deficit that was not there)
        return threshold_selection_rate(outputs.get("decision_keep_logit", outputs["keep_logit"]), word_mask)

    def begin_fit(self, epoch_length):
        if self.multiplier is not None:
            self.multiplier.set_epoch_length(epoch_length)

    def state_dict(self, shared=False):
        return None if self.multiplier is None else self.multiplier.state_dict(shared)

    def load_state_dict(self, state):
        if self.multiplier is None:
            raise ValueError("a checkpoint of sparsity in constraint mode (it holds a multiplier) cannot resume "
                             "sparsity in penalty mode")
        self.multiplier.load_state_dict(state)

    def begin_step(self):
        if self.multiplier is None:
            return {}
        self.multiplier.update()
        self._evaluated_given = False  # a new batch: its rate is still to be given
        logged = {"multiplier": self.multiplier.value}
        if self.multiplier.violation is not None:  # the rate λ just moved on (threshold or sample), for the logs
            logged["multiplier_rate"] = self.target + self.multiplier.violation
        return logged


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
            value, weighted = term.weighted(outputs, scales.get(name, 1.0))
            parts[name] = value.detach()
            total = weighted if total is None else total + weighted
        if total is None:
            raise ValueError("no loss term selected")
        return total, parts

    def state_dict(self, shared: bool = False) -> dict[str, dict[str, float]]:
        """The state of the terms that have one (Lagrange multipliers), by term name."""
        return {name: state for name, term in self.terms.items() if (state := term.state_dict(shared)) is not None}

    def load_state_dict(self, states: Mapping[str, Mapping[str, float]]) -> None:
        for name, state in states.items():
            if name not in self.terms:
                raise ValueError(f"the checkpoint holds the state of loss term {name!r}, which this model does not "
                                 f"have (terms: {', '.join(sorted(self.terms))})")
            self.terms[name].load_state_dict(dict(state))
        missing = sorted(set(self.state_dict()) - set(states))
        if missing:
            raise ValueError(f"the checkpoint holds no state of loss term {missing[0]!r} (was it trained in "
                             f"another mode?)")

    def begin_fit(self, epoch_length: int) -> None:
        for term in self.terms.values():
            term.begin_fit(epoch_length)

    def begin_step(self) -> dict[str, float]:
        """Every term's start of a training batch; the values to log, as ``<term>_<name>``."""
        return {f"{name}_{key}": value for name, term in self.terms.items() for key, value in term.begin_step().items()}


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
