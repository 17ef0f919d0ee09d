"""Bad corpora, vectors and settings: a clear error naming the file, split or field, before training."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from pyhighlights.config.resolve import ConfigError, validate
from pyhighlights.data.beer_lei import load_lei_beer
from pyhighlights.data.errors import CorpusFormatError
from pyhighlights.data.hotel import load_hotel
from pyhighlights.data.movies import load_movies
from pyhighlights.data.split_checks import check_trainable
from pyhighlights.data.word_vectors import read_text_vectors
from pyhighlights.training.guards import NonFiniteTraining
from pyhighlights.training.run import check_test_metrics

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def beer(tiny_beer_dir, tmp_path):
    return shutil.copytree(tiny_beer_dir, tmp_path / "beer")


@pytest.mark.parametrize("damage", ["truncated", "bad_crc", "not_gzip"])
def test_a_damaged_gz_names_the_file(beer, damage):
    plain = beer / "reviews.aspect0.train.txt"
    packed = gzip.compress(plain.read_bytes())
    blob = {"truncated": packed[: len(packed) // 2], "bad_crc": packed[:-8] + bytes(8),
            "not_gzip": plain.read_bytes()}[damage]
    plain.unlink()
    target = beer / "reviews.aspect0.train.txt.gz"
    target.write_bytes(blob)
    with pytest.raises(CorpusFormatError, match="the gzip file is damaged") as caught:
        load_lei_beer(beer, 0)
    assert caught.value.path == target


def test_a_training_split_that_cannot_be_balanced_names_file_and_split(beer):
    path = beer / "reviews.aspect0.train.txt"
    positives = [line for line in path.read_text().splitlines() if float(line.split()[0]) >= 0.6]
    path.write_text("\n".join(positives) + "\n")
    with pytest.raises(CorpusFormatError, match=r"train split: cannot balance classes: per-class counts are \[0, "):
        load_lei_beer(beer, 0, balance=True)
    assert len(load_lei_beer(beer, 0, balance=False).train) == len(positives)


def test_non_finite_word_vectors_name_file_and_line(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_text("the 0.1 0.2\nbeer 0.3 nan\n")
    with pytest.raises(CorpusFormatError, match=r"vectors.txt, line 2: the vector of 'beer' has non-finite values"):
        read_text_vectors(path)
    path.write_text("2 2\nthe 0.1 0.2\nbeer inf 0.3\n")
    with pytest.raises(CorpusFormatError, match="line 3: .* non-finite values \\(inf\\)"):
        read_text_vectors(path)


def test_empty_or_unannotated_beer_test_split(beer):
    annotations = beer / "annotations.json"
    lines = annotations.read_text().splitlines()
    annotations.write_text("")
    with pytest.raises(CorpusFormatError, match=r"annotations.json: the test split of beer/appearance has no "
                                                r"documents \(0 record\(s\) read\)"):
        check_trainable(load_lei_beer(beer, 0))
    no_spans = [json.dumps({**json.loads(line), "0": []}) for line in lines]
    annotations.write_text("\n".join(no_spans) + "\n")
    with pytest.raises(CorpusFormatError, match=rf"has no documents \({len(lines)} record\(s\) read; "
                                                rf"no_rationale_skipped {len(lines)}\)"):
        check_trainable(load_lei_beer(beer, 0))


def test_empty_heldout_names_the_file(beer):
    (beer / "reviews.aspect0.heldout.txt").write_text("")
    with pytest.raises(CorpusFormatError, match="heldout.txt: the validation split .* has no documents"):
        check_trainable(load_lei_beer(beer, 0))


def test_header_only_hotel_annotations(tmp_path):
    root = shutil.copytree(FIXTURES / "hotel", tmp_path / "hotel")
    path = root / "annotations" / "hotel_Location.train"
    path.write_text(path.read_text().splitlines()[0] + "\n")
    with pytest.raises(CorpusFormatError, match="the test split of hotel/Location has no documents") as caught:
        check_trainable(load_hotel(root, "location"))
    assert caught.value.path == path


def test_empty_and_unannotated_movies_test_split(tmp_path):
    root = shutil.copytree(FIXTURES / "movies", tmp_path / "movies")
    path = root / "test.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(json.dumps({**json.loads(line), "evidences": []}) for line in lines) + "\n")
    with pytest.raises(CorpusFormatError, match=f"the test split of movies has {len(lines)} document.* none with "
                                                "human highlights"):
        check_trainable(load_movies(root))
    path.write_text("")
    with pytest.raises(CorpusFormatError, match="test.jsonl: the test split of movies has no documents"):
        check_trainable(load_movies(root))


@pytest.mark.parametrize("dataset", ["beer", "synth_beer"])
def test_an_unknown_beer_aspect_is_refused_at_validation(dataset):
    with pytest.raises(ConfigError, match="aspect must be appearance, aroma, palate or 0, 1, 2"):
        validate("dataset", {"name": dataset, "aspect": 7}, "dataset")
    assert validate("dataset", {"name": dataset, "aspect": "2"}, "dataset")["aspect"] == "2"


def test_a_cache_directory_that_is_a_file_is_named(tmp_path, monkeypatch):
    from pyhighlights.data.synthetic import synthetic_beer_dir

    (tmp_path / "cache").write_text("")
    monkeypatch.setenv("PYHIGHLIGHTS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(NotADirectoryError, match=f"{tmp_path / 'cache'} is a file; .* \\(set PYHIGHLIGHTS_CACHE"):
        synthetic_beer_dir(n_train=10)


def test_missing_or_non_finite_test_metrics_are_not_reported(tmp_path, caplog):
    check_test_metrics({"test/accuracy": 0.5, "test/highlight_f1": 0.1, "best_epoch": float("nan")}, tmp_path)
    with pytest.raises(NonFiniteTraining, match="testing gave non-finite test/highlight_f1"):
        check_test_metrics({"test/accuracy": 0.5, "test/highlight_f1": float("nan")}, tmp_path)
    with pytest.raises(NonFiniteTraining, match="testing gave non-finite test/loss/task"):
        check_test_metrics({"test/accuracy": 0.5, "test/highlight_f1": 0.0, "test/loss/task": float("inf")}, tmp_path)
    with pytest.raises(NonFiniteTraining, match="testing gave no test/accuracy, test/highlight_f1"):
        check_test_metrics({"best_epoch": 0.0}, tmp_path)
    # Precision of an empty selection is undefined, not broken: reported as null, with a warning.
    check_test_metrics({"test/accuracy": 0.5, "test/highlight_f1": 0.0, "test/highlight_precision": float("nan")},
                       tmp_path)
    assert "test/highlight_precision undefined on this test set" in caplog.text
