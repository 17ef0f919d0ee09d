"""Environments of a corpus, for models that need them (InvRat: Chang, Zhang, Yu and Jaakkola, ICML 2020,
"Invariant Rationalization").

A document's environment is :attr:`Document.environment` (an index from 0), carried into every batch as
``Batch.environments``. The InvRat reference (github.com/code-terminator/invariant_rationalization, commit
e88eaef67cb1a4c3c4b9be2f08eaa2b8e55e4c6f) reads it in one of two ways:

- Beer (branch ``beer_review``, ``beer.py get_examples``): the third column of the authors' ``train.tsv`` and
  ``dev.tsv``, a partition they release only on request (the reviews are no longer public), so it cannot be
  rebuilt here;
- IMDB (``imdb.py pollute_data``): built from the corpus. Each class is shuffled and cut into ``num_envs``
  equal parts (the last takes the remainder), part ``e`` is environment ``e``; then, with the probability
  ``pollution[e]`` of its environment, a document gets a token that agrees with its label prepended (``","``
  for positive, ``"."`` for negative), otherwise the token of the other label: a spurious cue whose strength
  differs across environments. The reference pollutes train with [0.7, 0.9], dev with [0.5, 0.5] and test
  with [0.3, 0.1] (``1 - p``).

:func:`with_environments` is that construction for any two-class corpus (``pollution`` None: the partition
alone). The prepended token is never a human highlight.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from pyhighlights.data.batch import Corpus, Document

#: The reference's spurious tokens: index = label (imdb.py: ", " for y = 1, ". " for y = 0).
SPURIOUS_TOKENS = (".", ",")


def partition(labels: list[int], num_envs: int, rng: np.random.Generator) -> list[int]:
    """Environment of each document: every class shuffled, cut into ``num_envs`` parts of floor(n / num_envs)
    (the last part takes the rest), part e -> environment e (imdb.py ``pollute_data``)."""
    if num_envs < 1:
        raise ValueError(f"environments: expected at least 1, got {num_envs}")
    environments = [0] * len(labels)
    for label in sorted(set(labels)):
        members = np.array([i for i, y in enumerate(labels) if y == label])
        rng.shuffle(members)
        size = math.floor(len(members) / num_envs)
        for env in range(num_envs):
            stop = len(members) if env == num_envs - 1 else (env + 1) * size
            for i in members[env * size:stop]:
                environments[int(i)] = env
    return environments


def polluted(document: Document, agrees: bool) -> Document:
    """``document`` with its label's spurious token prepended (the other label's when not ``agrees``)."""
    if document.label not in (0, 1):
        raise ValueError(f"document {document.doc_id}: pollution needs labels 0/1, got {document.label}")
    token = SPURIOUS_TOKENS[document.label if agrees else 1 - document.label]
    highlights = None if document.highlights is None else [0, *document.highlights]
    spans = None if document.highlight_spans is None else [(s + 1, e + 1) for s, e in document.highlight_spans]
    return replace(document, tokens=[token, *document.tokens], highlights=highlights, highlight_spans=spans)


def assign(documents: list[Document], num_envs: int, pollution: list[float] | None, seed: int) -> list[Document]:
    """The documents with their environments (and, with ``pollution``, their spurious tokens), seeded."""
    if pollution is not None and len(pollution) != num_envs:
        raise ValueError(f"pollution: one rate per environment expected ({num_envs}), got {list(pollution)}")
    rng = np.random.default_rng(seed)
    environments = partition([d.label for d in documents], num_envs, rng)
    out = []
    for document, env in zip(documents, environments):
        if pollution is not None:
            document = polluted(document, bool(rng.random() < pollution[env]))
        out.append(replace(document, environment=env))
    return out


def with_environments(corpus: Corpus, num_envs: int, pollution: list[float] | None = None,
                      seed: int = 0) -> Corpus:
    """Every split of ``corpus`` partitioned into ``num_envs`` environments; with ``pollution`` (one rate per
    environment) the training split is polluted at those rates, validation at 0.5 and test at ``1 - rate``,
    as the reference's IMDB demo."""
    rates = {"train": pollution, "validation": None, "test": None}
    if pollution is not None:
        rates["validation"] = [0.5] * num_envs
        rates["test"] = [1.0 - p for p in pollution]
    splits = {name: assign(corpus.split(name), num_envs, rates[name], seed + offset)
              for offset, name in enumerate(("train", "validation", "test"))}
    info = {**corpus.info, "environments": {"count": num_envs, "pollution": pollution, "seed": seed}}
    return replace(corpus, train=splits["train"], validation=splits["validation"], test=splits["test"], info=info)


#: How a corpus gets InvRat's environments, for :func:`require_environments`.
PARTITION_HOW = ("give the Beer and Hotel corpora dataset.environments=2 (every split partitioned per class at "
                 "random, as the InvRat reference builds its environments; dataset.pollution=[0.7,0.9] adds its "
                 "spurious token), or build a corpus whose documents set Document.environment "
                 "(pyhighlights.data.environments.with_environments)")


def require_environments(batch_environments, what: str, how: str = PARTITION_HOW) -> None:
    """A clear error, saying ``how`` to get them, when a part that needs environments gets a batch without them."""
    if batch_environments is None:
        raise ValueError(f"{what} needs each document's environment, and this corpus gives none: {how}")
