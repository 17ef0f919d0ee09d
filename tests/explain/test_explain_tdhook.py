"""tdhook as a second backend of the gradient methods: same attributions as captum.

Tolerance: both libraries differentiate the same float32 function of the
same embeddings, so they differ only by the order of float32 sums (IG adds
n_steps weighted gradients). With n_steps <= 20 terms of magnitude <= 1 the
rounding gap is below 20 x 2^-23 ~ 2.4e-6 relative; we allow rtol 1e-5,
atol 1e-6 (observed: identical to the last bit on CPU).
"""
from __future__ import annotations

import pytest
import torch
from explain_helpers import tiny_classifier, two_piece_word_batch, word_batch

from pyhighlights.explain.forward import batch_fields
from pyhighlights.explain.methods import make_method

RTOL, ATOL = 1e-5, 1e-6
ROWS = [[3, 5, 7, 2, 9], [4, 1, 8], [6, 6, 2, 11]]
GRADIENT_METHODS = [("saliency", {}), ("input_x_gradient", {}),
                    ("integrated_gradients", {"n_steps": 20}),
                    ("integrated_gradients", {"n_steps": 7, "integration": "riemann_trapezoid"}),
                    ("saliency", {"output": "logit"})]


def _both(name, params, model, batch):
    keep = batch.word_mask.float()
    with torch.no_grad():
        target = model.predict(batch, keep).argmax(dim=-1)
    return [make_method(name, model, params, backend)(keep, batch_fields(batch), target)
            for backend in ("captum", "tdhook")]


@pytest.mark.parametrize("name, params", GRADIENT_METHODS)
def test_backends_agree_on_a_tiny_model(name, params):
    model, batch = tiny_classifier(seed=1), word_batch(ROWS)
    captum, tdhook = _both(name, params, model, batch)
    assert tdhook.scores.abs().sum() > 0  # a real attribution, not zeros on both sides
    torch.testing.assert_close(tdhook.scores, captum.scores, rtol=RTOL, atol=ATOL)
    assert (tdhook.scores[batch.word_mask == 0] == 0).all()
    if name == "integrated_gradients":
        torch.testing.assert_close(tdhook.delta, captum.delta, rtol=RTOL, atol=ATOL)


def test_backends_agree_when_words_span_several_tokens():
    model = tiny_classifier()
    batch = two_piece_word_batch()
    captum, tdhook = _both("integrated_gradients", {"n_steps": 10}, model, batch)
    torch.testing.assert_close(tdhook.scores, captum.scores, rtol=RTOL, atol=ATOL)


def test_one_target_for_the_whole_batch():
    # captum accepts a single class for every document (robustness metrics perturb one document
    # into several copies this way); tdhook must read it the same way
    model, batch = tiny_classifier(), word_batch(ROWS)
    keep, target = batch.word_mask.float(), torch.tensor([1])
    captum, tdhook = [make_method("integrated_gradients", model, {"n_steps": 5}, backend)(
        keep, batch_fields(batch), target) for backend in ("captum", "tdhook")]
    torch.testing.assert_close(tdhook.scores, captum.scores, rtol=RTOL, atol=ATOL)


def test_backend_errors_name_what_is_available():
    model = tiny_classifier()
    with pytest.raises(ValueError, match="backend=tdhook: method=lime is not available"):
        make_method("lime", model, {}, "tdhook")
    with pytest.raises(ValueError, match="backend=shap: expected one of captum, tdhook"):
        make_method("saliency", model, {}, "shap")
    method = make_method("integrated_gradients", model, {"internal_batch_size": 4}, "tdhook")
    batch = word_batch(ROWS)
    with pytest.raises(ValueError, match="internal_batch_size"):
        method(batch.word_mask.float(), batch_fields(batch), torch.zeros(3, dtype=torch.long))
