"""Synthetic corpora in the real corpora's layouts are read by those corpora's own loaders, carry the human
rate they record, and repeat byte for byte."""
import json

import pytest

from pyhighlights.config.resolve import ConfigError, build, validate
from pyhighlights.data.beer_lei import load_lei_beer
from pyhighlights.data.hotel import load_hotel
from pyhighlights.data.r2a import load_r2a
from pyhighlights.data.synthetic_layouts import write_layout_corpus

SIZES = {"n_train": 40, "n_heldout": 12, "n_test": 30, "min_length": 40, "max_length": 90}
LOADERS = {
    "lei": lambda d, a: load_lei_beer(d, a, balance=False),
    "beer_r2a": lambda d, a: load_r2a(d, "beer", a, balance=False),
    "hotel": lambda d, a: load_hotel(d, a),
}


@pytest.mark.parametrize("layout", sorted(LOADERS))
def test_each_layout_loads_with_its_corpus_loader_and_its_recorded_human_rate(tmp_path, layout):
    record = write_layout_corpus(tmp_path, layout, seed=3, aspect_share=(0.3, 0.4), **SIZES)
    assert json.loads((tmp_path / "synthetic.json").read_text()) == record
    for aspect in range(3):
        corpus = LOADERS[layout](tmp_path, aspect)
        assert corpus.train and corpus.validation and corpus.test
        marks = [m for doc in corpus.test for m in doc.highlights]
        assert all(m in (0, 1) for m in marks)
        # the loader's test documents are the writer's kept reviews: the same share of marked words
        assert sum(marks) / len(marks) == pytest.approx(record["test_human_rate"][aspect], abs=1e-4)
        assert {doc.label for doc in corpus.train} == {0, 1}


def test_a_lower_aspect_share_lowers_the_human_rate_and_same_arguments_same_bytes(tmp_path):
    low = write_layout_corpus(tmp_path / "low", "lei", aspect_share=(0.25, 0.35), **SIZES)
    high = write_layout_corpus(tmp_path / "high", "lei", aspect_share=(0.8, 1.0), **SIZES)
    assert max(low["test_human_rate"]) < min(high["test_human_rate"])
    again = write_layout_corpus(tmp_path / "again", "lei", aspect_share=(0.25, 0.35), **SIZES)
    assert again == low
    for path in (tmp_path / "low").iterdir():
        assert (tmp_path / "again" / path.name).read_bytes() == path.read_bytes()


def test_bad_layout_or_share_is_refused(tmp_path):
    with pytest.raises(ValueError, match="layout must be one of lei, beer_r2a, hotel"):
        write_layout_corpus(tmp_path, "movies")
    with pytest.raises(ValueError, match="aspect_share"):
        write_layout_corpus(tmp_path, "lei", aspect_share=(0.6, 0.3))


@pytest.mark.parametrize("dataset,layout", [("beer", "lei"), ("beer_r2a", "beer_r2a"), ("hotel", "hotel")])
def test_every_file_corpus_can_be_partitioned_into_environments_per_class(tmp_path, dataset, layout):
    # InvRat needs each document's environment; a corpus without any gets a random per-class partition
    write_layout_corpus(tmp_path, layout, seed=4, **SIZES)
    spec = {"name": dataset, "data_dir": str(tmp_path), "aspect": 1}
    assert all(doc.environment is None for doc in build("dataset", spec).load().train)
    corpus = build("dataset", {**spec, "environments": 2}).load()
    assert corpus.info["environments"]["count"] == 2
    for split in (corpus.train, corpus.validation, corpus.test):
        for label in {doc.label for doc in split}:
            members = [doc.environment for doc in split if doc.label == label]
            # each class cut in two halves (the second takes an odd one out)
            assert sorted(set(members)) == [0, 1] or len(members) == 1
            assert members.count(1) - members.count(0) in (0, 1)


def test_pollution_without_one_rate_per_environment_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="pollution needs one rate"):
        validate("dataset", {"name": "hotel", "data_dir": str(tmp_path), "environments": 2, "pollution": [0.5]},
                 "dataset")
