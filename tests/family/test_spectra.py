"""SPECTRA's mechanics: the budgeted Viterbi and the SparseMAP solve against brute force over every structure,
closed-form marginals and gradients of small cases, the selector's budget, padding, edge layouts and evaluation,
and the model's defaults and one training step."""
from __future__ import annotations

import itertools

import lightning.pytorch as pl
import numpy as np
import pytest
import torch
from family_helpers import SHORT_PADDING, experiment, trainer

from pyhighlights.components.sparsemap import SequenceScores, budgeted_viterbi, sequence_budget_sparsemap
from pyhighlights.components.spectra import SpectraSelector, reference_edges, word_budget
from pyhighlights.registry import default_configuration

D = torch.float64


def random_scores(generator, length, budget, scale=1.0):
    return SequenceScores(torch.randn(1, length, 2, generator=generator, dtype=D) * scale,
                          torch.randn(1, 2, generator=generator, dtype=D),
                          torch.randn(1, length - 1, 2, 2, generator=generator, dtype=D),
                          torch.randn(1, 2, generator=generator, dtype=D), torch.tensor([budget]))


def every_structure(length, budget):
    return torch.tensor([y for y in itertools.product((0, 1), repeat=length) if sum(y) <= budget], dtype=D)


def explicit_score(scores, y):
    """score(y) written out term by term (0 = drop, 1 = keep)."""
    s = [int(v) for v in y]
    total = float(scores.start[0, s[0]] + scores.end[0, s[-1]])
    total += sum(float(scores.unary[0, i, s[i]]) for i in range(len(s)))
    total += sum(float(scores.pair[0, i - 1, s[i - 1], s[i]]) for i in range(1, len(s)))
    return total


def project_simplex(v):
    """Euclidean projection onto the probability simplex (Held, Wolfe and Crowder, 1974)."""
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1
    rho = int(np.nonzero(u - cumulative / np.arange(1, len(v) + 1) > 0)[0].max())
    return np.maximum(v - cumulative[rho] / (rho + 1), 0.0)


def generic_sparsemap(scores, length, budget, steps=3000):
    """The SparseMAP QP over the full simplex of structures, by accelerated projected gradient (FISTA):
    max_p p.c - 1/2 ||M p||^2, M the unary indicators; returns p(keep) per word."""
    y = every_structure(length, budget).numpy()
    c = np.array([explicit_score(scores, row) for row in y])
    m = np.concatenate([1 - y, y], 1)  # [S, 2L]
    gram = m @ m.T
    step = 1.0 / float(np.linalg.eigvalsh(gram).max())
    p = np.full(len(y), 1.0 / len(y))
    z, t = p.copy(), 1.0
    for _ in range(steps):
        new = project_simplex(z + step * (c - gram @ z))
        t_next = (1 + (1 + 4 * t * t) ** 0.5) / 2
        z, p, t = new + (t - 1) / t_next * (new - p), new, t_next
    return y.T @ p


@pytest.mark.parametrize("seed", range(8))
def test_budgeted_viterbi_finds_the_best_structure_within_the_budget(seed):
    generator = torch.Generator().manual_seed(seed)
    for length in range(1, 7):
        budget = int(torch.randint(0, length + 1, (1,), generator=generator))
        scores = random_scores(generator, length, budget, scale=2.0)
        candidates = every_structure(length, budget)
        best = max(candidates, key=lambda y: explicit_score(scores, y))
        found = budgeted_viterbi(scores)[0]
        assert found.sum() <= budget
        assert explicit_score(scores, found) == pytest.approx(explicit_score(scores, best), abs=1e-12)
        assert scores.structure_score(found.view(1, 1, -1)).item() == pytest.approx(explicit_score(scores, found))


