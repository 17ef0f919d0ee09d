"""G-RAT's default arithmetic against the reference code's formulas, re-derived here by hand or with plain tensors.

Reference: github.com/shuaibo919/g-rat (model/common/modules.py, model/model_st.py).
"""
import math

import pytest
import torch
import torch.nn.functional as F

from pyhighlights.components.backbones.recurrent import RecurrentBackbone
from pyhighlights.components.guiders import ReferenceGuider
from pyhighlights.components.losses import (ContinuityTerm, GuideTerm, JSDTerm, MixtureMatchTerm, SparsityTerm)
from pyhighlights.models.grat import guide_target


def kl(a, b):
    return sum(x * math.log(x / y) for x, y in zip(a, b))


# --- match term -------------------------------------------------------------------------------
def test_match_term_is_kl_from_the_mixture_and_jsd_is_kl_to_it():
    p, q = [0.9, 0.1], [0.2, 0.8]
    m = [0.55, 0.45]
    outputs = {"logits": torch.tensor([p]).log(), "guider_logits": torch.tensor([q]).log()}
    reference = MixtureMatchTerm(p="logits", q="guider_logits")(outputs).item()
    textbook = JSDTerm(p="logits", q="guider_logits")(outputs).item()
    assert reference == pytest.approx(0.5 * (kl(m, p) + kl(m, q)), rel=1e-5)
    assert textbook == pytest.approx(0.5 * (kl(p, m) + kl(q, m)), rel=1e-5)
    assert reference != pytest.approx(textbook, rel=1e-2)


def test_match_term_equals_the_kl_div_calls_of_the_reference_including_its_gradient():
    torch.manual_seed(0)
    logits = torch.randn(4, 3, requires_grad=True)
    guider = torch.randn(4, 3)
    ours = MixtureMatchTerm(p="logits", q="guider_logits")({"logits": logits, "guider_logits": guider})
    (grad_ours,) = torch.autograd.grad(ours, logits)
    # Plain re-derivation: M from both softmaxes (M keeps its gradient), kl_div(log_softmax(x), M), batchmean.
    logits2 = logits.detach().clone().requires_grad_(True)
    m = 0.5 * (logits2.softmax(-1) + guider.softmax(-1))
    value = 0.5 * (F.kl_div(logits2.log_softmax(-1), m, reduction="batchmean")
                   + F.kl_div(guider.log_softmax(-1), m, reduction="batchmean"))
    (grad_reference,) = torch.autograd.grad(value, logits2)
    assert ours.item() == pytest.approx(value.item(), rel=1e-5)
    assert torch.allclose(grad_ours, grad_reference, atol=1e-6)


def test_far_apart_the_reference_match_pulls_much_harder_than_jsd():
    # P = softmax([10, -10]) (almost one-hot on class 0), Q almost one-hot on class 1.
    logits = torch.tensor([[10.0, -10.0]], requires_grad=True)
    guider = torch.tensor([[-10.0, 10.0]])
    (g_match,) = torch.autograd.grad(MixtureMatchTerm(p="logits", q="guider_logits")({"logits": logits, "guider_logits": guider}), logits)
    (g_jsd,) = torch.autograd.grad(JSDTerm(p="logits", q="guider_logits")({"logits": logits, "guider_logits": guider}), logits)
    # d/dx of ½KL(M‖P) ~ ½(p - m) on the logits: magnitude ~0.25; JSD's gradient vanishes like p·log p.
    assert g_match.abs().max().item() == pytest.approx(0.25, rel=0.05)
    assert g_match.norm() / g_jsd.norm() > 1e5  # ratio ~1e7 here (~1e3 at logits ±5, ~34 at ±3)


# --- guide target and guide BCE ----------------------------------------------------------------
ATTENTION = torch.tensor([[0.5, 0.3, 0.2, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25, 0.0]])
WORD_MASK = torch.tensor([[1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0]])


def test_guide_target_over_the_padded_width():
    # W = 5: mean over the padded width is 1/5 in both rows.
    # row 0, n = 3: denominator 0.2 + 1/4 = 0.45 -> 0.5/0.45 > 1 -> 1, 0.3/0.45 = 2/3, 0.2/0.45 = 4/9
    # row 1, n = 4: denominator 0.2 + 1/5 = 0.4 -> 0.25/0.4 = 0.625
    expected = torch.tensor([[1.0, 2 / 3, 4 / 9, 0, 0], [0.625, 0.625, 0.625, 0.625, 0]])
    assert torch.allclose(guide_target(ATTENTION, WORD_MASK, "padded"), expected, atol=1e-6)


def test_guide_target_over_valid_words_is_the_option():
    # row 0: mean over its 3 words 1/3, denominator 1/3 + 1/4 = 7/12; row 1: 1/4 + 1/5 = 0.45
    expected = torch.tensor([[6 / 7, 3.6 / 7, 2.4 / 7, 0, 0], [5 / 9, 5 / 9, 5 / 9, 5 / 9, 0]])
    assert torch.allclose(guide_target(ATTENTION, WORD_MASK, "valid"), expected, atol=1e-6)


def bce(x, t):
    s = 1 / (1 + math.exp(-x))
    return -(t * math.log(s) + (1 - t) * math.log(1 - s))


