"""The correlated Beer release: reviews.260k.{train,heldout}.txt[.gz], every aspect's label from one file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from forked_scripts import run_script

from corpus_fixture_files import annotation, review, write_text
from pyhighlights.data.beer_lei import load_lei_beer
from pyhighlights.data.errors import CorpusNotFoundError

# appearance, aroma, palate, taste, overall
TRAIN = [
    review([0.9, 0.2, 0.8, 0.5, 0.5], "golden pour stale nose smooth body"),
    review([0.1, 0.9, 0.5, 0.5, 0.5], "murky pour lovely nose"),
    review([0.8, 0.8, 0.1, 0.5, 0.5], "clear pour fine nose thin body"),
    review([0.2, 0.3, 0.9, 0.5, 0.5], "dull pour weak nose creamy body"),
    review([0.5, 0.7, 0.3, 0.5, 0.5], "average pour good nose"),
]
HELDOUT = [review([0.7, 0.1, 0.9, 0.5, 0.5], "bright pour"), review([0.3, 0.6, 0.4, 0.5, 0.5], "flat pour")]
ANNOTATIONS = [annotation("golden pour stale nose", [0.9, 0.2, 0.5, 0.5, 0.5], a0=[[0, 2]], a1=[[2, 4]]),
               annotation("murky pour", [0.1, 0.5, 0.5, 0.5, 0.5], a0=[[0, 2]])]


def write_correlated(directory: Path, gz: bool = False) -> Path:
    write_text(directory / "reviews.260k.train.txt", TRAIN, gz=gz)
    write_text(directory / "reviews.260k.heldout.txt", HELDOUT, gz=gz)
    write_text(directory / "annotations.json", ANNOTATIONS)
    return directory


@pytest.mark.parametrize("gz", [False, True])
def test_each_aspect_labels_from_its_own_score(tmp_path, gz):
    write_correlated(tmp_path, gz=gz)
    # Labels by hand from the score columns: <= 0.4 -> 0, >= 0.6 -> 1, otherwise dropped.
    expected = {"appearance": ([1, 0, 1, 0], [1, 0]), "aroma": ([0, 1, 1, 0, 1], [0, 1]),
                "palate": ([1, 0, 1, 0], [1, 0])}
    for aspect, (train_labels, heldout_labels) in expected.items():
        corpus = load_lei_beer(tmp_path, aspect, balance=False, variant="correlated")
        assert [d.label for d in corpus.train] == train_labels, aspect
        assert [d.label for d in corpus.validation] == heldout_labels, aspect
        assert corpus.info["variant"] == "correlated" and corpus.name == f"beer_correlated/{aspect}"
        assert corpus.info["files"]["train"].endswith("reviews.260k.train.txt" + (".gz" if gz else ""))
    aroma_test = load_lei_beer(tmp_path, "aroma", variant="correlated").test
    assert [(d.tokens, d.label, d.highlights) for d in aroma_test] == [
        ("golden pour stale nose".split(), 0, [0, 0, 1, 1])]  # the second review has no aroma span


def test_missing_files_are_named(tmp_path):
    write_text(tmp_path / "annotations.json", ANNOTATIONS)
    write_text(tmp_path / "reviews.aspect0.train.txt", TRAIN)  # the decorrelated file does not count
    with pytest.raises(CorpusNotFoundError) as error:
        load_lei_beer(tmp_path, "appearance", variant="correlated")
    assert error.value.missing == ["reviews.260k.train.txt (or reviews.260k.train.txt.gz)",
                                   "reviews.260k.heldout.txt (or reviews.260k.heldout.txt.gz)"]
    assert "reviews.260k.train.txt" in str(error.value)


def test_train_cli_trains_mgr_on_the_correlated_release(tmp_path):
    data = write_correlated(tmp_path / "data")
    run_dir = tmp_path / "run"
    done = run_script("train.py", "model=mgr", "dataset=beer", "dataset.variant=correlated",
                      f"dataset.data_dir={data}", "dataset.balance=false", "model.num_generators=2",
                      "backbone.hidden_size=8", "embeddings.dim=8", "trainer.max_epochs=1", "trainer.batch_size=4",
                      "trainer.progress_bar=false", "trainer.evaluation_draws=2", f"hydra.run.dir={run_dir}",
                      "model.pad_to=null",  # reviews of a few words: padding them to MGR's 256 is most of the work
                      timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((run_dir / "results.json").read_text())
    # MGR samples at evaluation: the seed's metrics are means over two draws, with their spread.
    seed = results["seeds"]["0"]
    assert seed["evaluation_draws"] == 2 and "test/accuracy/draw_std" in seed
