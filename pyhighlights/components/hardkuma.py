"""The HardKuma gate (Bastings, Aziz and Titov, ACL 2019, *Interpretable Neural Predictions with Differentiable
Binary Variables*): a rectified, stretched Kumaraswamy variable per word.

A Kumaraswamy variable k ~ Kuma(a, b) on (0, 1) has CDF F(k) = 1 - (1 - k^a)^b and is sampled by inverting it,
k = (1 - (1 - u)^(1/b))^(1/a) with u uniform, so the sample is a differentiable function of (a, b)
(reparameterisation). Stretched to (l, r) with l < 0 < 1 < r, s = l + (r - l) k, and rectified, z = min(1,
max(0, s)): the gate is exactly 0 with probability P(z = 0) = F((0 - l)/(r - l)), exactly 1 with P(z = 1) = 1 -
F((1 - l)/(r - l)), and continuous in between. P(z != 0) = (1 - t0^a)^b, t0 = -l/(r - l), is the closed-form
expected L0 of one word (paper, section 3).

The arithmetic below is the reference's (github.com/bastings/interpretable_predictions, commit fef6183):
``latent_rationale/nn/kuma.py`` (``Kuma``, ``StretchedVariable``, ``HardBinary``, ``HardKuma``, ``kuma_moments``):
the small constant EPS = 1e-6 inside the log-density and log-CDF, log-CDFs clamped to [log EPS, log(1 - EPS)],
the uniform draw from (0.001, 0.999); ``nn/kuma_gate.py`` ``KumaGate``: a = softplus(Wa h), b = softplus(Wb h),
each clamped to [1e-6, 100], support (-0.1, 1.1); ``common/latent.py``: the training sample and the
deterministic evaluation rule (``DependentLatentModel``, the Beer model: each word's gate also reads a small
recurrent state over the previous words' gates).
"""
from __future__ import annotations

import math
from typing import Literal

import torch
import torch.nn.functional as F
from torch import nn

from pyhighlights.components.selectors import Selection, Selector
from pyhighlights.registry import Configuration, Param, Real

#: The reference's constant inside the log-density and log-CDF and the clamp of every log-CDF (nn/kuma.py EPS).
EPS = 1e-6
#: The reference draws u from (UNIFORM_EPS, 1 - UNIFORM_EPS) (nn/kuma.py Kuma.sample, eps=0.001).
UNIFORM_EPS = 1e-3
#: The bounds of a and b (nn/kuma_gate.py: "extreme values could result in NaNs").
SHAPE_MIN, SHAPE_MAX = 1e-6, 100.0
#: softplus^-1(0.2): the bias of b in the "open" initialisation
OPEN_B_BIAS = math.log(math.expm1(0.2))


def _clamp_log(value: torch.Tensor) -> torch.Tensor:
    return value.clamp(math.log(EPS), math.log(1 - EPS))