@pytest.mark.parametrize("seed", range(2))
def test_sparsemap_marginals_match_a_generic_qp_solve_over_every_structure(seed):
    generator = torch.Generator().manual_seed(100 + seed)
    for length in (3, 5, 6):
        budget = int(torch.randint(1, length + 1, (1,), generator=generator))
        # small scores: the solution mixes several structures
        scores = random_scores(generator, length, budget, scale=0.4)
        scores.pair.mul_(0.3)
        ours = sequence_budget_sparsemap(scores.unary[..., 1], scores.unary[..., 0], scores.start, scores.pair,
                                         scores.end, scores.budget)[0]
        expected = generic_sparsemap(scores, length, budget)
        assert ours.tolist() == pytest.approx(expected.tolist(), abs=1e-6)
        assert float(ours.sum()) <= budget + 1e-9


def no_edges(n, length):
    return torch.zeros(n, 2, dtype=D), torch.zeros(n, length - 1, 2, 2, dtype=D), torch.zeros(n, 2, dtype=D)


def test_without_edges_or_an_active_budget_each_word_is_clip_half_score_plus_half():
    # The polytope is then the whole cube and the problem splits per word: max a z - (z^2 + (1 - z)^2) / 2,
    # so z = (a + 1) / 2 clipped to [0, 1], and dz/da = 1/2 strictly inside, 0 where clipped.
    keep = torch.tensor([[0.4, -0.6, 3.0, -2.5]], dtype=D, requires_grad=True)
    drop = torch.zeros_like(keep)
    z = sequence_budget_sparsemap(keep, drop, *no_edges(1, 4), torch.tensor([4]))
    assert z.tolist()[0] == pytest.approx([0.7, 0.2, 1.0, 0.0], abs=1e-9)
    z.sum().backward()
    assert keep.grad.tolist()[0] == pytest.approx([0.5, 0.5, 0.0, 0.0], abs=1e-9)


def test_an_active_budget_caps_the_sum_of_the_marginals():
    # Two equal words, budget 1: on z1 + z2 <= 1 with z1 = z2 = z, max 2 a z - (z^2 + (1 - z)^2): the free
    # optimum (a + 1) / 2 = 0.75 for a = 0.5 exceeds 1/2, so z = 1/2 each; for a = -0.2 it is 0.4 (inactive).
    for a, expected in ((0.5, 0.5), (-0.2, 0.4)):
        keep = torch.full((1, 2), a, dtype=D)
        z = sequence_budget_sparsemap(keep, torch.zeros_like(keep), *no_edges(1, 2), torch.tensor([1]))
        assert z.tolist()[0] == pytest.approx([expected, expected], abs=1e-9)


def test_the_backward_pass_matches_finite_differences():
    generator = torch.Generator().manual_seed(7)
    keep = (torch.randn(2, 5, generator=generator, dtype=D) * 0.5).requires_grad_()
    drop = (torch.randn(2, 5, generator=generator, dtype=D) * 0.5).requires_grad_()
    start, _, end = no_edges(2, 5)
    pair = torch.randn(2, 4, 2, 2, generator=generator, dtype=D) * 0.1
    budget = torch.tensor([2, 5])
    assert torch.autograd.gradcheck(lambda k, d: sequence_budget_sparsemap(k, d, start, pair, end, budget),
                                    (keep, drop), eps=1e-6, atol=1e-5)


def selector(budget=30.0, transition=0.001, edges="span_start", temperature=0.05):
    module = SpectraSelector(input_size=2, budget=budget, transition=transition, temperature=temperature,
                             test_temperature=1e-3, transition_edges=edges, max_iter=100).double()
    with torch.no_grad():
        module.scorer.weight.copy_(torch.tensor([[1.0, 0.0]]))
        module.scorer.bias.zero_()
    return module


def test_budget_is_rounded_half_to_even_percent_of_each_length():
    word_mask = torch.zeros(3, 15)
    for row, n in enumerate((5, 15, 7)):
        word_mask[row, :n] = 1
    # 10 % of 5, 15 and 7 words: round(0.5) = 0, round(1.5) = 2, round(0.7) = 1 (torch.round, as the reference)
    assert word_budget(word_mask, 10.0).tolist() == [0, 2, 1]


