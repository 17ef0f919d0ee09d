"""The leakage audit: exact match after normalisation, priority test > validation > train."""
from __future__ import annotations

from pyhighlights.data.batch import Document
from pyhighlights.data.leakage import MAX_EXAMPLES, apply_leakage_policy, audit_leakage, normalise_text, remove_leakage
from pyhighlights.data.r2a import load_r2a

from corpora_fixtures import HOTEL


def doc(doc_id: str, text: str) -> Document:
    return Document(doc_id, text.split(), 0)


def test_normalisation_ignores_case_spacing_and_compatibility_forms() -> None:
    assert normalise_text(["Great", "ROOM"]) == normalise_text(["great", " room"]) == "great room"
    assert normalise_text(["ﬁne"]) == normalise_text(["fine"])  # NFKC folds the ligature
    assert normalise_text(["great", "room"]) != normalise_text(["great", "rooms"])


def test_priority_keeps_test_then_validation() -> None:
    splits = {
        "train": [doc("t1", "a b"), doc("t2", "c d"), doc("t3", "e f"), doc("t4", "g h")],
        "validation": [doc("v1", "C D"), doc("v2", "e  f"), doc("v3", "x y")],
        "test": [doc("s1", "a b"), doc("s2", "e f")],
    }
    cleaned, report = remove_leakage(splits)
    assert [d.doc_id for d in cleaned["train"]] == ["t4"]
    assert [d.doc_id for d in cleaned["validation"]] == ["v1", "v3"]
    assert [d.doc_id for d in cleaned["test"]] == ["s1", "s2"]
    assert report["shared"] == {"train/validation": 2, "train/test": 2, "validation/test": 1}
    assert report["removed"] == {"test": 0, "validation": 1, "train": 3}
    assert ["t1", "s1"] in report["examples"]["train/test"]


def test_audit_only_changes_nothing_and_examples_are_capped() -> None:
    splits = {"train": [doc(f"t{i}", f"w{i}") for i in range(30)], "test": [doc(f"s{i}", f"w{i}") for i in range(30)]}
    kept, report = apply_leakage_policy(splits, remove=False)
    assert kept["train"] == splits["train"] and report["removed_shared"] is False
    assert report["shared"]["train/test"] == 30 and len(report["examples"]["train/test"]) == MAX_EXAMPLES
    assert audit_leakage({"train": [doc("a", "x")], "test": [doc("b", "y")]})["shared"] == {"train/test": 0}


def test_duplicates_inside_one_split_are_not_leakage() -> None:
    cleaned, report = remove_leakage({"train": [doc("a", "x"), doc("b", "x")], "test": [doc("c", "y")]})
    assert len(cleaned["train"]) == 2 and report["removed"]["train"] == 0


def test_loaders_skip_the_audit_unless_asked() -> None:
    assert "leakage" not in load_r2a(HOTEL, "hotel", "Location").info
    audited = load_r2a(HOTEL, "hotel", "Location", remove_leakage=False)
    assert audited.info["leakage"]["shared"]["train/test"] == 1
    assert audited.info["splits"]["train"]["leakage_removed"] == 0