def kuma_sample(a: torch.Tensor, b: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """The Kumaraswamy sample at uniform draw ``u``: (1 - (1 - u)^(1/b))^(1/a), differentiable in a and b."""
    return (1.0 - (1.0 - u) ** b.reciprocal()) ** a.reciprocal()


def kuma_log_pdf(a, b, x):
    """log Kuma(x | a, b) = log a + log b + (a - 1) log x + (b - 1) log(1 - x^a), with the reference's EPS terms."""
    return torch.log(a) + torch.log(b) + (a - 1.0 + EPS) * torch.log(x) + \
        (b - 1.0 + EPS) * torch.log(1.0 - (x ** a + EPS))


def kuma_log_cdf(a, b, x):
    """log F(x) = log(1 - (1 - x^a)^b), EPS inside the log, clamped."""
    return _clamp_log(torch.log(1.0 - (1.0 - x ** a) ** b + EPS))


def kuma_mean(a, b):
    """E[k] = b B(1 + 1/a, b) (nn/kuma.py kuma_moments, n = 1)."""
    first = 1.0 + 1.0 / a
    return b * torch.exp(torch.lgamma(first) + torch.lgamma(b) - torch.lgamma(first + b))


class HardKumaDistribution:
    """HardKuma(a, b) with support (low, high): the stretched-and-rectified Kumaraswamy of one gate per entry."""

    def __init__(self, a: torch.Tensor, b: torch.Tensor, low: float = -0.1, high: float = 1.1):
        if not low < 0.0 < 1.0 < high:
            raise ValueError(f"HardKuma support: expected low < 0 and high > 1, got ({low}, {high})")
        self.a, self.b, self.low, self.scale = a, b, low, high - low

    def _shrunk(self, x):
        return (x - self.low) / self.scale

    def sample(self, u: torch.Tensor) -> torch.Tensor:
        """z = hardtanh(low + scale * k), k the Kumaraswamy sample at ``u``."""
        return F.hardtanh(kuma_sample(self.a, self.b, u) * self.scale + self.low, min_val=0.0, max_val=1.0)

    def stretched_log_cdf(self, x):
        return _clamp_log(kuma_log_cdf(self.a, self.b, self._shrunk(x)))

    def stretched_log_pdf(self, x):
        return kuma_log_pdf(self.a, self.b, self._shrunk(x)) - math.log(self.scale)

    def log_prob_zero(self) -> torch.Tensor:
        """log P(z = 0): the stretched variable's mass below 0."""
        return self.stretched_log_cdf(torch.zeros_like(self.a))

    def prob_zero(self) -> torch.Tensor:
        return self.log_prob_zero().exp()

    def prob_one(self) -> torch.Tensor:
        """P(z = 1) = 1 - the stretched CDF at 1."""
        return 1.0 - self.stretched_log_cdf(torch.ones_like(self.a)).exp()

    def log_pdf(self, x: torch.Tensor) -> torch.Tensor:
        """The reference's ``HardBinary.log_pdf``: log P(z = 0) at 0, log P(z = 1) at 1, and in (0, 1) the
        stretched density itself (the reference does not scale it by the continuous mass)."""
        log_p = torch.where(x == 0.0, self.log_prob_zero(), torch.log(self.prob_one()))
        return torch.where((0.0 < x) & (x < 1.0), self.stretched_log_pdf(x), log_p)

    def log_cdf(self, x: torch.Tensor) -> torch.Tensor:
        return _clamp_log(torch.where(x < 1.0, self.stretched_log_cdf(x), torch.zeros_like(x * self.a)))

    def mean(self) -> torch.Tensor:
        """The reference's ``HardKuma.mean``: the *unstretched* Kumaraswamy mean (what its evaluation rule uses)."""
        return kuma_mean(self.a, self.b)

    def deterministic(self) -> torch.Tensor:
        """The reference's evaluation rule: 0 if P(z=0) > P(z=1), else 1; the Kumaraswamy mean where the
        continuous outcome is more likely than either."""
        p0, p1 = self.prob_zero(), self.prob_one()
        pc = 1.0 - p0 - p1
        hard = torch.where(p0 > p1, torch.zeros_like(p0), torch.ones_like(p0))
        return torch.where((pc > p0) & (pc > p1), self.mean(), hard)


def uniform_draw(like: torch.Tensor) -> torch.Tensor:
    """u ~ U(0.001, 0.999) of ``like``'s shape, from the global generator (a seeded run repeats it)."""
    return torch.empty_like(like).uniform_(UNIFORM_EPS, 1.0 - UNIFORM_EPS)


class RCNNCell(nn.Module):
    """The bigram RCNN cell of Lei et al. (2016), as the reference's ``nn/rcnn.py RCNNCell`` computes it:
    lambda = sigmoid(Wl x + U h + c), c1' = lambda c1 + (1 - lambda) W1 x, c2' = lambda c2 + (1 - lambda)(c1 + W2 x),
    h' = tanh(c2' + bias). State: (h, c1, c2)."""

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.hidden_size = hidden_size
        self.ih_layer = nn.Linear(input_size, 3 * hidden_size, bias=False)
        self.hh_layer = nn.Linear(hidden_size, hidden_size, bias=True)
        self.bias = nn.Parameter(torch.zeros(hidden_size))

    def initial_state(self, like: torch.Tensor, batch: int):
        return tuple(like.new_zeros(batch, self.hidden_size) for _ in range(3))

    def forward(self, x, state):
        h, c1, c2 = state
        wl, w1, w2 = self.ih_layer(x).chunk(3, dim=-1)
        gate = torch.sigmoid(wl + self.hh_layer(h))
        new_c1 = gate * c1 + (1 - gate) * w1
        new_c2 = gate * c2 + (1 - gate) * (c1 + w2)
        return torch.tanh(new_c2 + self.bias), new_c1, new_c2


class LSTMStateCell(nn.LSTMCell):
    """An LSTM cell with the RCNN cell's state interface (the reference's choice when its encoder is an LSTM)."""

    def initial_state(self, like: torch.Tensor, batch: int):
        return tuple(like.new_zeros(batch, self.hidden_size) for _ in range(2))


HardKumaEvaluation = Literal["reference", "nonzero", "sample"]


class HardKumaSelectorConfig(Configuration):
    support_low: float = Real(-0.1, lt=0.0, description="left end l of the stretched support (nn/kuma_gate.py)")
    support_high: float = Real(1.1, gt=1.0, description="right end r of the stretched support")
    dependent: bool = Param(True, description="each gate also reads a recurrent state over the previous words' "
                                              "gates (the reference's Beer model, --dependent-z)")
    dependent_cell: Literal["rcnn", "lstm"] = Param("rcnn", description="that state's cell: the reference's RCNN "
                                                                        "cell (its Beer encoder) or an LSTM cell")
    dependent_size: int = Param(30, ge=1, description="that state's size (the reference's z_rnn_size)")
    evaluation: HardKumaEvaluation = Param(
        "reference", description="eval-mode gate: reference (0 or 1, whichever is more likely, the Kumaraswamy mean "
                                 "where a continuous value is the most likely: may be fractional); nonzero (that "
                                 "rule, then 1 wherever it is not 0, as the reference's precision counts it); "
                                 "sample (a HardKuma draw)")
    initialisation: Literal["reference", "torch", "open"] = Param(
        "reference", description="the gate's and cell's weights: Glorot uniform with zero biases (the reference's "
                                 "initialize_model_); torch's defaults; or open: the reference's, with b's bias at "
                                 "softplus^-1(0.2), so that training starts from nearly every word kept")


class HardKumaSelector(Selector):
    """A HardKuma gate per word (see the module docstring).

    The selection's logits are [log P(z = 0), log P(z != 0)] per word, so ``keep_probability`` is the
    closed-form expected L0 of each word and ``keep_logit`` its log-odds; the loss terms of
    :mod:`pyhighlights.components.hardkuma_losses` read them. The mask is the gate z in [0, 1] (exactly 0 or 1
    with positive probability); the predictor reads it as a multiplier, and a word counts as selected in the
    highlight metrics where z > 0.5.
    """

    def __init__(self, *, input_size: int, support_low: float = -0.1, support_high: float = 1.1,
                 dependent: bool = True, dependent_cell: str = "rcnn", dependent_size: int = 30,
                 evaluation: str = "reference", initialisation: str = "reference"):
        super().__init__()
        if evaluation not in ("reference", "nonzero", "sample"):
            raise ValueError(f"selector.evaluation: expected reference, nonzero or sample, got {evaluation!r}")
        self.support = (support_low, support_high)
        self.evaluation = evaluation
        self.cell: nn.Module | None = None
        gate_input = input_size
        if dependent:
            cells = {"rcnn": RCNNCell, "lstm": LSTMStateCell}
            if dependent_cell not in cells:
                raise ValueError(f"selector.dependent_cell: expected rcnn or lstm, got {dependent_cell!r}")
            self.cell = cells[dependent_cell](input_size + 1, dependent_size)
            gate_input = input_size + dependent_size
        self.layer_a = nn.Linear(gate_input, 1)
        self.layer_b = nn.Linear(gate_input, 1)
        if initialisation not in ("reference", "torch", "open"):
            raise ValueError(f"selector.initialisation: expected reference, torch or open, got {initialisation!r}")
        if initialisation != "torch":
            for name, p in self.named_parameters():
                if p.dim() > 1:
                    nn.init.xavier_uniform_(p)
                else:
                    nn.init.zeros_(p)
        if initialisation == "open":
            # b = 0.2 at a zero input: P(z != 0) = (1 - t0^a)^b is then above 0.95 for any a near softplus(0)
            nn.init.constant_(self.layer_b.bias, OPEN_B_BIAS)

    def distribution(self, features: torch.Tensor) -> HardKumaDistribution:
        a = F.softplus(self.layer_a(features)).squeeze(-1).clamp(SHAPE_MIN, SHAPE_MAX)
        b = F.softplus(self.layer_b(features)).squeeze(-1).clamp(SHAPE_MIN, SHAPE_MAX)
        return HardKumaDistribution(a, b, *self.support)

    def gate(self, dist: HardKumaDistribution) -> torch.Tensor:
        if self.training or self.evaluation == "sample":
            return dist.sample(uniform_draw(dist.a))
        z = dist.deterministic()
        return (z > 0).to(z.dtype) if self.evaluation == "nonzero" else z

    def forward(self, word_states, word_mask):
        if self.cell is None:
            dist = self.distribution(word_states)
            z, log_p0 = self.gate(dist), dist.log_prob_zero()
        else:
            z, log_p0 = self._dependent(word_states)
        # log P(z != 0) = log(1 - P(z = 0)); P(z = 0) <= 1 - EPS after the reference's clamp, so it is finite.
        logits = torch.stack([log_p0, torch.log1p(-log_p0.exp())], dim=-1)
        return Selection(logits=logits, mask=z * word_mask.to(z.dtype), raw_mask=z)

    def _dependent(self, word_states):
        """Left to right: gate t reads [h_t, state]; the state then reads [h_t, z_t] (common/latent.py
        DependentLatentModel; padded positions are stepped too, as there)."""
        batch = word_states.shape[0]
        state = self.cell.initial_state(word_states, batch)
        gates, log_p0 = [], []
        for h_t in word_states.unbind(dim=1):
            dist = self.distribution(torch.cat([h_t, state[0]], dim=-1))
            z_t = self.gate(dist)
            gates.append(z_t)
            log_p0.append(dist.log_prob_zero())
            state = self.cell(torch.cat([h_t, z_t.unsqueeze(-1)], dim=-1), state)
        return torch.stack(gates, dim=1), torch.stack(log_p0, dim=1)
