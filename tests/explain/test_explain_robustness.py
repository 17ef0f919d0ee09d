"""Infidelity and sensitivity (Yeh et al., 2019) on word scores, against known answers."""
from __future__ import annotations

import torch
from explain_helpers import LinearPresenceModel, word_batch

from pyhighlights.explain.forward import CaptumForward, batch_fields
from pyhighlights.explain.methods import make_method
from pyhighlights.explain.robustness import presence_noise, word_drop_perturbation, word_infidelity, word_sensitivity

COEF = torch.linspace(-1.0, 1.0, 12)
ROWS = [[3, 5, 7, 2, 9], [4, 1, 8]]


def setup():
    model = LinearPresenceModel(COEF)
    batch = word_batch(ROWS)
    return model, batch, CaptumForward(model, output="logit"), batch.word_mask.float(), torch.ones(2, dtype=torch.long)


def test_infidelity_is_zero_for_exact_scores_at_any_scale_and_positive_otherwise():
    """With f linear in presence, f(x) - f(x - I) = Iᵀc exactly: the coefficients (or any multiple,
    since infidelity is normalised) have zero infidelity; reversed scores do not."""
    torch.manual_seed(0)
    model, batch, forward, keep, target = setup()
    exact = COEF[batch.input_ids] * batch.word_mask
    fields = batch_fields(batch)
    assert word_infidelity(forward, keep, fields, exact, target).abs().max() < 1e-6
    assert word_infidelity(forward, keep, fields, 3.0 * exact, target).abs().max() < 1e-6
    wrong = exact.flip(1) * batch.word_mask
    assert (word_infidelity(forward, keep, fields, wrong, target) > 1e-3).all()


def test_sensitivity_of_feature_ablation_is_bounded_by_the_radius():
    """Ablating word w of a linear model scores c_w·keep_w: scaling presences by 1 ± r changes the
    scores by at most r relatively, and (almost surely) by something."""
    torch.manual_seed(0)
    model, batch, forward, keep, target = setup()
    method = make_method("feature_ablation", model, {"output": "logit"})
    explain = lambda k, f, t: method(k, f, t).scores  # noqa: E731
    values = word_sensitivity(explain, keep, batch_fields(batch), target, n_samples=4, radius=0.02)
    assert values.shape == (2,)
    assert (values > 0).all() and (values <= 0.02 + 1e-6).all()


def test_perturbations_touch_only_real_words():
    torch.manual_seed(0)
    keep = torch.tensor([[1.0, 1.0, 1.0, 0.0]]).repeat(50, 1)
    dropped, rest = word_drop_perturbation(0.5)(keep)
    assert torch.equal(dropped + rest, keep) and torch.all(dropped[:, 3] == 0) and 0 < dropped.mean() < 0.75
    noisy = presence_noise(0.1)(keep)
    assert torch.all(noisy[:, 3] == 0) and torch.all((noisy[:, :3] - 1).abs() <= 0.1)
