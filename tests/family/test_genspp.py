"""GenSPP: the genetic operators on tiny populations by hand, the fitness formula, chromosomes and fresh predictors."""
from __future__ import annotations

import lightning.pytorch as pl
import numpy as np
import pytest
import torch
from family_helpers import experiment

from pyhighlights.components import genetic
from pyhighlights.components.threshold_selector import ThresholdSelector


class ScriptedRng:
    """Stands in for numpy's Generator: returns the scripted draws and records what each draw was asked."""

    def __init__(self, **draws):
        self.draws = {name: list(values) for name, values in draws.items()}
        self.calls = []

    def _next(self, name, *args, **kwargs):
        self.calls.append((name, args, kwargs))
        return self.draws[name].pop(0)

    def choice(self, *args, **kwargs):
        return np.asarray(self._next("choice", *args, **kwargs))

    def integers(self, *args, **kwargs):
        return self._next("integers", *args, **kwargs)

    def uniform(self, *args, **kwargs):
        return np.asarray(self._next("uniform", *args, **kwargs))

    def normal(self, *args, **kwargs):
        return np.asarray(self._next("normal", *args, **kwargs))


def test_fitness_by_hand():
    # ce 0.19, selection 0.36: loss = 1 - sqrt(0.64 * 0.81) = 1 - 0.72 = 0.28
    assert genetic.fitness(0.19, 0.36, ce_limit=0.6) == pytest.approx(1 / 0.28, rel=1e-7)
    # above the expected-loss limit: the floor, whatever the selection
    assert genetic.fitness(0.61, 0.01, ce_limit=0.6) == 1.0
    # ce above 1 but under a loose limit: (1 - ce) is clipped at 0, loss 1, fitness 1 / (1 + 1e-8)
    assert genetic.fitness(1.2, 0.1, ce_limit=2.0) == pytest.approx(1.0, abs=1e-7)
    # selecting everything is the worst selection: loss 1 whatever the ce
    assert genetic.fitness(0.0, 1.0, ce_limit=0.6) == pytest.approx(1.0, abs=1e-7)


def test_roulette_draws_couples_with_probability_proportional_to_fitness():
    rng = ScriptedRng(choice=[[1, 1], [0, 2]])
    couples = genetic.roulette_couples([1.0, 3.0, 4.0, 2.0, 10.0], rate=0.5, rng=rng)
    assert couples == [(1, 1), (0, 2)]  # int(0.5 * 5) = 2 couples; a couple may repeat a parent
    for name, args, kwargs in rng.calls:
        assert args == (5,) and kwargs["size"] == 2 and kwargs["replace"] is True
        assert kwargs["p"].tolist() == pytest.approx([0.05, 0.15, 0.2, 0.1, 0.5])


def test_roulette_frequencies_follow_fitness():
    rng = np.random.default_rng(0)
    parents = [i for _ in range(1000) for couple in genetic.roulette_couples([1.0, 3.0], 1.0, rng) for i in couple]
    assert len(parents) == 4000 and np.mean(np.asarray(parents) == 1) == pytest.approx(0.75, abs=0.02)


def test_roulette_refuses_non_positive_fitness():
    with pytest.raises(ValueError, match="positive"):
        genetic.roulette_couples([1.0, 0.0], 0.5, np.random.default_rng(0))


def test_one_point_crossover_by_hand():
    rng = ScriptedRng(integers=[2])
    a, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, 6.0, 7.0, 8.0])
    first, second = genetic.one_point_crossover(a, b, rng)
    assert first.tolist() == [1.0, 2.0, 7.0, 8.0] and second.tolist() == [5.0, 6.0, 3.0, 4.0]
    assert rng.calls == [("integers", (0, 4), {})]  # a cut in [0, L): cut 0 swaps the parents whole


def test_gaussian_mutation_by_hand():
    rng = ScriptedRng(uniform=[[0.1, 0.9, 0.3]], normal=[[1.0, 2.0, -1.0]])
    std = np.array([0.05, 0.05, 0.10])
    mutated = genetic.gaussian_mutation(np.array([1.0, 1.0, 1.0]), std, probability=0.5, rng=rng)
    # genes 0 and 2 drawn (0.1, 0.3 < 0.5): + 0.05 * 1 and + 0.10 * -1; gene 1 unchanged
    assert mutated.tolist() == pytest.approx([1.05, 1.0, 0.9], abs=1e-12)


