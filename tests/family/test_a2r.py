"""A2R's mechanics by hand: the two-sided divergences, the attention, the hard path's budget of two words,
the alternation of generator and predictor steps, and which terms each step sums."""
from __future__ import annotations

import math

import lightning.pytorch as pl
import pytest
import torch
from family_helpers import experiment, same, snapshot, trainer

from pyhighlights.components.agreement import SymmetricKLTerm, TwoSidedJSDTerm
from pyhighlights.components.selectors import Selection
from pyhighlights.models.baselines.a2r import attention_pool, masked_attention


def test_symmetric_kl_by_hand_and_both_sides_move():
    # P = (1/4, 3/4), Q = (1/2, 1/2)
    p = torch.tensor([[0.0, math.log(3.0)]], dtype=torch.float64, requires_grad=True)
    q = torch.zeros(1, 2, dtype=torch.float64, requires_grad=True)
    kl_pq = 0.25 * math.log(0.25 / 0.5) + 0.75 * math.log(0.75 / 0.5)
    kl_qp = 0.5 * math.log(0.5 / 0.25) + 0.5 * math.log(0.5 / 0.75)
    value = SymmetricKLTerm(p="p", q="q")({"p": p, "q": q})
    assert float(value.detach()) == pytest.approx(kl_pq + kl_qp, abs=1e-12)
    value.backward()
    assert p.grad.abs().sum() > 0 and q.grad.abs().sum() > 0  # neither side is a detached reference


def test_two_sided_js_by_hand():
    p = torch.tensor([[0.0, math.log(3.0)]], dtype=torch.float64, requires_grad=True)
    q = torch.zeros(1, 2, dtype=torch.float64, requires_grad=True)
    m = (0.375, 0.625)
    js = 0.5 * (0.25 * math.log(0.25 / m[0]) + 0.75 * math.log(0.75 / m[1])) + \
        0.5 * (0.5 * math.log(0.5 / m[0]) + 0.5 * math.log(0.5 / m[1]))
    value = TwoSidedJSDTerm(p="p", q="q")({"p": p, "q": q})
    assert float(value.detach()) == pytest.approx(js, abs=1e-12)
    value.backward()
    assert q.grad.abs().sum() > 0


def test_attention_is_a_softmax_over_real_words_and_pools_by_weight():
    scores = torch.tensor([[1.0, 0.0, 5.0]], dtype=torch.float64)
    word_mask = torch.tensor([[1.0, 1.0, 0.0]], dtype=torch.float64)
    a = masked_attention(scores, word_mask)
    e = math.e
    assert a.tolist()[0] == pytest.approx([e / (e + 1), 1 / (e + 1), 0.0], abs=1e-12)
    states = torch.tensor([[[2.0, 0.0], [0.0, 4.0], [100.0, 100.0]]], dtype=torch.float64)
    assert attention_pool(states, a).tolist()[0] == pytest.approx([2 * e / (e + 1), 4 / (e + 1)], abs=1e-12)


def small(family_tiny_dir, *extra):
    exp = experiment(family_tiny_dir, "a2r", "model.lr=1e-3", *extra)
    pl.seed_everything(0)
    return exp


def test_attention_reads_the_selectors_keep_log_odds(family_tiny_dir):
    exp = small(family_tiny_dir)
    model = exp.model()
    word_mask = torch.tensor([[1.0, 1.0, 1.0, 0.0]])
    logits = torch.tensor([[[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [0.0, 9.0]]])
    batch = type("B", (), {"word_mask": word_mask})()
    a = model.attention(batch, Selection(logits=logits, mask=torch.zeros(1, 4)))
    odds = [1.0, 0.0, -2.0]
    z = sum(math.exp(o) for o in odds)
    assert a.tolist()[0] == pytest.approx([math.exp(o) / z for o in odds] + [0.0], abs=1e-6)


def test_fewer_than_two_kept_words_pool_to_zeros(family_tiny_dir):
    """The reference's batch_mask (sum(rationale) > 1): one kept word gives the hard head only its bias."""
    exp = small(family_tiny_dir)
    from family_helpers import first_batch
    batch = first_batch(exp)
    for min_kept, zeroed in ((2, True), (1, False)):
        model = experiment(family_tiny_dir, "a2r", f"model.min_kept={min_kept}").model().eval()
        keep = torch.zeros_like(batch.word_mask, dtype=torch.float32)
        keep[:, 0] = 1.0  # one word per document
        keep[0, :3] = 1.0  # three in the first
        with torch.no_grad():
            logits = model.predict(batch, keep)
        bias = model.predictor.net[-1].bias
        assert torch.allclose(logits[1:], bias.expand_as(logits[1:])) == zeroed
        assert not torch.allclose(logits[0], bias)


def record_steps(model):
    steps = []
    original = model.manual_step

    def recording(optimizer, loss, modules):
        before = (snapshot(model.selector_modules()), snapshot(model.predictor_modules()))
        original(optimizer, loss, modules)
        steps.append((before, (snapshot(model.selector_modules()), snapshot(model.predictor_modules())),
                      dict(model.training_values)))

    model.manual_step = recording
    return steps


def test_generator_and_predictor_steps_alternate(family_tiny_dir):
    """Batch 1, 3: only the generator moves; batch 2: only the predictors, one step per batch."""
    exp = small(family_tiny_dir)
    model = exp.model()
    steps = record_steps(model)
    trainer(1, limit_train_batches=3).fit(model, datamodule=exp.datamodule(0))
    assert len(steps) == 3 and int(model.batches_seen) == 3
    for i, ((sel0, pred0), (sel1, pred1), _) in enumerate(steps):
        generator = i % 2 == 0
        assert same(pred0, pred1) == generator, i
        assert same(sel0, sel1) != generator, i


def test_each_step_sums_its_terms(family_tiny_dir):
    exp = small(family_tiny_dir)
    model = exp.model()
    assert model.generator_terms() == ("soft_task", "sparsity", "continuity")  # epoch 0 < hard_from 20
    assert [p.terms for p in model.phases()][1] == ("task", "soft_task", "divergence")
    early = experiment(family_tiny_dir, "a2r", "model.hard_from=0", "model.divergence_in_selector=true").model()
    assert early.generator_terms() == ("soft_task", "sparsity", "continuity", "task", "divergence")
    never = experiment(family_tiny_dir, "a2r", "model.hard_from=null").model()
    assert "task" not in never.generator_terms()