def test_guide_bce_on_the_raw_keep_column_over_the_padded_batch():
    keep = [[0.0, 1.0, -1.0, 2.0, 0.5], [0.3, -0.2, 0.0, 1.5, -3.0]]
    drop = [[5.0, 5.0, 5.0, 5.0, 5.0], [1.0, 1.0, 1.0, 1.0, 1.0]]  # must not matter for the reference logit
    logits = torch.stack([torch.tensor(drop), torch.tensor(keep)], dim=-1)
    target = guide_target(ATTENTION, WORD_MASK, "padded")
    outputs = {"selector_logits": logits, "keep_logit": logits[..., 1] - logits[..., 0], "guide_target": target,
               "word_mask": WORD_MASK}
    expected = sum(bce(keep[b][i], float(target[b, i])) for b in range(2) for i in range(5)) / 10
    assert GuideTerm(keep_target="guide_target")(outputs).item() == pytest.approx(expected, rel=1e-5)
    # The options: log-odds logit averaged over the 7 real words.
    expected_valid = sum(bce(keep[b][i] - drop[b][i], float(target[b, i]))
                         for b in range(2) for i in range(5) if WORD_MASK[b, i]) / 7
    option = GuideTerm(logit="log_odds", average="valid", keep_target="guide_target")(outputs).item()
    assert option == pytest.approx(expected_valid, rel=1e-5)


# --- sparsity and continuity with padding counted -------------------------------------------------
RAW = torch.tensor([[1.0, 0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0, 0.0]])
REAL = torch.tensor([[1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]])


def mask_outputs():
    return {"raw_mask": RAW, "mask": RAW * REAL, "word_mask": REAL}


def test_sparsity_with_padding_counted_as_the_reference():
    # counted: 5 selected positions (one of them padding) over 8 real words; excluded: 4 over 8.
    assert SparsityTerm(target=0.5, padding="counted").value(mask_outputs()).item() == pytest.approx(0.125)
    assert SparsityTerm(target=0.5, padding="excluded").value(mask_outputs()).item() == pytest.approx(0.0)


def test_continuity_with_padding_counted_as_the_reference():
    # counted: jumps 1+1+0+1 and 1+0+1+0 over all 2 x 4 neighbours = 5/8
    # excluded: real neighbours only, padding zeroed: (1+1) + (1+0+1+0) over 2 + 4 pairs = 4/6
    assert ContinuityTerm(padding="counted").value(mask_outputs()).item() == pytest.approx(5 / 8)
    assert ContinuityTerm(padding="excluded").value(mask_outputs()).item() == pytest.approx(4 / 6)


# --- the reference guider --------------------------------------------------------------------------
def linear(x, layer):
    return x @ layer.weight.T + layer.bias


def layer_norm(x, norm):
    return F.layer_norm(x, norm.normalized_shape, norm.weight, norm.bias, norm.eps)


def masked_softmax(scores, mask):
    scores = scores.masked_fill(mask == 0, float("-inf"))
    return scores.softmax(-1)


@pytest.fixture
def guider():
    torch.manual_seed(0)
    encoder = RecurrentBackbone(embedding_matrix=torch.randn(20, 6), hidden_size=8, dropout=0.0)
    model = ReferenceGuider(encoder=encoder, num_classes=3, noise_sigma=1.0, dropout=0.2)
    for p in model.parameters():  # LayerNorm weights too, so a wrong norm would show
        p.data.normal_(0, 0.5)
    return model.eval()


IDS = torch.tensor([[3, 4, 5, 6, 7], [8, 9, 10, 0, 0]])
MASK = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])


def test_reference_guider_forward_on_fixed_weights(guider):
    out = guider(IDS, MASK)
    assert out.attention.shape == (2, 5) and out.logits.shape == (2, 3)
    assert torch.allclose(out.attention.sum(-1), torch.ones(2))
    assert torch.all(out.attention[1, 3:] == 0)

    # Plain re-derivation of model/common/modules.py GuidanceModule.forward (eval mode: no noise, no dropout).
    g = guider
    mask = MASK.float()
    embedded = g.encoder.embedding(IDS) * mask.unsqueeze(-1)
    h = layer_norm(g.encoder(IDS, MASK) + linear(embedded, g.residual), g.norm)
    scores = linear(F.gelu(linear(h, g.scorer[0])), g.scorer[2]).squeeze(-1)
    a = masked_softmax(scores, mask)
    h2 = layer_norm(F.gelu(linear(a.unsqueeze(-1) * h, g.projection)), g.norm)
    pool_scores = linear(F.gelu(layer_norm(linear(h2, g.pool_scorer[0]), g.pool_scorer[1])), g.pool_scorer[3])
    w = masked_softmax(pool_scores.squeeze(-1), mask)
    assert torch.allclose(w.sum(-1), torch.ones(2)) and torch.all(w[1, 3:] == 0)
    logits = linear((w.unsqueeze(-1) * h2).sum(1), g.classifier)
    assert torch.allclose(out.attention, a, atol=1e-6)
    assert torch.allclose(out.logits, logits, atol=1e-5)


def test_reference_guider_noise_only_in_training(guider):
    torch.manual_seed(1)
    guider.dropout.p = 0.0
    eval_attention = guider(IDS, MASK).attention
    assert torch.equal(guider(IDS, MASK).attention, eval_attention)  # deterministic in eval mode
    guider.train()
    noisy = guider(IDS, MASK).attention
    assert not torch.allclose(noisy, eval_attention)
    assert torch.allclose(noisy.sum(-1), torch.ones(2)) and torch.all(noisy[1, 3:] == 0)
