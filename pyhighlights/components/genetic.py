"""GenSPP's genetic operators over flat chromosomes (Ruggeri and Signorelli, ACL 2025, *Interlocking-free Selective
Rationalization Through Genetic-based Learning*; reference: github.com/federicoruggeri/gen-spp, commit 79a3574,
``genetic/src/genetic/`` and ``genetic/src/genetic/individual.py``).

A chromosome is the selector path's parameters, flattened into one float64 vector. Every random draw comes from the
numpy ``Generator`` passed in, so a search that saves the generator's state with its population continues exactly.

- :func:`fitness`: ``individual.py compute_fitness``: with ce the predictor's mean cross-entropy on the validation
  documents and s their mean selection rate, loss = 1 - sqrt((1 - s) * max(1 - ce, 0)) and fitness
  1 / (loss + 1e-8), or 1 (the floor) when ce exceeds the expected-loss limit. (The reference's optional confidence
  term is off in its released configuration and is not carried over.)
- :func:`roulette_couples`: ``selection/roulette_wheel.py``: int(rate * P) couples, each two draws with replacement
  with probability proportional to fitness (a couple may repeat one parent).
- :func:`one_point_crossover`: ``crossover/one_point.py``: a cut point c uniform in [0, L); children
  a[:c] + b[c:] and b[:c] + a[c:].
- :func:`gaussian_mutation`: ``mutation/gaussian.py`` (noise mode) under ``mutation/split_mutator.py``: each gene,
  with probability p, gets N(0, std) added; the reference's configuration uses std 0.05 for every gene but the
  selector's output bias (its decision threshold), which gets 0.10, and p = 1.
- :func:`half_elitism`: ``survival/half_elitism.py``: sort by fitness (descending, stable); keep the best
  int(P / 2); from the rest draw int(P / 2) without replacement with probability proportional to fitness; the
  population is those, then the undrawn, cut to P.
"""
from __future__ import annotations

import math

import numpy as np

#: The fitness of a candidate whose predictor misses the expected loss (the reference's floor).
FLOOR = 1.0


def fitness(ce: float, sparsity: float, ce_limit: float) -> float:
    """Higher is better: 1 / (1 - sqrt((1 - sparsity) * max(1 - ce, 0)) + 1e-8), or :data:`FLOOR` above the limit."""
    if not (math.isfinite(ce) and math.isfinite(sparsity)) or ce > ce_limit:
        return FLOOR
    loss = 1.0 - math.sqrt((1.0 - sparsity) * max(1.0 - ce, 0.0))
    return 1.0 / (loss + 1e-8)


def _probabilities(scores: np.ndarray) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1 or not len(scores) or not np.all(np.isfinite(scores)) or np.any(scores <= 0):
        raise ValueError(f"fitness values must be finite and positive, got {scores.tolist()}")
    return scores / scores.sum()


def roulette_couples(scores, rate: float, rng: np.random.Generator) -> list[tuple[int, int]]:
    """int(rate * P) couples of population indices, each parent drawn with probability fitness / total."""
    p = _probabilities(scores)
    couples = []
    for _ in range(int(rate * len(p))):
        first, second = rng.choice(len(p), size=2, replace=True, p=p)
        couples.append((int(first), int(second)))
    return couples


def one_point_crossover(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The two children of one cut point c in [0, len): (a[:c] + b[c:], b[:c] + a[c:])."""
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"chromosomes must be flat and of one length, got {a.shape} and {b.shape}")
    cut = int(rng.integers(0, len(a)))
    return np.concatenate([a[:cut], b[cut:]]), np.concatenate([b[:cut], a[cut:]])


def no_crossover(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The parents themselves (the reference's ``identity.py``): only mutation varies the children."""
    return a.copy(), b.copy()


CROSSOVERS = {"one_point": one_point_crossover, "none": no_crossover}


def gaussian_mutation(chromosome: np.ndarray, std: np.ndarray, probability: float,
                      rng: np.random.Generator) -> np.ndarray:
    """``chromosome`` + N(0, std) on each gene drawn with ``probability`` (``std``: one value per gene).

    Every gene's uniform is drawn, then every gene's normal. (The reference draws per section of its
    ``SplitMutation``: the uniforms, then the normals, of every gene but the threshold, then the threshold's; its
    draws come from numpy's global generator, so its stream is not ours in any order. Given the same per-gene
    uniforms and normals, the children are the same.)
    """
    chosen = rng.uniform(0.0, 1.0, size=len(chromosome)) < probability
    noise = rng.normal(0.0, 1.0, size=len(chromosome)) * std
    return chromosome + noise * chosen


def half_elitism(scores, size: int, rng: np.random.Generator) -> list[int]:
    """The indices of the next population (of ``size``), best first."""
    scores = np.asarray(scores, dtype=np.float64)
    order = sorted(range(len(scores)), key=lambda i: -scores[i])  # stable: ties keep their order
    half = size // 2
    kept, rest = order[:half], order[half:]
    drawn = [rest[int(i)] for i in rng.choice(len(rest), size=half, replace=False, p=_probabilities(scores[rest]))]
    undrawn = [i for i in rest if i not in drawn]
    return (kept + drawn + undrawn)[:size]


def elitism(scores, size: int, rng: np.random.Generator) -> list[int]:
    """The ``size`` fittest (the reference's ``elitism.py``); draws nothing."""
    scores = np.asarray(scores, dtype=np.float64)
    return sorted(range(len(scores)), key=lambda i: -scores[i])[:size]


SURVIVALS = {"half_elitism": half_elitism, "elitism": elitism}
