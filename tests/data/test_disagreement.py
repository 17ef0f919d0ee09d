"""Redrawing the training split so that reviews whose other aspects disagree with the label make a chosen share."""
from __future__ import annotations

from collections import Counter

import pytest

from corpus_fixture_files import annotation, review, write_text
from pyhighlights.data.batch import Document
from pyhighlights.data.beer_lei import load_lei_beer
from pyhighlights.data.disagreement import disagreement_pattern, redraw_for_disagreement


def documents(n: int) -> list[Document]:
    return [Document(f"r:{i}", [f"w{i}"], i % 2) for i in range(n)]


def base_id(document: Document) -> str:
    return document.doc_id.split("#")[0]


def test_disagreeing_reviews_reach_the_share_each_repeated_about_equally():
    docs = documents(10)
    flags = [i in (3, 8) for i in range(10)]
    redrawn, record = redraw_for_disagreement(docs, flags, 0.5, seed=0)
    # 10 draws, 5 of them disagreeing: the two disagreeing reviews 2 times each plus one of them once more;
    # 5 of the 8 agreeing reviews once each.
    assert len(redrawn) == 10
    drawn = Counter(base_id(d) for d in redrawn)
    assert sorted(drawn[f"r:{i}"] for i in (3, 8)) == [2, 3]
    agreeing = [key for key in drawn if key not in ("r:3", "r:8")]
    assert len(agreeing) == 5 and all(drawn[key] == 1 for key in agreeing)
    assert len({d.doc_id for d in redrawn}) == 10  # copies are told apart
    copy = next(d for d in redrawn if d.doc_id == "r:3#copy1")
    assert (copy.tokens, copy.label) == (["w3"], 1)
    assert record == {"share": 0.5, "disagreeing": 2, "share_before": 0.2, "share_after": 0.5, "copies_added": 3}


def test_seeded():
    docs, flags = documents(20), [i % 7 == 0 for i in range(20)]
    first = [d.doc_id for d in redraw_for_disagreement(docs, flags, 0.6, seed=1)[0]]
    assert first == [d.doc_id for d in redraw_for_disagreement(docs, flags, 0.6, seed=1)[0]]
    assert first != [d.doc_id for d in redraw_for_disagreement(docs, flags, 0.6, seed=2)[0]]


@pytest.mark.parametrize("flags", [[True, True, False, False], [False] * 4])
def test_unchanged_when_the_share_is_reached_or_nothing_disagrees(flags):
    docs = documents(4)
    redrawn, record = redraw_for_disagreement(docs, flags, 0.5, seed=0)
    assert redrawn is docs and record["copies_added"] == 0


@pytest.mark.parametrize("share", [0.0, 1.0, 1.5])
def test_share_outside_the_open_interval_is_refused(share):
    with pytest.raises(ValueError, match="disagreement share must be in"):
        redraw_for_disagreement(documents(4), [True] * 4, share, seed=0)


# appearance, aroma, palate, taste, overall; the label is appearance's
TRAIN = [
    review([0.9, 0.8, 0.7, 0.9, 0.6], "a"),  # every other aspect positive: agrees
    review([0.9, 0.5, 0.5, 0.5, 0.2], "b"),  # overall negative: disagrees
    review([0.2, 0.5, 0.3, 0.4, 0.5], "c"),  # middle or negative: agrees
    review([0.3, 0.4, 0.4, 0.4, 0.4], "d"),  # agrees
    review([0.8, 0.9, 0.9, 0.8, 0.8], "e"),  # agrees
    review([0.5, 0.2, 0.9, 0.9, 0.9], "f"),  # middle label: dropped before the redraw
]


def test_the_lei_loader_flags_reviews_by_the_other_aspects_polarity(tmp_path):
    write_text(tmp_path / "reviews.aspect0.train.txt", TRAIN)
    write_text(tmp_path / "reviews.aspect0.heldout.txt", TRAIN[:2])
    write_text(tmp_path / "annotations.json", [annotation("a b", [0.9, 0.5, 0.5, 0.5, 0.5], a0=[[0, 1]])])
    corpus = load_lei_beer(tmp_path, "appearance", balance=False, disagreement_share=0.4)
    record = corpus.info["splits"]["train"]["disagreement_redraw"]
    # 5 polar reviews, one disagreeing ("b"); 0.4 of 5 = 2 draws of it, 3 of the other 4
    assert (record["disagreeing"], record["share_before"], record["copies_added"]) == (1, 0.2, 1)
    assert Counter(d.tokens[0] for d in corpus.train)["b"] == 2 and len(corpus.train) == 5
    plain = load_lei_beer(tmp_path, "appearance", balance=False)
    assert "disagreement_redraw" not in plain.info["splits"]["train"] and len(plain.train) == 5


def test_disagreement_pattern_sets_a_bit_per_other_aspect_of_the_opposite_polarity():
    assert disagreement_pattern(1, [1, 0, None, 0]) == 0b1010
    assert disagreement_pattern(0, [1, 0, None, 0]) == 0b0001
    assert disagreement_pattern(1, [None, None, None, None]) == 0


def test_aspect_environments_are_the_other_aspects_disagreement_in_every_split(tmp_path):
    write_text(tmp_path / "reviews.aspect0.train.txt", TRAIN)
    write_text(tmp_path / "reviews.aspect0.heldout.txt", TRAIN[:2])
    write_text(tmp_path / "annotations.json", [annotation("a b", [0.9, 0.5, 0.2, 0.5, 0.5], a0=[[0, 1]])])
    corpus = load_lei_beer(tmp_path, "appearance", balance=False, aspect_environments=True)
    # the other aspects in file order (aroma, palate, taste, overall) are bits 0-3; by hand from TRAIN's scores
    assert {d.tokens[0]: d.environment for d in corpus.train} == {"a": 0, "b": 0b1000, "c": 0, "d": 0, "e": 0}
    assert [d.environment for d in corpus.validation] == [0, 0b1000]
    assert [d.environment for d in corpus.test] == [0b0010]  # palate 0.2 against a positive appearance
    plain = load_lei_beer(tmp_path, "appearance", balance=False)
    assert {d.environment for split in (plain.train, plain.validation, plain.test) for d in split} == {None}


def test_aspect_environments_follow_the_chosen_aspect(tmp_path):
    write_text(tmp_path / "reviews.aspect2.train.txt", TRAIN)
    write_text(tmp_path / "reviews.aspect2.heldout.txt", TRAIN[:2])
    write_text(tmp_path / "annotations.json", [annotation("a b", [0.9, 0.5, 0.2, 0.5, 0.5], a2=[[0, 1]])])
    corpus = load_lei_beer(tmp_path, "palate", balance=False, aspect_environments=True)
    # the label is palate's; the other aspects are appearance, aroma, taste, overall (bits 0-3). "b" (palate 0.5)
    # is dropped; "f": appearance 0.5 has no polarity, aroma 0.2 is negative against a positive palate
    assert {d.tokens[0]: (d.label, d.environment) for d in corpus.train} == {
        "a": (1, 0), "c": (0, 0), "d": (0, 0), "e": (1, 0), "f": (1, 0b0010)}
    assert [(d.label, d.environment) for d in corpus.test] == [(0, 0b0001)]  # appearance 0.9 against palate 0.2
