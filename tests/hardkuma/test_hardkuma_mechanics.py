"""The HardKuma gate and its constraint terms on hand-computed values (Bastings, Aziz and Titov, 2019)."""
from __future__ import annotations

import math

import pytest
import torch

from pyhighlights.components import hardkuma
from pyhighlights.components.hardkuma import HardKumaDistribution, HardKumaSelector, kuma_log_cdf, kuma_sample
from pyhighlights.components.hardkuma_losses import ExpectedL0Term, ExpectedTransitionsTerm, expected_l0, \
    expected_transitions

T0 = 0.1 / 1.2  # where 0 falls in the unit interval before the stretch to (-0.1, 1.1)
T1 = 1.1 / 1.2  # and where 1 falls


def tensor(*values):
    return torch.tensor(values, dtype=torch.float64)


def test_the_kumaraswamy_cdf_and_its_inverse():
    # F(x) = 1 - (1 - x^a)^b: a = 2, b = 3 at x = 0.5 is 1 - 0.75^3 = 0.578125 (EPS = 1e-6 inside the log)
    assert float(kuma_log_cdf(tensor(2.0), tensor(3.0), tensor(0.5)).exp()) == pytest.approx(0.578125, abs=2e-6)
    # the sample is the inverse CDF: at u = F(0.5) it is 0.5
    assert float(kuma_sample(tensor(2.0), tensor(3.0), tensor(0.578125))) == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("a,b", [(1.0, 1.0), (2.0, 0.5), (0.3, 4.0)])
def test_the_mass_at_zero_and_one(a, b):
    d = HardKumaDistribution(tensor(a), tensor(b))
    # P(z = 0) = F(t0), P(z = 1) = 1 - F(t1), F the Kumaraswamy CDF
    p0, p1 = 1 - (1 - T0 ** a) ** b, (1 - T1 ** a) ** b
    assert float(d.prob_zero()) == pytest.approx(p0, abs=2e-6)
    assert float(d.prob_one()) == pytest.approx(p1, abs=2e-6)


def test_sampled_gates_are_exactly_zero_and_one_as_often_as_the_closed_form_says():
    generator = torch.Generator().manual_seed(0)
    n = 200_000
    u = hardkuma.UNIFORM_EPS + (1 - 2 * hardkuma.UNIFORM_EPS) * torch.rand(n, generator=generator, dtype=torch.float64)
    a, b = torch.full((n,), 2.0, dtype=torch.float64), torch.full((n,), 0.5, dtype=torch.float64)
    z = HardKumaDistribution(a, b).sample(u)
    p0, p1 = 1 - (1 - T0 ** 2) ** 0.5, (1 - T1 ** 2) ** 0.5  # 0.00348 and 0.398
    # three binomial standard errors (the uniform's clipped tails shift each by at most 0.001)
    assert float((z == 0).double().mean()) == pytest.approx(p0, abs=3 * math.sqrt(p0 / n) + 1e-3)
    assert float((z == 1).double().mean()) == pytest.approx(p1, abs=3 * math.sqrt(p1 * (1 - p1) / n) + 1e-3)


def constant_gate(a: float, b: float, **options) -> HardKumaSelector:
    """An independent gate whose shapes are a and b at every word (zero weights, softplus(bias) = a, b)."""
    selector = HardKumaSelector(input_size=3, dependent=False, **options).double()
    with torch.no_grad():
        for layer, value in ((selector.layer_a, a), (selector.layer_b, b)):
            layer.weight.zero_()
            layer.bias.fill_(math.log(math.expm1(value)))
    return selector


def test_the_selection_carries_the_expected_l0_and_never_selects_padding():
    selector = constant_gate(2.0, 0.5)
    word_mask = tensor(1, 1, 1, 0).unsqueeze(0)
    selection = selector(torch.randn(1, 4, 3, dtype=torch.float64), word_mask)
    assert selection.keep_probability[0].tolist() == pytest.approx([(1 - T0 ** 2) ** 0.5] * 4, abs=2e-6)
    assert float(selection.mask[0, 3].detach()) == 0.0
    assert ((selection.mask >= 0) & (selection.mask <= 1)).all()


def test_the_task_gradient_reaches_the_shapes_through_a_continuous_sample(monkeypatch):
    monkeypatch.setattr(hardkuma, "uniform_draw", lambda like: torch.full_like(like, 0.5))
    selector = constant_gate(1.0, 1.0)  # u = 0.5: k = 0.5, z = 0.5 (continuous)
    selection = selector(torch.randn(1, 2, 3, dtype=torch.float64), tensor(1, 1).unsqueeze(0))
    assert selection.mask[0].tolist() == pytest.approx([0.5, 0.5])
    selection.mask.sum().backward()
    assert selector.layer_a.bias.grad.abs().item() > 0 and selector.layer_b.bias.grad.abs().item() > 0


