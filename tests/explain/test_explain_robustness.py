"""Infidelity and sensitivity (Yeh et al., 2019) on word scores, against known answers and against captum."""
from __future__ import annotations

import torch
from explain_helpers import LinearPresenceModel, tiny_classifier, word_batch

from pyhighlights.explain.forward import CaptumForward, batch_fields
from pyhighlights.explain.methods import make_method
from pyhighlights.explain.robustness import (document_uniforms, presence_perturbations, word_infidelity,
                                             word_sensitivity)

COEF = torch.linspace(-1.0, 1.0, 12)
ROWS = [[3, 5, 7, 2, 9], [4, 1, 8]]


def setup():
    model = LinearPresenceModel(COEF)
    batch = word_batch(ROWS)
    return model, batch, CaptumForward(model, output="logit"), batch.word_mask.float(), torch.ones(2, dtype=torch.long)


def test_infidelity_is_zero_for_exact_scores_at_any_scale_and_positive_otherwise():
    """With f linear in presence, f(x) - f(x - I) = Iᵀc exactly: the coefficients (or any multiple,
    since infidelity is normalised) have zero infidelity; reversed scores do not."""
    model, batch, forward, keep, target = setup()
    exact = COEF[batch.input_ids] * batch.word_mask
    fields, ids = batch_fields(batch), batch.sample_ids
    assert word_infidelity(forward, keep, fields, exact, target, ids).abs().max() < 1e-6
    assert word_infidelity(forward, keep, fields, 3.0 * exact, target, ids).abs().max() < 1e-6
    wrong = exact.flip(1) * batch.word_mask
    assert (word_infidelity(forward, keep, fields, wrong, target, ids) > 1e-3).all()


def test_sensitivity_of_feature_ablation_is_bounded_by_the_radius():
    """Ablating word w of a linear model scores c_w·keep_w: scaling presences by 1 ± r changes the
    scores by at most r relatively, and (almost surely) by something."""
    model, batch, forward, keep, target = setup()
    method = make_method("feature_ablation", model, {"output": "logit"})
    explain = lambda k, f, t: method(k, f, t).scores  # noqa: E731
    scores = explain(keep, batch_fields(batch), target)
    values = word_sensitivity(explain, keep, batch_fields(batch), target, scores, batch.sample_ids, n_samples=4,
                              radius=0.02)
    assert values.shape == (2,)
    assert (values > 0).all() and (values <= 0.02 + 1e-6).all()


def test_perturbations_touch_only_real_words_and_belong_to_their_document():
    keep = torch.tensor([[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    draws = document_uniforms(5, torch.tensor([7, 9]), torch.tensor([3, 2]), 50, 4, stream=1)
    assert torch.all(draws[0, :, 3] == 0) and torch.all(draws[1, :, 2:] == 0) and 0.3 < draws[0, :, :3].mean() < 0.7
    # document 9 alone, in a wider batch, draws the same numbers
    alone = document_uniforms(5, torch.tensor([9]), torch.tensor([2]), 50, 6, stream=1)
    assert torch.equal(alone[0, :, :2], draws[1, :, :2])
    assert not torch.equal(document_uniforms(6, torch.tensor([9]), torch.tensor([2]), 50, 2, stream=1)[0], alone[0, :, :2])
    noisy = presence_perturbations(keep, torch.tensor([7, 9]), 0, 20, 0.1)
    assert torch.all(noisy[0, :, 3] == 0) and torch.all((noisy[0, :, :3] - 1).abs() <= 0.1)


def _replay(perturbations: torch.Tensor):
    """A captum perturbation function handing back the given [B, S, W] perturbations (captum's row order:
    each document's S samples together)."""
    flat = perturbations.reshape(-1, perturbations.shape[-1])
    return lambda inputs: flat.clone()


def test_infidelity_and_sensitivity_equal_captums_on_the_same_perturbations():
    from captum.metrics import infidelity, sensitivity_max

    model = tiny_classifier()
    batch = word_batch([[3, 5, 7, 2, 9, 4], [4, 1, 8], [2, 2, 6, 10]])
    fields, keep, ids = batch_fields(batch), batch.word_mask.float(), batch.sample_ids
    method = make_method("integrated_gradients", model, {"n_steps": 8})
    target = torch.tensor([0, 1, 1])
    scores = method(keep, fields, target).scores
    ours = word_infidelity(method.forward, keep, fields, scores, target, ids, seed=3, n_samples=6, drop=0.4)
    draws = document_uniforms(3, ids, keep.sum(1).long(), 6, keep.shape[1], stream=1)
    dropped = (draws < 0.4).float() * keep.unsqueeze(1)
    flat_dropped, flat_rest = dropped.reshape(-1, keep.shape[1]), (keep.unsqueeze(1) - dropped).reshape(-1, keep.shape[1])
    theirs = infidelity(method.forward.presence, lambda inputs: (flat_dropped.clone(), flat_rest.clone()), keep,
                        scores, additional_forward_args=fields, target=target, n_perturb_samples=6, normalize=True)
    assert torch.allclose(ours, theirs.float(), rtol=1e-4, atol=1e-7), (ours, theirs)

    explain = lambda k, f, t: method(k, f, t).scores.detach()  # noqa: E731
    ours = word_sensitivity(explain, keep, fields, target, scores, ids, seed=3, n_samples=3, radius=0.05)

    def captum_explain(inputs, additional_forward_args, target):
        inputs = inputs[0] if isinstance(inputs, tuple) else inputs
        return (explain(inputs, tuple(additional_forward_args), target),)

    perturbed = presence_perturbations(keep, ids, 3, 3, 0.05)
    theirs = sensitivity_max(captum_explain, keep, perturb_func=_replay(perturbed), n_perturb_samples=3,
                             additional_forward_args=fields, target=target)
    assert torch.allclose(ours, theirs, rtol=1e-4, atol=1e-6), (ours, theirs)
    assert (ours > 0).all()
