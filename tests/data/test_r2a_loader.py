from __future__ import annotations

from pathlib import Path

import pytest

from corpus_fixture_files import write_text
from pyhighlights.data.errors import CorpusFormatError, CorpusNotFoundError
from pyhighlights.data.r2a import load_r2a, resolve_r2a_aspect

HEADER = "task\tlabel\ttext"
TRAIN = [HEADER, "x\t1\tgreat location", "x\t0\tfar from everything", "x\t1\tnear the beach", "x\t1\tcentral"]
DEV = [HEADER, "x\t0\tremote", "x\t1\tclose to the station"]
TEST = [
    "label\ttext\trationale",
    "1\tthe location is perfect\t0 1 0 1",
    "0\tfar away sadly\t1 1 0",
]


def write_r2a(root: Path, *, test_folder: str = "annotations", gz: bool = False, test=TEST) -> Path:
    write_text(root / "hotel_Location.train", TRAIN, gz=gz)
    write_text(root / "hotel_Location.dev", DEV, gz=gz)
    write_text(root / test_folder / "hotel_Location.train", test, gz=gz)
    return root


@pytest.mark.parametrize("test_folder", ["annotations", "target"])
def test_reads_the_three_splits(tmp_path: Path, test_folder: str) -> None:
    corpus = load_r2a(write_r2a(tmp_path, test_folder=test_folder), "hotel", "Location", seed=0)
    assert corpus.name == "hotel/Location"
    train = corpus.info["splits"]["train"]
    assert train["records"] == 4 and train["balance_dropped"] == 2 and train["label_counts"] == [1, 1]
    assert [d.tokens for d in corpus.validation] == [["remote"], ["close", "to", "the", "station"]]
    assert corpus.test[0].highlights == [0, 1, 0, 1] and corpus.test[0].label == 1
    assert corpus.test[1].highlights == [1, 1, 0]
    assert corpus.test[0].doc_id == "hotel_Location.train:2"


def test_gz_and_truncation(tmp_path: Path) -> None:
    corpus = load_r2a(write_r2a(tmp_path, gz=True), "hotel", 0, max_length=2, balance=False)
    assert corpus.info["files"]["test"].endswith("annotations/hotel_Location.train.gz")
    assert corpus.test[0].tokens == ["the", "location"] and corpus.test[0].highlights == [0, 1]
    assert corpus.info["splits"]["test"]["truncated"] == 2


@pytest.mark.parametrize("aspect, expected", [(0, "Location"), ("2", "Cleanliness"), ("service", "Service")])
def test_aspect_resolution(aspect: object, expected: str) -> None:
    assert resolve_r2a_aspect("hotel", aspect) == expected


def test_aspect_index_out_of_range_lists_aspects() -> None:
    with pytest.raises(ValueError, match="0=Location, 1=Service, 2=Cleanliness"):
        resolve_r2a_aspect("hotel", 3)


def test_unknown_label_names_file_and_line(tmp_path: Path) -> None:
    write_r2a(tmp_path)
    path = write_text(tmp_path / "hotel_Location.dev", DEV + ["x\t2\tthree classes?"])
    expected = r"line 4: unknown label 2; expected one of \[0, 1\]"
    with pytest.raises(CorpusFormatError, match=expected) as caught:
        load_r2a(tmp_path, "hotel", "Location")
    assert caught.value.path == path
    # With three label names, 2 is a valid class.
    corpus = load_r2a(tmp_path, "hotel", "Location", label_names=["neg", "pos", "neutral"], balance=False)
    assert corpus.validation[-1].label == 2


def test_non_integer_label(tmp_path: Path) -> None:
    write_r2a(tmp_path)
    write_text(tmp_path / "hotel_Location.train", TRAIN + ["x\tpositive\tnice"])
    with pytest.raises(CorpusFormatError, match="line 6: label must be an integer"):
        load_r2a(tmp_path, "hotel", "Location")


def test_rationale_length_mismatch_names_file_and_line(tmp_path: Path) -> None:
    write_r2a(tmp_path, test=TEST + ["1\tclean rooms\t1 1 0"])
    path = tmp_path / "annotations" / "hotel_Location.train"
    with pytest.raises(CorpusFormatError, match="rationale has 3 values but the text has 2 tokens") as caught:
        load_r2a(tmp_path, "hotel", "Location")
    assert str(caught.value).startswith(f"{path}, line 4:")
    corpus = load_r2a(tmp_path, "hotel", "Location", skip_malformed=True)
    assert corpus.info["splits"]["test"]["malformed_skipped"] == 1 and len(corpus.test) == 2


def test_rationale_values_must_be_binary(tmp_path: Path) -> None:
    write_r2a(tmp_path, test=TEST + ["1\tclean rooms\t1 2"])
    with pytest.raises(CorpusFormatError, match="line 4: rationale must be space-separated 0/1"):
        load_r2a(tmp_path, "hotel", "Location")


def test_wrong_field_count_and_missing_column(tmp_path: Path) -> None:
    write_r2a(tmp_path)
    write_text(tmp_path / "hotel_Location.dev", DEV + ["x\t1"])
    with pytest.raises(CorpusFormatError, match="line 4: expected 3 tab-separated fields"):
        load_r2a(tmp_path, "hotel", "Location")
    write_r2a(tmp_path, test=["label\ttext", "1\tno rationale column"])
    with pytest.raises(CorpusFormatError, match=r"line 1: header lacks column\(s\) \['rationale'\]"):
        load_r2a(tmp_path, "hotel", "Location")


def test_quotes_are_characters_not_quoting(tmp_path: Path) -> None:
    write_r2a(tmp_path)
    write_text(tmp_path / "hotel_Location.dev", [HEADER, 'x\t1\t"said "" great', 'x\t0\tnext " line'])
    corpus = load_r2a(tmp_path, "hotel", "Location")
    assert [d.tokens for d in corpus.validation] == [['"said', '""', "great"], ["next", '"', "line"]]


def test_missing_files_list_names_and_aspects(tmp_path: Path) -> None:
    with pytest.raises(CorpusNotFoundError) as caught:
        load_r2a(tmp_path, "hotel", "Service")
    message = str(caught.value)
    assert "hotel_Service.train" in message and "hotel_Service.dev" in message
    assert "annotations/hotel_Service.train" in message and "target/hotel_Service.train" in message
    assert "Bao" in message and "Location, Service, Cleanliness" in message
