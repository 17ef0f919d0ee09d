"""Corpora, preprocessing, vocabularies, embeddings and the DataModule.

Loaders return a :class:`Corpus` of :class:`Document` records; the
:class:`SPPDataModule` turns it into :class:`Batch` records. The DataModule is
imported on first use, so reading corpora does not import Lightning.
"""
from __future__ import annotations

from typing import Any

from pyhighlights.data.batch import Batch, Corpus, Document
from pyhighlights.data.beer_lei import LEI_ASPECTS, load_lei_beer
from pyhighlights.data.embeddings import (
    Embeddings,
    build_embeddings,
    build_vocabulary,
    vocabulary_and_embeddings,
)
from pyhighlights.data.encoding import WordEncoder
from pyhighlights.data.errors import CorpusFormatError, CorpusNotFoundError
from pyhighlights.data.r2a import R2A_ASPECTS, load_r2a
from pyhighlights.data.synthetic import synthetic_beer_dir, write_synthetic_beer
from pyhighlights.data.vocabulary import Vocabulary
from pyhighlights.data.word_vectors import WordVectors, load_word_vectors

__all__ = [
    "Batch",
    "Corpus",
    "CorpusFormatError",
    "CorpusNotFoundError",
    "Document",
    "Embeddings",
    "LEI_ASPECTS",
    "R2A_ASPECTS",
    "SPPDataModule",
    "Vocabulary",
    "WordEncoder",
    "WordVectors",
    "build_embeddings",
    "build_vocabulary",
    "load_lei_beer",
    "load_r2a",
    "load_word_vectors",
    "synthetic_beer_dir",
    "vocabulary_and_embeddings",
    "write_synthetic_beer",
]


def __getattr__(name: str) -> Any:
    if name == "SPPDataModule":
        from pyhighlights.data.datamodule import SPPDataModule

        return SPPDataModule
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
