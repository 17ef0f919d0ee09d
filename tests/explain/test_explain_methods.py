"""Each captum method, wired per word, against values computed here without captum."""
from __future__ import annotations

import copy
import pytest
import torch
from explain_helpers import LinearPresenceModel, tiny_classifier, two_piece_word_batch, word_batch

from pyhighlights.explain.forward import batch_fields
from pyhighlights.explain.methods import METHODS, make_method, method_parameters

ROWS = [[3, 5, 7, 2, 9], [4, 1, 8]]


def prob(model, batch, keep, target):
    with torch.no_grad():
        p = torch.softmax(model.predict(batch, keep.float()), dim=-1)
    return p.gather(1, target[:, None]).squeeze(1)


def attribute(name, model, batch, target=None, **params):
    method = make_method(name, model, params)
    keep = batch.word_mask.float()
    if target is None:
        with torch.no_grad():
            target = model.predict(batch, keep).argmax(dim=-1)
    return method(keep, batch_fields(batch), target), target


def test_integrated_gradients_is_complete():
    """Sundararajan et al.: the word scores sum to f(x) - f(zero embeddings), here checked on a
    copy of the model whose embeddings are zeroed; the reported delta is exactly the gap, and the
    gap shrinks with the number of steps (max-pooling makes f only piecewise smooth)."""
    model, batch = tiny_classifier(), word_batch(ROWS)
    zeroed = copy.deepcopy(model)
    with torch.no_grad():
        zeroed.encoder.embedding.weight.zero_()
    keep = batch.word_mask.float()
    gaps = []
    for steps in (8, 1024):
        out, target = attribute("integrated_gradients", model, batch, n_steps=steps)
        expected = prob(model, batch, keep, target) - prob(zeroed, batch, keep, target)
        gap = out.scores.sum(dim=1) - expected
        assert torch.allclose(out.delta, gap, atol=1e-6)
        gaps.append(gap.abs().max().item())
    assert gaps[1] < 1e-4 and gaps[1] < gaps[0]


def test_gradient_methods_match_autograd_and_fold_subwords():
    """Saliency = Σ_e |∂p/∂e|, Input x Gradient = Σ_e e·∂p/∂e, summed over a word's tokens."""
    model = tiny_classifier()
    # word 1 of document 0 is two tokens: word_ids [0, 1, 1, 2]
    batch = two_piece_word_batch()
    embeddings = model.encoder.embedding(batch.input_ids).detach().requires_grad_()
    handle = model.encoder.embedding.register_forward_hook(lambda m, a, o: embeddings)
    p = torch.softmax(model.predict(batch, batch.word_mask.float()), dim=-1)
    handle.remove()
    target = int(p.argmax())
    (grad,) = torch.autograd.grad(p[0, target], embeddings)
    saliency_tokens = grad.abs().sum(-1)[0]
    ixg_tokens = (grad * embeddings).sum(-1)[0].detach()
    fold = lambda t: torch.stack([t[0], t[1] + t[2], t[3]])  # noqa: E731
    saliency, _ = attribute("saliency", model, batch)
    ixg, _ = attribute("input_x_gradient", model, batch)
    assert torch.allclose(saliency.scores[0], fold(saliency_tokens), atol=1e-6)
    assert torch.allclose(ixg.scores[0], fold(ixg_tokens), atol=1e-6)


def test_feature_ablation_and_occlusion_are_output_drops():
    model, batch = tiny_classifier(), word_batch(ROWS)
    ablation, target = attribute("feature_ablation", model, batch)
    occlusion1, _ = attribute("occlusion", model, batch, window=1)
    occlusion2, _ = attribute("occlusion", model, batch, window=2)
    keep = batch.word_mask.float()
    full = prob(model, batch, keep, target)
    width = keep.shape[1]

    def drop(words):
        removed = keep.clone()
        removed[:, list(words)] = 0
        return full - prob(model, batch, removed, target)

    single = torch.stack([drop([w]) for w in range(width)], dim=1) * keep
    assert torch.allclose(ablation.scores, single, atol=1e-6)
    assert torch.allclose(occlusion1.scores, single, atol=1e-6)
    # window 2, stride 1: windows [0,1], [1,2], ...; a word's score averages the windows covering it
    windows = [drop([s, s + 1]) for s in range(width - 1)]
    expected = torch.stack([sum(windows[s] for s in (w - 1, w) if 0 <= s < width - 1)
                            / sum(1 for s in (w - 1, w) if 0 <= s < width - 1) for w in range(width)], dim=1)
    assert torch.allclose(occlusion2.scores, expected * keep, atol=1e-6)


def test_shapley_sampling_is_efficient():
    """Each sampled order telescopes, so the values sum to f(x) - f(no word) whatever n_samples."""
    model, batch = tiny_classifier(), word_batch(ROWS)
    torch.manual_seed(0)
    out, target = attribute("shapley_value_sampling", model, batch, n_samples=3)
    keep = batch.word_mask.float()
    empty = prob(model, batch, torch.zeros_like(keep), target)
    assert torch.allclose(out.scores.sum(dim=1), prob(model, batch, keep, target) - empty, atol=1e-5)


COEF = torch.linspace(-1.0, 1.0, 12)


@pytest.mark.parametrize("name, params", [
    ("shapley_value_sampling", {"n_samples": 2}),  # additive game: every order gives the coefficients
    ("lime", {"surrogate": "linear", "n_samples": 60}),  # a linear surrogate of a linear model is exact
    ("feature_ablation", {}),
])
def test_exact_on_a_model_linear_in_word_presence(name, params):
    """Logit of class 1 = sum of the present words' coefficients: the exact scores are the
    coefficients of each document's words, zero on padding (LIME fitted per document)."""
    batch = word_batch(ROWS)
    target = torch.ones(2, dtype=torch.long)
    out, _ = attribute(name, LinearPresenceModel(COEF), batch, target=target, output="logit", **params)
    assert torch.allclose(out.scores, COEF[batch.input_ids] * batch.word_mask, atol=1e-4)


@pytest.mark.parametrize("name", list(METHODS))
def test_padding_scores_zero_and_shapes(name):
    model, batch = tiny_classifier(), word_batch(ROWS)
    params = {"n_samples": 10} if name in ("lime", "shapley_value_sampling") else {}
    if name == "integrated_gradients":
        params = {"n_steps": 4}
    out, _ = attribute(name, model, batch, **params)
    assert out.scores.shape == batch.word_mask.shape
    assert torch.all(out.scores[1, 3:] == 0)
    assert (out.delta is not None) == METHODS[name][1].has_delta


def test_parameters_are_validated_with_the_field_named():
    assert method_parameters("integrated_gradients")["n_steps"] == 20
    with pytest.raises(ValueError, match=r"^method\.n_steps"):
        method_parameters("integrated_gradients", {"n_steps": 0})
    with pytest.raises(ValueError, match=r"^method\.window: unknown"):
        method_parameters("lime", {"window": 2})
    with pytest.raises(ValueError, match="method=gradcam: unknown"):
        method_parameters("gradcam")
