"""explain.py's fast path (the GRU shortcut, no delta for the perturbed inputs, the full input's forward pass
computed once per batch) gives the plain path's numbers: captum's Integrated Gradients with its delta on every
call and a forward pass for every probability the scores ask for."""
from __future__ import annotations

import torch
from explain_helpers import word_batch
from test_explain_recurrent_ig import gru_classifier

from pyhighlights.evaluation.scores import model_probabilities
from pyhighlights.explain.explain import (ExplanationRun, explain_batch, faithfulness_masks, full_input_known,
                                          stacked_probabilities)
from pyhighlights.explain.forward import batch_fields
from pyhighlights.explain.methods import make_method
from pyhighlights.explain.robustness import word_infidelity, word_sensitivity
from pyhighlights.explain.selection import top_k_selection

ROWS = [[3, 5, 7, 2, 9, 4, 6, 1], [4, 1, 8], [6, 2, 10, 11, 1], [9, 9, 3, 2, 7, 5]]
HIGHLIGHTS = [[0, 1, 1, 0, 0, 0, 1, 0], [1, 0, 0], [0, 0, 1, 1, 0], [0, 1, 0, 0, 0, 1]]
ROBUSTNESS = {"infidelity_samples": 5, "infidelity_drop": 0.3, "sensitivity_samples": 3, "sensitivity_radius": 0.05}


def plain_batch(method, model, batch, rate, state, seed=0):
    """explain_batch as written before the fast path: every call and forward pass made in full."""
    fields, keep = batch_fields(batch), batch.word_mask.float()
    with torch.no_grad():
        logits = model.predict(batch, keep)
    target = logits.argmax(dim=-1)
    attribution = method(keep, fields, target)
    scores = attribution.scores
    state.scores.update(batch, top_k_selection(scores, batch.word_mask, rate), scores, logits,
                        model_probabilities(model, batch))
    state.delta.append(attribution.delta.abs().reshape(-1))
    state.infidelity.append(word_infidelity(method.forward, keep, fields, scores, target, batch.sample_ids, seed,
                                            n_samples=5, drop=0.3))
    state.sensitivity.append(word_sensitivity(lambda k, f, t: method(k, f, t).scores, keep, fields, target,
                                              scores, batch.sample_ids, seed, n_samples=3, radius=0.05))
    return scores


def test_explain_batch_fast_path_equals_the_plain_path():
    model, batch = gru_classifier(seed=1), word_batch(ROWS, HIGHLIGHTS)
    fast, plain = ExplanationRun(3), ExplanationRun(3)
    ids = [f"d{i}" for i in range(len(ROWS))]
    explain_batch(make_method("integrated_gradients", model, {"n_steps": 6}), model, batch, 0.3, fast,
                  doc_ids=ids, **ROBUSTNESS)
    expected = plain_batch(make_method("integrated_gradients", model, {"n_steps": 6, "recurrent_shortcut": False}),
                           model, batch, 0.3, plain)
    scores = torch.tensor([s for row in fast.rows for s in row["scores"]])
    assert torch.allclose(scores, expected[batch.word_mask.bool()], rtol=1e-4, atol=1e-6)  # rows keep 6 digits
    got, want = fast.metrics(), plain.metrics()
    assert got.keys() == want.keys() and {"sensitivity", "infidelity", "convergence_delta"} <= got.keys()
    for name in want:
        assert abs(got[name] - want[name]) <= 1e-5 * max(1.0, abs(want[name])), name


def test_without_delta_the_scores_are_the_same_and_no_delta_is_given():
    model, batch = gru_classifier("padded", layer_norm=True), word_batch(ROWS)
    keep = batch.word_mask.float() * (1 + 0.04 * torch.linspace(-1, 1, batch.word_mask.numel()).view(4, -1))
    target = torch.tensor([0, 2, 1, 1])
    for shortcut in (True, False):
        method = make_method("integrated_gradients", model, {"n_steps": 5, "recurrent_shortcut": shortcut})
        with_delta = method(keep, batch_fields(batch), target)
        alone = method(keep, batch_fields(batch), target, with_delta=False)
        assert with_delta.delta is not None and alone.delta is None
        assert torch.allclose(alone.scores, with_delta.scores, rtol=1e-6, atol=1e-8)


def test_the_full_input_is_answered_from_the_logits_and_every_other_mask_by_a_forward_pass():
    calls = []

    def prob_fn(keep):
        calls.append(keep)
        return torch.full((2, 2), 0.5)

    word_mask, logits = torch.ones(2, 3, dtype=torch.long), torch.tensor([[0.0, 1.0], [2.0, 0.0]])
    known = full_input_known(prob_fn, word_mask, logits)
    assert torch.allclose(known(word_mask), torch.tensor([[0.2689414, 0.7310586], [0.8807971, 0.1192029]]))
    assert calls == []
    other = word_mask.clone()  # equal values, but not the full input the scores pass: a forward pass
    assert torch.equal(known(other), torch.full((2, 2), 0.5)) and calls == [other]


def test_the_faithfulness_masks_are_answered_from_one_stacked_pass_as_one_pass_each():
    """Every mask the scores ask about (the selection removed and alone, each AOPC bin) comes from the stacked
    pass with the probabilities a pass of its own gives; the model is called once for all of them, and a mask
    not listed still gets its own pass."""
    model, batch = gru_classifier(seed=2), word_batch(ROWS, HIGHLIGHTS)
    scores = torch.linspace(-1, 1, batch.word_mask.numel()).view_as(batch.word_mask).flip(1) * batch.word_mask
    selection = top_k_selection(scores, batch.word_mask, 0.3)
    state = ExplanationRun(3)
    masks = faithfulness_masks(selection, scores, batch.word_mask, state.scores.fractions)
    assert len(masks) == 2 + 2 * len(state.scores.fractions)
    calls = []
    predict = model.predict
    model.predict = lambda b, keep: calls.append(keep.shape[0]) or predict(b, keep)
    try:
        stacked = stacked_probabilities(model, batch, masks)
        assert calls == [len(masks) * len(ROWS)]
        alone = model_probabilities(model, batch)
        for mask in masks:
            assert torch.allclose(stacked(mask), alone(mask), rtol=1e-6, atol=1e-7)
        assert calls == [len(masks) * len(ROWS)] + [len(ROWS)] * len(masks)  # the lookups made no pass
        other = batch.word_mask.clone()  # one word of one document removed: every listed mask removes or
        other[0, 1] = 0  # keeps some words of every document, so this one is not among them
        stacked(other)
        assert calls[-1] == len(ROWS) and len(calls) == 2 + len(masks)
    finally:
        del model.predict
    # the masks are those the scores ask about: scoring with the stacked answers makes no further pass
    asked = []
    logits = predict(batch, batch.word_mask.float())
    stacked = stacked_probabilities(model, batch, masks)
    state.scores.update(batch, selection, scores, logits,
                        full_input_known(lambda keep: asked.append(keep) or stacked(keep), batch.word_mask, logits))
    assert len(asked) == len(masks) and all(any(torch.equal(a, m) for m in masks) for a in asked)
