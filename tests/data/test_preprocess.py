from __future__ import annotations

import pytest

from pyhighlights.data.batch import Document
from pyhighlights.data.preprocess import balance_classes, binarize_score, finish_split, truncate_document


@pytest.mark.parametrize(
    "score, label", [(0.0, 0), (0.4, 0), (0.40001, None), (0.5, None), (0.59999, None), (0.6, 1), (1.0, 1)]
)
def test_binarize_thresholds(score: float, label: int | None) -> None:
    assert binarize_score(score) == label


def documents(labels: list[int]) -> list[Document]:
    return [Document(str(i), ["w"] * (i + 1), label) for i, label in enumerate(labels)]


def test_balance_drops_only_majority_and_keeps_order() -> None:
    docs = documents([1, 1, 0, 1, 1, 0, 1])
    kept, dropped = balance_classes(docs, 2, seed=5)
    assert dropped == 3
    assert [d.label for d in kept].count(0) == 2 and [d.label for d in kept].count(1) == 2
    assert [d.doc_id for d in kept] == sorted((d.doc_id for d in kept), key=int)
    assert {d.doc_id for d in kept} >= {"2", "5"}  # every minority document stays
    assert balance_classes(docs, 2, seed=5)[0] == kept


def test_balance_refuses_an_empty_class() -> None:
    with pytest.raises(ValueError, match=r"per-class counts are \[0, 2\]"):
        balance_classes(documents([1, 1]), 2, seed=0)


def test_truncate_document_and_split_counts() -> None:
    doc = Document("a", list("abcdef"), 1, [0, 0, 1, 1, 0, 0])
    short = truncate_document(doc, 3)
    assert short.tokens == ["a", "b", "c"] and short.highlights == [0, 0, 1]
    assert truncate_document(doc, 6) is doc
    counts: dict = {}
    kept = finish_split(documents([0, 1, 1]), counts, max_length=2, num_classes=2)
    assert counts == {"truncated": 1, "kept": 3, "label_counts": [1, 2]}
    assert [len(d.tokens) for d in kept] == [1, 2, 2]
    with pytest.raises(ValueError, match="max_length"):
        finish_split([], {}, max_length=0, num_classes=2)
