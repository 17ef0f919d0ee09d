"""Per-document highlight scores, as the viewer shows them.

Following ERASER's scorer (DeYoung et al., 2020): a document that selects
nothing has precision 0, and an F1 with P + R = 0 is 0. Recall and F1 are
undefined (``None``) without a human highlight.
"""
from __future__ import annotations


def document_scores(selected: list[int], human: list[int] | None) -> dict[str, float | None]:
    """Token precision, recall and F1 of one document's selection against its human highlight."""
    if human is None:
        return {"p": None, "r": None, "f1": None}
    chosen, gold = set(selected), set(human)
    hits = len(chosen & gold)
    precision = hits / len(chosen) if chosen else 0.0
    if not gold:
        return {"p": precision, "r": None, "f1": None}
    recall = hits / len(gold)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"p": precision, "r": recall, "f1": f1}


def corpus_scores(rows: list[dict], lengths: list[int]) -> dict[str, float | None]:
    """Accuracy, micro (token-pooled) highlight P/R/F1 over annotated documents, mean document F1, selection rate.

    ``rows`` hold ``label``, ``prediction``, ``selected`` and ``highlight``;
    ``lengths`` the documents' word counts.
    """
    if not rows:
        return {"documents": 0}
    correct = sum(row["label"] == row["prediction"] for row in rows)
    hits = chosen = gold = 0
    f1s = []
    for row in rows:
        if row["highlight"] is None:
            continue
        selected, human = set(row["selected"]), set(row["highlight"])
        hits, chosen, gold = hits + len(selected & human), chosen + len(selected), gold + len(human)
        f1 = document_scores(row["selected"], row["highlight"])["f1"]
        if f1 is not None:
            f1s.append(f1)
    precision = hits / chosen if chosen else (0.0 if gold else None)
    recall = hits / gold if gold else None
    f1 = None
    if precision is not None and recall is not None:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    words = sum(lengths)
    return {"documents": len(rows), "accuracy": correct / len(rows), "precision": precision, "recall": recall,
            "f1": f1, "document_f1": sum(f1s) / len(f1s) if f1s else None,
            "selection_rate": sum(len(row["selected"]) for row in rows) / words if words else None}
