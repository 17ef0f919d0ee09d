from __future__ import annotations

from pathlib import Path

import pytest

from corpus_fixture_files import ANNOTATION_LINES, HELDOUT_LINES, TRAIN_LINES, review, write_text
from pyhighlights.data.beer_lei import load_lei_beer, resolve_lei_aspect
from pyhighlights.data.errors import CorpusFormatError, CorpusNotFoundError


def test_binarisation_and_balancing_counts(lei_dir: Path) -> None:
    corpus = load_lei_beer(lei_dir, "aroma", seed=0)
    train = corpus.info["splits"]["train"]
    # 7 lines: 2 middle band, 3 positive, 2 negative -> one positive dropped.
    assert train["records"] == 7
    assert train["middle_band_dropped"] == 2
    assert train["balance_dropped"] == 1
    assert train["kept"] == 4 and train["label_counts"] == [2, 2]
    assert sorted(d.label for d in corpus.train) == [0, 0, 1, 1]
    assert {" ".join(d.tokens) for d in corpus.train if d.label == 0} == {"smells stale", "smells awful"}
    assert all(d.highlights is None for d in corpus.train + corpus.validation)
    # Validation is binarised but not balanced.
    validation = corpus.info["splits"]["validation"]
    assert validation["middle_band_dropped"] == 1 and validation["label_counts"] == [1, 2]
    assert "balance_dropped" not in validation
    assert corpus.label_names == ["negative", "positive"] and corpus.name == "beer/aroma"
    assert corpus.info["aspect"] == "aroma" and corpus.info["aspect_index"] == 1


def test_balancing_is_seeded(lei_dir: Path) -> None:
    kept = {seed: [d.doc_id for d in load_lei_beer(lei_dir, 1, seed=seed).train] for seed in range(8)}
    assert kept[3] == [d.doc_id for d in load_lei_beer(lei_dir, 1, seed=3).train]
    assert len({tuple(ids) for ids in kept.values()}) > 1
    unbalanced = load_lei_beer(lei_dir, 1, balance=False)
    assert unbalanced.info["splits"]["train"]["label_counts"] == [2, 3]


def test_annotation_spans_are_end_exclusive(lei_dir: Path) -> None:
    corpus = load_lei_beer(lei_dir, 1)
    test = corpus.info["splits"]["test"]
    assert test["no_rationale_skipped"] == 1 and test["middle_band_dropped"] == 1
    first, second = corpus.test
    assert first.tokens == "t0 t1 t2 t3 t4 t5".split()
    assert first.highlights == [0, 1, 1, 0, 0, 0]
    assert first.label == 1
    assert second.highlights == [1, 0, 0, 1] and second.label == 0
    assert first.doc_id == "annotations.json:1"


def test_truncation_cuts_tokens_and_highlights(lei_dir: Path) -> None:
    corpus = load_lei_beer(lei_dir, 1, max_length=2, balance=False)
    assert all(len(d.tokens) <= 2 for d in corpus.train + corpus.validation + corpus.test)
    assert corpus.info["splits"]["train"]["truncated"] == 2  # "smells lovely indeed", "a b ... h"
    assert corpus.info["splits"]["test"]["truncated"] == 2
    assert corpus.test[0].highlights == [0, 1]


@pytest.mark.parametrize("aspect", ["aroma", "AROMA", 1, "1"])
def test_aspect_by_name_or_index(aspect: str | int) -> None:
    assert resolve_lei_aspect(aspect) == 1


@pytest.mark.parametrize("aspect", ["taste", 3, "-1", True, None])
def test_bad_aspect_lists_allowed(aspect: object) -> None:
    with pytest.raises(ValueError, match="appearance.*aroma.*palate"):
        resolve_lei_aspect(aspect)


def test_gz_files_are_read_and_plain_preferred(tmp_path: Path) -> None:
    write_text(tmp_path / "reviews.aspect1.train.txt", TRAIN_LINES, gz=True)
    write_text(tmp_path / "reviews.aspect1.heldout.txt", HELDOUT_LINES, gz=True)
    write_text(tmp_path / "annotations.json", ANNOTATION_LINES, gz=True)
    corpus = load_lei_beer(tmp_path, 1)
    assert corpus.info["files"]["train"].endswith(".gz")
    assert corpus.info["splits"]["train"]["kept"] == 4 and len(corpus.test) == 2
    # A plain file next to the .gz wins.
    write_text(tmp_path / "reviews.aspect1.heldout.txt", [review([0.5, 0.9, 0.5, 0.5, 0.5], "plain")])
    corpus = load_lei_beer(tmp_path, 1)
    assert [d.tokens for d in corpus.validation] == [["plain"]]