def test_padding_is_never_kept_and_evaluation_keeps_the_best_words_within_the_budget():
    module = selector(budget=50.0)
    states = torch.zeros(2, 4, 2, dtype=D)
    states[..., 0] = torch.tensor([[0.3, 0.9, 0.1, 5.0], [0.2, -0.1, 0.8, 0.5]])
    word_mask = torch.tensor([[1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]], dtype=D)
    module.eval()
    mask = module(states, word_mask).mask
    # budgets round(1.5) = 2 and round(2.0) = 2: the two best real words; the padded 5.0 is never kept
    assert mask.tolist() == [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
    # padding past the longest document changes nothing
    wider = module(torch.cat([states, torch.full((2, 3, 2), 9.0, dtype=D)], 1),
                   torch.cat([word_mask, torch.zeros(2, 3, dtype=D)], 1)).mask
    assert wider.tolist() == [row + [0.0, 0.0, 0.0] for row in mask.tolist()]
    module.train()
    soft = module(states, word_mask).mask
    assert soft[0, 3] == 0 and bool((soft.sum(1) <= 2 + 1e-9).all())


def test_the_transition_rewards_span_starts_as_the_reference_runs_it_or_kept_neighbours():
    # Three equal words, budget 2 (67 % of 3): the unaries tie 1 0 1 with 1 1 0; the transition decides.
    states = torch.zeros(1, 3, 2, dtype=D)
    states[..., 0] = 1.0
    word_mask = torch.ones(1, 3, dtype=D)
    spans = selector(budget=67.0, transition=0.1, edges="span_start").eval()
    assert spans(states, word_mask).mask.tolist() == [[1.0, 0.0, 1.0]]  # two span starts
    # 1 1 0 and 0 1 1 tie exactly: SparseMAP mixes them half and half
    neighbours = selector(budget=67.0, transition=0.1, edges="keep_keep").eval()
    assert neighbours(states, word_mask).mask.tolist()[0] == pytest.approx([0.5, 1.0, 0.5], abs=1e-9)


def test_reference_edges_layout():
    word_mask = torch.tensor([[1.0, 1.0, 1.0, 0.0, 0.0]])
    start, pair, end = reference_edges(word_mask, 2.0, "span_start")
    assert start.tolist() == [[0.0, 2.0]] and end.tolist() == [[0.0, 0.0]]
    # drop->keep into words 1..3 (the reference's entries 4 i for i <= length, i < L)
    assert pair[0, :, 0, 1].tolist() == [2.0, 2.0, 2.0, 0.0]
    assert float(pair.sum()) == 6.0
    _, pair, _ = reference_edges(word_mask, 2.0, "keep_keep")
    assert pair[0, :, 1, 1].tolist() == [2.0, 2.0, 0.0, 0.0] and float(pair.sum()) == 4.0


def test_registered_defaults_are_the_reference_beer_settings():
    model, chosen = default_configuration("model", "spectra"), default_configuration("selector", "spectra")
    assert (model.lr, model.weight_decay, model.grad_clip, model.encoder_dropout) == (1e-4, 1e-6, 5.0, 0.1)
    assert (chosen.budget, chosen.transition, chosen.temperature, chosen.test_temperature) == (10.0, 0.001, 0.05, 1e-3)
    assert chosen.transition_edges == "span_start"


def test_one_step_trains_the_selector_through_the_task_loss_alone(family_tiny_dir):
    exp = experiment(family_tiny_dir, "spectra", SHORT_PADDING, "model.lr=1e-2", "model.selector.temperature=1",
                     "model.selector.max_iter=10", "model.selector.budget=20")
    pl.seed_everything(0)
    model = exp.model()
    assert set(model.losses.terms) == {"task"}
    before = model.selector.scorer.weight.detach().clone()
    trainer(1, limit_val_batches=0).fit(model, datamodule=exp.datamodule(0))
    assert not torch.equal(before, model.selector.scorer.weight.detach())
