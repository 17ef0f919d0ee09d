"""Integrated Gradients of a GRU backbone through its linear input projection, against captum and by hand."""
from __future__ import annotations

import logging

import pytest
import torch
from explain_helpers import word_batch

from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.resolve import build
from pyhighlights.explain.forward import batch_fields, embedding_layer, embeddings_replaced
from pyhighlights.explain.methods import make_method
from pyhighlights.explain.recurrent_ig import supported

ROWS = [[3, 5, 7, 2, 9, 4], [4, 1, 8], [6, 2, 10, 11, 1]]


def gru_classifier(recurrence="within_length", layer_norm=False, cell="gru", seed=0):
    torch.manual_seed(seed)
    spec = {"name": "gru", "hidden_size": 6, "dropout": 0.0, "recurrence": recurrence, "layer_norm": layer_norm,
            "cell": cell}
    factory = BackboneFactory(spec, embedding_matrix=torch.randn(12, 5), freeze_embeddings=True)
    model = build("model", {"name": "classifier", "predictor": {"dropout": 0.0}}, path="model",
                  backbone_factory=factory, num_classes=3)
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval()


def inputs(model, batch, noisy=False):
    keep = batch.word_mask.float()
    if noisy:  # presence scaled per word, as max sensitivity perturbs it
        keep = keep * (1 + 0.05 * torch.linspace(-1, 1, keep.numel()).view_as(keep))
    with torch.no_grad():
        target = model.predict(batch, keep).argmax(dim=-1)
    return keep, batch_fields(batch), target


@pytest.mark.parametrize("recurrence", ["within_length", "padded"])
@pytest.mark.parametrize("layer_norm", [False, True])
@pytest.mark.parametrize("output", ["probability", "logit"])
def test_shortcut_equals_captum(recurrence, layer_norm, output):
    model = gru_classifier(recurrence, layer_norm)
    assert supported(model)
    batch = word_batch(ROWS)
    for noisy in (False, True):
        keep, fields, target = inputs(model, batch, noisy)
        params = {"output": output, "n_steps": 7}
        fast = make_method("integrated_gradients", model, params)(keep, fields, target)
        slow = make_method("integrated_gradients", model, {**params, "recurrent_shortcut": False})(keep, fields,
                                                                                                   target)
        assert torch.allclose(fast.scores, slow.scores, rtol=1e-5, atol=1e-7)
        assert torch.allclose(fast.delta, slow.delta, rtol=1e-5, atol=1e-7)


def test_shortcut_equals_a_riemann_sum_by_autograd():
    """score_w = Σ_e x_e · (1/m) Σ_k ∂p_ŷ/∂e(k/m · x), each gradient by plain autograd through the model."""
    model, batch, m = gru_classifier("padded", layer_norm=True), word_batch(ROWS), 6
    keep, fields, target = inputs(model, batch)
    out = make_method("integrated_gradients", model, {"n_steps": m, "integration": "riemann_right"})(keep, fields,
                                                                                                     target)
    x = embedding_layer(model)(batch.input_ids)
    total = torch.zeros_like(x)
    for k in range(1, m + 1):
        scaled = (k / m * x).requires_grad_()
        with embeddings_replaced(embedding_layer(model), scaled):
            p = torch.softmax(model.predict(batch, keep), dim=-1).gather(1, target[:, None]).sum()
        total += torch.autograd.grad(p, scaled)[0] / m
    expected = (x * total).sum(dim=-1) * batch.word_mask  # one token per word here
    assert torch.allclose(out.scores, expected, rtol=1e-5, atol=1e-7)


def test_documents_do_not_depend_on_their_batch_and_steps_can_be_chunked():
    model, batch = gru_classifier(), word_batch(ROWS)
    keep, fields, target = inputs(model, batch)
    together = make_method("integrated_gradients", model, {"n_steps": 9})(keep, fields, target)
    chunked = make_method("integrated_gradients", model, {"n_steps": 9, "internal_batch_size": 7})(keep, fields,
                                                                                                   target)
    assert torch.allclose(together.scores, chunked.scores, rtol=1e-5, atol=1e-7)
    for row, words in enumerate(ROWS):
        alone = word_batch([words])
        k, f, t = inputs(model, alone)
        one = make_method("integrated_gradients", model, {"n_steps": 9})(k, f, t)
        assert torch.allclose(one.scores[0], together.scores[row, :len(words)], rtol=1e-5, atol=1e-7)
        assert torch.allclose(one.delta, together.delta[row:row + 1], rtol=1e-5, atol=1e-7)


def test_other_backbones_use_captum():
    assert not supported(gru_classifier(cell="lstm"))
    model = gru_classifier(cell="lstm")
    keep, fields, target = inputs(model, word_batch(ROWS))
    out = make_method("integrated_gradients", model, {"n_steps": 5})(keep, fields, target)
    assert out.scores.shape == keep.shape and torch.isfinite(out.scores).all()


def test_a_backbone_that_computes_something_else_falls_back_to_captum(caplog):
    """A GRU whose output is changed by a hook: the shortcut's check against the backbone's own forward
    fails, so captum (which runs the real forward) gives the scores, with one warning."""
    model, batch = gru_classifier(), word_batch(ROWS)
    model.encoder.forward_layers[0].register_forward_hook(lambda module, args, out: (out[0] * 0.5, out[1]))
    keep, fields, target = inputs(model, batch)
    with caplog.at_level(logging.WARNING, logger="pyhighlights.explain"):
        fast = make_method("integrated_gradients", model, {"n_steps": 5})(keep, fields, target)
    slow = make_method("integrated_gradients", model, {"n_steps": 5, "recurrent_shortcut": False})(keep, fields,
                                                                                                   target)
    assert torch.equal(fast.scores, slow.scores)
    assert "recurrent shortcut disagrees" in caplog.text