def test_missing_files_name_expected_files_and_source(tmp_path: Path) -> None:
    with pytest.raises(CorpusNotFoundError) as caught:
        load_lei_beer(tmp_path / "nowhere", "palate")
    message = str(caught.value)
    for name in ("reviews.aspect2.train.txt", "reviews.aspect2.heldout.txt", "annotations.json"):
        assert name in message
    assert "does not exist" in message and "Lei" in message and "Rationalizing Neural Predictions" in message
    write_text(tmp_path / "reviews.aspect2.train.txt", TRAIN_LINES)
    with pytest.raises(CorpusNotFoundError) as caught:
        load_lei_beer(tmp_path, 2)
    assert "reviews.aspect2.train.txt" not in str(caught.value)
    assert "annotations.json (or annotations.json.gz)" in str(caught.value)


MALFORMED_REVIEWS = [
    ("0.5 0.6 0.5 0.5 0.5 no tab here", "no TAB"),
    ("0.5 0.6 0.5 0.5\tfour scores", "5 space-separated scores before the TAB, found 4"),
    ("0.5 high 0.5 0.5 0.5\tnot a float", "not a number: 'high'"),
    ("0.5 1.5 0.5 0.5 0.5\tout of range", r"must be in \[0, 1\]"),
    ("0.5 nan 0.5 0.5 0.5\tnan", r"must be in \[0, 1\]"),
    ("0.5 0.6 0.5 0.5 0.5\t   ", "review text"),
    ("", "no TAB"),
]


@pytest.mark.parametrize("line, expected", MALFORMED_REVIEWS)
def test_malformed_review_names_file_and_line(lei_dir: Path, line: str, expected: str) -> None:
    path = lei_dir / "reviews.aspect1.heldout.txt"
    write_text(path, HELDOUT_LINES[:2] + [line] + HELDOUT_LINES[2:])
    with pytest.raises(CorpusFormatError, match=expected) as caught:
        load_lei_beer(lei_dir, 1)
    assert str(caught.value).startswith(f"{path}, line 3: ")
    assert caught.value.line == 3 and caught.value.path == path
    corpus = load_lei_beer(lei_dir, 1, skip_malformed=True)
    assert corpus.info["splits"]["validation"]["malformed_skipped"] == 1
    assert len(corpus.validation) == 3


MALFORMED_ANNOTATIONS = [
    ('{"x": ["a"], "y": [0.5, 0.5, 0.5, 0.5, 0.5], "1": [[0, 1]]', "expected a JSON object"),
    ('["a", "b"]', "expected a JSON object, got list"),
    ('{"y": [0.5, 0.9, 0.5, 0.5, 0.5], "1": [[0, 1]]}', r"missing key\(s\) \['x'\]"),
    ('{"x": ["a"], "y": [0.5, 0.9, 0.5, 0.5, 0.5], "0": []}', r"missing key\(s\) \['1'\]"),
    ('{"x": ["a", "b"], "y": [0.5, 0.9, 0.5, 0.5, 0.5], "1": [[1, 3]]}', "out of range.*2 tokens"),
    ('{"x": ["a", "b"], "y": [0.5, 0.9, 0.5, 0.5, 0.5], "1": [[1, 1]]}', "out of range"),
    ('{"x": ["a", "b"], "y": [0.5, 0.9, 0.5, 0.5, 0.5], "1": [[1]]}', r"\[start, end\] integers"),
    ('{"x": ["a", "b"], "y": [0.5, 0.9], "1": [[0, 1]]}', "list of 5 scores"),
    ('{"x": ["a", "b"], "y": [0.5, "hi", 0.5, 0.5, 0.5], "1": [[0, 1]]}', "must be a number"),
    ('{"x": [], "y": [0.5, 0.9, 0.5, 0.5, 0.5], "1": []}', "non-empty list of token strings"),
]


@pytest.mark.parametrize("line, expected", MALFORMED_ANNOTATIONS)
def test_malformed_annotation_names_file_and_line(lei_dir: Path, line: str, expected: str) -> None:
    path = lei_dir / "annotations.json"
    write_text(path, ANNOTATION_LINES + [line])
    with pytest.raises(CorpusFormatError, match=expected) as caught:
        load_lei_beer(lei_dir, 1)
    assert str(caught.value).startswith(f"{path}, line 5: ")
    corpus = load_lei_beer(lei_dir, 1, skip_malformed=True)
    assert corpus.info["splits"]["test"]["malformed_skipped"] == 1 and len(corpus.test) == 2


def test_bad_utf8_names_the_line(lei_dir: Path) -> None:
    path = lei_dir / "reviews.aspect1.train.txt"
    path.write_bytes(b"0.5 0.6 0.5 0.5 0.5\tok\n0.5 0.6 0.5 0.5 0.5\tbad \xff byte\n")
    with pytest.raises(CorpusFormatError, match="line 2: expected UTF-8"):
        load_lei_beer(lei_dir, 1)
