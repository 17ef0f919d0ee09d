"""Hotel reviews in the R2A layout: parsing, labels, highlight alignment, errors, leakage."""
from __future__ import annotations

from pathlib import Path

import pytest

from corpora_fixtures import HOTEL, append_line, copy_fixture
from pyhighlights.data.errors import CorpusFormatError, CorpusNotFoundError
from pyhighlights.data.hotel import load_hotel, resolve_hotel_aspect


def test_reads_location_with_labels_and_highlights() -> None:
    corpus = load_hotel(HOTEL, "location")
    assert corpus.name == "hotel/Location" and corpus.label_names == ["negative", "positive"]
    assert (len(corpus.validation), len(corpus.test)) == (6, 6)
    first = corpus.test[0]
    assert first.doc_id == "hotel_Location.train:2" and first.label == 0
    # The rationale column marks exactly the location phrase, token by token.
    highlighted = [token for token, mark in zip(first.tokens, first.highlights) if mark]
    assert highlighted == ["noisy", "area", "near", "the", "highway"]
    assert all(d.highlights is None for d in corpus.train + corpus.validation)
    assert corpus.info["annotated_test_expected"] == 200


def test_planted_leak_is_removed_from_train_by_default() -> None:
    corpus = load_hotel(HOTEL, 0)
    leakage = corpus.info["leakage"]
    assert leakage["shared"]["train/test"] == 1 and leakage["removed"]["train"] == 1
    assert leakage["removed_shared"] is True
    assert corpus.info["splits"]["train"]["records"] == 17 and len(corpus.train) == 16
    test_texts = {" ".join(d.tokens) for d in corpus.test}
    assert not any(" ".join(d.tokens) in test_texts for d in corpus.train)
    kept = load_hotel(HOTEL, 0, remove_leakage=False)
    assert len(kept.train) == 17 and kept.info["leakage"]["removed"]["train"] == 0


def test_a_text_starting_with_a_quote_is_one_document_per_line(tmp_path: Path) -> None:
    root = copy_fixture(HOTEL, tmp_path)
    path = root / "hotel_Location.train"
    lines = path.read_text().splitlines()
    label, text = lines[1].split("\t")
    lines[1] = f'{label}\t" {text}'  # an unclosed quote, as tokenised reviews have
    path.write_text("\n".join(lines) + "\n")
    corpus = load_hotel(root, "location", remove_leakage=False)
    assert len(corpus.train) == len(lines) - 1 == 17
    assert corpus.train[0].tokens[:2] == ['"', text.split()[0]]
    assert corpus.train[1].doc_id == "hotel_Location.train:3"


@pytest.mark.parametrize("aspect, name", [("location", "Location"), ("Service", "Service"), (2, "Cleanliness"),
                                          ("1", "Service")])
def test_aspects(aspect: object, name: str) -> None:
    assert resolve_hotel_aspect(aspect) == name
    assert load_hotel(HOTEL, aspect).name == f"hotel/{name}"


def test_unknown_aspect_lists_the_three() -> None:
    with pytest.raises(ValueError, match="0 or 'location', 1 or 'service', 2 or 'cleanliness'"):
        resolve_hotel_aspect("rooms")


def test_wrong_column_count_names_file_and_line(tmp_path: Path) -> None:
    root = copy_fixture(HOTEL, tmp_path)
    path = root / "hotel_Location.dev"
    line = append_line(path, "1\tgood location\textra field")
    with pytest.raises(CorpusFormatError, match=rf"line {line}: expected 2 tab-separated fields") as caught:
        load_hotel(root, "location")
    assert caught.value.path == path and caught.value.line == line


def test_rationale_length_mismatch_names_file_and_line(tmp_path: Path) -> None:
    root = copy_fixture(HOTEL, tmp_path)
    path = root / "annotations" / "hotel_Service.train"
    line = append_line(path, "1\tthe staff were lovely\t0 1 1")
    with pytest.raises(CorpusFormatError, match="rationale has 3 values but the text has 4 tokens") as caught:
        load_hotel(root, "service")
    assert caught.value.path == path and caught.value.line == line


def test_unknown_label_names_file_and_line(tmp_path: Path) -> None:
    root = copy_fixture(HOTEL, tmp_path)
    line = append_line(root / "hotel_Location.train", "3\tthree stars")
    with pytest.raises(CorpusFormatError, match=rf"hotel_Location.train, line {line}: unknown label 3"):
        load_hotel(root, "location")


def test_missing_files_name_the_release(tmp_path: Path) -> None:
    with pytest.raises(CorpusNotFoundError, match="Bao, Chang, Yu and Barzilay") as caught:
        load_hotel(tmp_path, "cleanliness")
    assert any("hotel_Cleanliness.dev" in name for name in caught.value.missing)