@pytest.mark.parametrize("a,b,reference,nonzero", [
    (1.0, 1.0, 0.5, 1.0),  # P(0) = P(1) = 1/12: the continuous outcome wins, the Kumaraswamy mean 1/2
    (0.1, 5.0, 0.0, 0.0),  # P(0) = 1 - (1 - t0^0.1)^5 = 0.9996: zero
    (5.0, 0.1, 1.0, 1.0),  # P(1) = (1 - t1^5)^0.1 = 0.87: one
])
def test_the_evaluation_rule(a, b, reference, nonzero):
    states, word_mask = torch.zeros(1, 2, 3, dtype=torch.float64), tensor(1, 1).unsqueeze(0)
    for mode, want in (("reference", reference), ("nonzero", nonzero)):
        selector = constant_gate(a, b, evaluation=mode).eval()
        assert selector(states, word_mask).mask[0].tolist() == pytest.approx([want, want], abs=1e-9), mode


def logits_of(nonzero):
    """Selector logits [log P(z = 0), log P(z != 0)] for the given P(z != 0) (a 0 stands for padding)."""
    p = torch.tensor(nonzero, dtype=torch.float64).clamp(1e-9, 1 - 1e-9)
    return torch.stack([torch.log1p(-p), torch.log(p)], dim=-1)


def test_expected_l0_and_transitions_by_hand():
    logits = logits_of([[0.5, 0.25], [1.0, 0.0]])
    word_mask = tensor(1, 1, 1, 0).view(2, 2)
    # per document: (0.5 + 0.25) / 2 and 1 / 1; averaged over the two documents
    assert float(expected_l0(logits, word_mask)) == pytest.approx((0.375 + 1.0) / 2, abs=1e-8)
    # document 1: P(0, !0) + P(!0, 0) = 0.5 x 0.25 + 0.5 x 0.75 = 0.5, over its length 2; document 2's pair ends
    # in padding: 0
    assert float(expected_transitions(logits, word_mask)) == pytest.approx((0.25 + 0.0) / 2, abs=1e-8)


def test_dual_ascent_by_hand():
    logits = logits_of([[0.5, 0.25]]).requires_grad_(True)
    outputs = {"selector_logits": logits, "word_mask": tensor(1, 1).unsqueeze(0)}
    term = ExpectedL0Term(target=0.125, multiplier_init=0.1, multiplier_lr=2.0, smoothing=0.5)
    c_hat = 0.375 - 0.125
    ma, multiplier = 0.0, 0.1
    for _ in range(3):
        ma = 0.5 * ma + 0.5 * c_hat
        multiplier *= math.exp(2.0 * ma)
        value = term(outputs)
        assert (term.moving_average, term.multiplier) == (pytest.approx(ma), pytest.approx(multiplier))
        assert float(value.detach()) == pytest.approx(multiplier * ma)  # the value of the moving average
    # ... and the gradient is the batch constraint's: lambda d/dl1 of mean(softmax(l)[1]) = lambda p (1 - p) / 2
    logits.grad = None
    term(outputs).backward()
    p = torch.tensor([0.5, 0.25], dtype=torch.float64)
    assert logits.grad[0, :, 1].tolist() == pytest.approx((term.multiplier * p * (1 - p) / 2).tolist(), rel=1e-6)
    with torch.no_grad():  # evaluation: nothing moves, the current Lagrangian is reported
        before = term.state_dict()
        assert float(term(outputs)) == pytest.approx(term.multiplier * c_hat)
        assert term.state_dict() == before


def test_the_multiplier_is_clamped_and_shrinks_once_the_constraint_holds():
    outputs = {"selector_logits": logits_of([[0.9, 0.9]]), "word_mask": tensor(1, 1).unsqueeze(0)}
    term = ExpectedL0Term(target=0.1, multiplier_init=1.0, multiplier_lr=10.0, multiplier_max=5.0)
    for _ in range(5):
        term(outputs)
    assert term.multiplier == 5.0
    held = {"selector_logits": logits_of([[0.05, 0.05]]), "word_mask": tensor(1, 1).unsqueeze(0)}
    for _ in range(20):
        term(held)
    assert term.multiplier < 5.0 and term.moving_average < 0


def test_penalty_mode_is_the_expected_value_and_state_round_trips():
    outputs = {"selector_logits": logits_of([[0.5, 0.25]]), "word_mask": tensor(1, 1).unsqueeze(0)}
    penalty = ExpectedTransitionsTerm(target=0.02, mode="penalty")
    assert float(penalty(outputs)) == pytest.approx((0.5 * 0.25 + 0.5 * 0.75) / 2, abs=1e-8)
    assert penalty.multiplier == 1e-5  # untouched
    term, copy = ExpectedL0Term(target=0.1), ExpectedL0Term(target=0.1)
    term(outputs)
    copy.load_state_dict(term.state_dict())
    assert copy.state_dict() == term.state_dict() and copy.multiplier != 1e-5


def test_an_initial_multiplier_outside_its_clamp_is_refused():
    with pytest.raises(ValueError, match="multiplier_init"):
        ExpectedL0Term(target=0.1, multiplier_init=10.0, multiplier_max=5.0)
