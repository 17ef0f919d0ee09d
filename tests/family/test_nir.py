"""NIR's mechanics by hand: TF-IDF replacement probabilities and the replacement distribution, the reference's
mixture-first Jensen-Shannon term, and noise that reaches only the hard predictor's selected words in training."""
from __future__ import annotations

import math

import lightning.pytorch as pl
import pytest
import torch
from family_helpers import experiment, first_batch, trainer

from pyhighlights.components.agreement import MixtureKLTerm
from pyhighlights.components.noise_injection import NoiseInjection, replacement_probabilities, token_statistics


def test_tf_idf_statistics_by_hand():
    """Documents [0, 1] and [0, 2, 2]: idf = (0, ln 2, ln 2); atf = (1/2 + 1/3, 1/2, 2/3), so atf·idf =
    (0, ln2/2, 2 ln2/3) and normalize gives (2/3, 2/3 - 1/2, 0) / (5/6) = (0.8, 0.2, 0)."""
    idf, distribution = token_statistics([[0, 1], [0, 2, 2]], 4)
    assert idf.tolist() == pytest.approx([0.0, math.log(2), math.log(2), 0.0], abs=1e-15)
    assert distribution.tolist() == pytest.approx([0.8, 0.2, 0.0, 0.0], abs=1e-15)  # id 3 never seen: never drawn
    # document [0, 2, 2]: tf·idf = (0, 2/3 ln2, 2/3 ln2), normalize -> (1, 0, 0), times n = 3 and noise_p
    assert replacement_probabilities(torch.tensor([0, 2, 2]), idf, 0.1).tolist() == pytest.approx([0.3, 0, 0])
    assert replacement_probabilities(torch.tensor([0, 2, 2]), idf, 0.5).tolist() == [1.0, 0.0, 0.0]  # clipped
    # every score equal: nothing to prefer, no replacement (the reference divides 0 by 0)
    assert replacement_probabilities(torch.tensor([1, 1]), idf, 0.5).tolist() == [0.0, 0.0]


def test_mixture_first_js_by_hand_summed_over_the_batch():
    # P = (1/4, 3/4), Q = (1/2, 1/2), M = (3/8, 5/8); two identical rows
    p = torch.tensor([[0.0, math.log(3.0)]] * 2, dtype=torch.float64, requires_grad=True)
    q = torch.zeros(2, 2, dtype=torch.float64, requires_grad=True)
    m = (0.375, 0.625)
    kl_mp = m[0] * math.log(m[0] / 0.25) + m[1] * math.log(m[1] / 0.75)
    kl_mq = m[0] * math.log(m[0] / 0.5) + m[1] * math.log(m[1] / 0.5)
    value = MixtureKLTerm(p="p", q="q")({"p": p, "q": q})
    assert float(value.detach()) == pytest.approx(2 * 0.5 * (kl_mp + kl_mq), abs=1e-12)
    value.backward()
    assert p.grad.abs().sum() > 0 and q.grad.abs().sum() > 0


def test_replacement_follows_the_draws_and_the_inverse_cdf():
    noise = NoiseInjection(4, noise_p=0.5)
    noise.fit([[0, 1], [0, 2, 2]])  # distribution (0.8, 0.2, 0, 0): cdf (0.8, 1, 1, 1)
    ids = torch.tensor([[0, 2, 2, 0]])
    mask = torch.tensor([[1, 1, 1, 0]])  # the last position is padding
    selected = torch.tensor([[True, True, False, True]])
    # p = (1, 0, 0) on the real tokens: only position 0 can be replaced
    out = noise.replace(ids, mask, selected, torch.full((1, 4), 0.99), torch.tensor([[0.85, 0.1, 0.1, 0.1]]))
    assert out.tolist() == [[1, 2, 2, 0]]  # 0.85 >= 0.8: the second token of the cdf
    out = noise.replace(ids, mask, selected, torch.full((1, 4), 0.99), torch.tensor([[0.3, 0.1, 0.1, 0.1]]))
    assert out.tolist() == [[0, 2, 2, 0]]  # drawn token 0: the same id


def test_noise_reaches_only_the_hard_predictor_in_training(family_tiny_dir):
    exp = experiment(family_tiny_dir, "nir", "model.noise_p=1.0")
    pl.seed_everything(0)
    model = exp.model()
    with pytest.raises(RuntimeError, match="fit"):
        model.train()
        batch = first_batch(exp)
        model.read(batch, model.select(batch))
    trainer(1, limit_train_batches=1, limit_val_batches=0).fit(model, datamodule=exp.datamodule(0))
    assert bool(model.noise.fitted) and model.noise.distribution.sum() == pytest.approx(1.0)
    batch = first_batch(exp)
    seen = []
    original = model.predict
    model.predict = lambda b, keep: seen.append(b.input_ids.clone()) or original(b, keep)
    model.train()
    selection = model.select(batch)
    model.read(batch, selection)
    changed = seen[-1] != batch.input_ids
    kept = selection.mask.detach().bool()
    assert changed.any() and not (changed & ~kept).any()  # only selected words are replaced
    model.eval()
    model.read(batch, selection)
    assert torch.equal(seen[-1], batch.input_ids)  # evaluation reads the words as they are


def test_a_documents_noise_depends_on_its_seed_not_its_batch():
    noise = NoiseInjection(4, noise_p=1.0)
    noise.fit([[0, 1], [0, 2, 2], [1, 3]])
    ids = torch.tensor([[0, 2, 2, 1], [3, 1, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
    word_ids = torch.tensor([[0, 1, 2, 3], [0, 1, 2, -1]])
    words = torch.ones(2, 4)
    together = noise(ids, mask, word_ids, words, [11, 12])
    for row, seed in ((0, 11), (1, 12)):
        n = int(mask[row].sum())  # alone, without the batch's padding
        alone = noise(ids[row:row + 1, :n], mask[row:row + 1, :n], word_ids[row:row + 1, :n],
                      words[row:row + 1, :n], [seed])
        assert torch.equal(alone[0], together[row, :n])
    assert together[1, 3] == 0  # padding is never replaced
