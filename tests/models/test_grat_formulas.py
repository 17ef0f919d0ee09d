"""G-RAT's formulas against numbers computed by hand (the reference parity ones: test_grat_parity.py)."""
import math

import pytest
import torch

from pyhighlights.components.losses import GuideTerm, jensen_shannon
from pyhighlights.components.words import tokens_to_words_sum
from pyhighlights.models.grat import annealing_factor, guide_target


def test_annealing_first_steps():
    decay = 0.1
    # t = steps taken before the step: 0, 1, 2, 3 -> f = 1, 1, 1 - decay, 1 - 2 decay
    assert [annealing_factor(t, decay) for t in range(4)] == pytest.approx([1.0, 1.0, 0.9, 0.8])
    assert annealing_factor(1000, decay) == 0.0  # clipped at zero


def test_guide_target_is_clipped_at_one():
    attention = torch.tensor([[0.97, 0.01, 0.01, 0.01]])
    # mean 0.25, denominator 0.25 + 0.2 = 0.45; 0.97/0.45 > 1 -> 1
    target = guide_target(attention, torch.ones(1, 4), "valid")  # W = n here, so both means agree
    assert torch.equal(target, guide_target(attention, torch.ones(1, 4), "padded"))
    assert target[0, 0] == 1.0 and target[0, 1] == pytest.approx(0.01 / 0.45)


def test_subword_attention_folds_by_summing():
    # tokens: [CLS] w0a w0b w1 [SEP] pad
    attention = torch.tensor([[0.1, 0.2, 0.3, 0.4, 0.0, 0.0]])
    word_ids = torch.tensor([[-1, 0, 0, 1, -1, -1]])
    assert torch.allclose(tokens_to_words_sum(attention, word_ids, 2), torch.tensor([[0.5, 0.4]]))


def test_jsd_on_known_distributions():
    p = torch.tensor([[1.0, 0.0]])
    q = torch.tensor([[0.0, 1.0]])
    assert jensen_shannon(p, q).item() == pytest.approx(math.log(2), rel=1e-5)  # disjoint supports
    assert jensen_shannon(p, p).item() == pytest.approx(0.0, abs=1e-7)
    p = torch.tensor([[0.5, 0.5]])
    q = torch.tensor([[0.9, 0.1]])
    m = [0.7, 0.3]
    kl_pm = 0.5 * math.log(0.5 / m[0]) + 0.5 * math.log(0.5 / m[1])
    kl_qm = 0.9 * math.log(0.9 / m[0]) + 0.1 * math.log(0.1 / m[1])
    assert jensen_shannon(p, q).item() == pytest.approx(0.5 * (kl_pm + kl_qm), rel=1e-6)


def test_guide_bce_option_excludes_padding():
    keep_logit = torch.tensor([[0.0, 2.0, 100.0]])
    target = torch.tensor([[1.0, 0.0, 0.0]])
    word_mask = torch.tensor([[1.0, 1.0, 0.0]])
    # BCE(0 -> 1) = log 2 ; BCE(2 -> 0) = log(1 + e^2); the padded third word is ignored
    expected = (math.log(2) + math.log(1 + math.exp(2))) / 2
    value = GuideTerm(logit="log_odds", average="valid", keep_target="guide_target")(
        {"keep_logit": keep_logit, "guide_target": target, "word_mask": word_mask})
    assert value.item() == pytest.approx(expected, rel=1e-6)
