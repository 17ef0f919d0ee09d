"""ERASER movies: multi-line documents, end-exclusive evidence spans, truncation, errors."""
from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from corpora_fixtures import MOVIES, append_line, copy_fixture
from pyhighlights.data.errors import CorpusFormatError, CorpusNotFoundError
from pyhighlights.data.movies import load_movies, read_movie_document


def _annotation(docid: str, label: str, *spans: tuple[int, int], text: str | None = None) -> str:
    evidences = [[{"docid": docid, "start_token": s, "end_token": e, **({"text": text} if text else {})}]
                 for s, e in spans]
    return json.dumps({"annotation_id": docid, "classification": label, "docids": None, "evidences": evidences})


def test_documents_concatenate_their_lines() -> None:
    tokens = read_movie_document(MOVIES / "docs" / "negR_test_000.txt")
    lines = (MOVIES / "docs" / "negR_test_000.txt").read_text().splitlines()
    assert len(lines) == 4 and tokens == " ".join(lines).split()


def test_labels_and_end_exclusive_evidence() -> None:
    corpus = load_movies(MOVIES)
    assert corpus.name == "movies" and corpus.label_names == ["negative", "positive"]
    assert [len(corpus.train), len(corpus.validation), len(corpus.test)] == [6, 2, 2]
    first = corpus.test[0]
    assert first.doc_id == "negR_test_000.txt" and first.label == 0
    assert corpus.test[1].label == 1
    record = json.loads((MOVIES / "test.jsonl").read_text().splitlines()[0])
    for (evidence,) in record["evidences"]:
        start, end = evidence["start_token"], evidence["end_token"]
        assert first.tokens[start:end] == evidence["text"].split()
        assert first.highlights[start:end] == [1] * (end - start)
        assert first.highlights[end] == 0 and first.highlights[start - 1] == 0  # the "." after / before
    assert sum(first.highlights) == sum(e["end_token"] - e["start_token"] for (e,) in record["evidences"])


def test_truncation_is_counted_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="pyhighlights.data.movies"):
        corpus = load_movies(MOVIES, max_length=12)
    assert all(len(d.tokens) == 12 and len(d.highlights) == 12 for d in corpus.test)
    test = corpus.info["splits"]["test"]
    assert test["truncated"] == 2 and test["highlight_words_truncated"] > 0 and test["longest_document"] > 12
    assert "truncated to max_length=12 words" in caplog.text


def test_annotation_without_evidence_is_unannotated(tmp_path: Path) -> None:
    root = copy_fixture(MOVIES, tmp_path)
    (root / "docs" / "extra.txt").write_text("a plain review\nwith two lines\n")
    append_line(root / "val.jsonl", json.dumps({"annotation_id": "extra.txt", "classification": "POS",
                                                "evidences": []}))
    corpus = load_movies(root)
    assert corpus.validation[-1].highlights is None
    assert corpus.info["splits"]["validation"]["unannotated"] == 1


def test_span_out_of_range_names_file_line_and_record(tmp_path: Path) -> None:
    root = copy_fixture(MOVIES, tmp_path)
    (root / "docs" / "short.txt").write_text("only five tokens here .\n")
    path = root / "val.jsonl"
    line = append_line(path, _annotation("short.txt", "NEG", (2, 6)))
    expected = rf"val.jsonl, line {line}: annotation 'short.txt': evidence span \[2, 6\) is out of range .* 5 tokens"
    with pytest.raises(CorpusFormatError, match=expected) as caught:
        load_movies(root)
    assert caught.value.path == path


def test_end_is_exclusive_so_end_equal_to_length_is_valid(tmp_path: Path) -> None:
    root = copy_fixture(MOVIES, tmp_path)
    (root / "docs" / "short.txt").write_text("only five tokens\nhere .\n")
    append_line(root / "val.jsonl", _annotation("short.txt", "NEG", (3, 5), text="here ."))
    assert load_movies(root).validation[-1].highlights == [0, 0, 0, 1, 1]


def test_evidence_text_mismatch_catches_off_by_one(tmp_path: Path) -> None:
    root = copy_fixture(MOVIES, tmp_path)
    (root / "docs" / "short.txt").write_text("only five tokens here .\n")
    line = append_line(root / "test.jsonl", _annotation("short.txt", "POS", (1, 3), text="five tokens here"))
    with pytest.raises(CorpusFormatError, match=rf"line {line}: .*does not match tokens \[1, 3\)"):
        load_movies(root)
    assert load_movies(root, check_evidence_text=False).test[-1].highlights == [0, 1, 1, 0, 0]


def test_unknown_label(tmp_path: Path) -> None:
    root = copy_fixture(MOVIES, tmp_path)
    line = append_line(root / "train.jsonl", _annotation("negR_train_000.txt", "NEUTRAL"))
    with pytest.raises(CorpusFormatError, match=rf"train.jsonl, line {line}: .*unknown label 'NEUTRAL'"):
        load_movies(root)


def test_missing_document_and_bad_json(tmp_path: Path) -> None:
    root = copy_fixture(MOVIES, tmp_path)
    line = append_line(root / "test.jsonl", _annotation("nowhere.txt", "POS"))
    with pytest.raises(CorpusFormatError, match=rf"line {line}: annotation 'nowhere.txt': the document docs/nowhere"):
        load_movies(root)
    corpus = load_movies(root, skip_malformed=True)
    assert corpus.info["splits"]["test"]["malformed_skipped"] == 1 and len(corpus.test) == 2
    line = append_line(root / "val.jsonl", '{"annotation_id": ')
    with pytest.raises(CorpusFormatError, match=rf"val.jsonl, line {line}: expected one JSON object a line"):
        load_movies(root)


def test_missing_files_name_eraser(tmp_path: Path) -> None:
    with pytest.raises(CorpusNotFoundError, match="ERASER") as caught:
        load_movies(tmp_path)
    assert any("val.jsonl" in name for name in caught.value.missing)
    for name in ("train.jsonl", "val.jsonl", "test.jsonl"):
        (tmp_path / name).write_text("")
    with pytest.raises(CorpusNotFoundError, match="docs/"):
        load_movies(tmp_path)