def test_half_elitism_by_hand():
    # fitness by index: sorted best first 5 (6), 1 (5), 4 (4), 2 (3), 3 (2), 0 (1); the best two stay
    rng = ScriptedRng(choice=[[2, 0]])
    population = genetic.half_elitism([1.0, 5.0, 3.0, 2.0, 4.0, 6.0], size=4, rng=rng)
    # the rest (4, 2, 3, 0) drawn two without replacement, p = (4, 3, 2, 1) / 10; draws 2, 0 -> indices 3, 4
    assert population == [5, 1, 3, 4]
    _, args, kwargs = rng.calls[0]
    assert args == (4,) and kwargs["size"] == 2 and kwargs["replace"] is False
    assert kwargs["p"].tolist() == pytest.approx([0.4, 0.3, 0.2, 0.1])


def test_half_elitism_odd_size_takes_the_first_undrawn():
    rng = ScriptedRng(choice=[[1]])
    # size 3: keep 1 (index 0), draw 1 of the rest (1, 2, 3 by fitness), then the first undrawn fills the third
    assert genetic.half_elitism([9.0, 3.0, 2.0, 1.0], size=3, rng=rng) == [0, 2, 1]


def test_elitism_keeps_the_fittest_and_ties_keep_their_order():
    assert genetic.elitism([2.0, 5.0, 5.0, 1.0], size=3, rng=None) == [1, 2, 0]


def test_threshold_selector_keeps_a_word_at_logit_zero_and_never_padding():
    selector = ThresholdSelector(input_size=1)
    with torch.no_grad():
        selector.scorer.weight.fill_(1.0)
        selector.scorer.bias.fill_(0.0)
    states = torch.tensor([[[-0.5], [0.0], [0.7], [2.0]]])
    selection = selector(states, torch.tensor([[1, 1, 1, 0]]))
    assert selection.mask.tolist() == [[0.0, 1.0, 1.0, 0.0]]
    assert selection.keep_probability[0, 2].item() == pytest.approx(1 / (1 + np.exp(-0.7)))


@pytest.fixture(scope="module")
def tiny_experiment(family_tiny_dir):
    return experiment(family_tiny_dir, "genspp", "model.pad_to=null")


@pytest.fixture
def model(tiny_experiment):
    pl.seed_everything(0)
    return tiny_experiment.model()


def test_chromosome_is_the_selector_path_without_embeddings(model):
    genes = model.chromosome()
    names = [name for name, _ in model.chromosome_parameters()]
    assert not any("embedding" in name for name in names)
    assert {n.split(".")[0] for n in names} == {"selector_encoder", "selector"}
    assert len(genes) == sum(p.numel() for _, p in model.chromosome_parameters())
    # the threshold gene is the selector's output bias, the last parameter of the path
    assert model.threshold_genes().tolist() == [len(genes) - 1]
    assert not any(p.requires_grad for m in model.selector_path() for p in m.parameters())
    # set, then read back exactly (float32 parameters: the genes are float32 values in float64)
    other = genes + 0.25
    model.set_chromosome(other)
    assert np.array_equal(model.chromosome(), other.astype(np.float32).astype(np.float64))
    with pytest.raises(ValueError, match="genes"):
        model.set_chromosome(genes[:-1])


def test_fresh_predictor_is_seeded_and_keeps_the_initial_embeddings(model):
    initial = model.predictor_state()
    model.fresh_predictor(7)
    seven = model.predictor_state()
    model.fresh_predictor(8)
    eight = model.predictor_state()
    model.fresh_predictor(7)
    again = model.predictor_state()
    assert all(torch.equal(seven[k], again[k]) for k in seven)
    embedding = [k for k in seven if "embedding" in k]
    assert embedding and all(torch.equal(seven[k], initial[k]) and torch.equal(eight[k], initial[k])
                             for k in embedding)
    assert any(not torch.equal(seven[k], eight[k]) for k in seven if k not in embedding)


def test_selector_path_stays_in_eval_mode(model):
    model.train()
    assert not any(m.training for part in model.selector_path() for m in part.modules())
    assert model.predictor_encoder.training


def test_a_search_over_several_processes_is_refused_naming_the_setting(family_tiny_dir):
    from pyhighlights.config.resolve import ConfigError

    with pytest.raises(ConfigError, match=r"model=genspp searches in one process: set trainer.devices=1"):
        experiment(family_tiny_dir, "genspp", "model.pad_to=null", "trainer.devices=2", "trainer.strategy=ddp_spawn")
