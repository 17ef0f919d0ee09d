"""Leakage audit: documents shared between the splits of a corpus.

A document whose text is also in the test (or validation) split inflates the
scores of any model that memorised it in training. The check compares the
texts after normalisation (Unicode NFKC, case folding, whitespace collapsed:
tokens joined by one space), so a review copied with different spacing or
case still counts as the same document. Labels and highlights are not
compared: the same text under two labels is still the same input.

Removal keeps a shared document in the split with the highest priority and
drops it from the others: test > validation > train. The test set stays as
distributed (it is what published numbers are computed on); training loses
the copies.

The failure mode is well known for text classification benchmarks (e.g.
Elangovan, He and Verspoor, "Memorization vs. Generalization: Quantifying
Data Leakage in NLP Performance Evaluation", EACL 2021); this module is our
own implementation of an exact-match check.
"""
from __future__ import annotations

import logging
import unicodedata
from collections.abc import Mapping

from pyhighlights.data.batch import Document

logger = logging.getLogger(__name__)

#: Highest priority first: a shared document stays in the first split that has it.
PRIORITY = ("test", "validation", "train")

#: At most this many example ids per split pair are kept in the report (the manifest stays small).
MAX_EXAMPLES = 10


def normalise_text(tokens: list[str]) -> str:
    """The text used to compare documents: NFKC, case-folded, one space between tokens."""
    text = unicodedata.normalize("NFKC", " ".join(tokens)).casefold()
    return " ".join(text.split())


def _index(documents: list[Document]) -> dict[str, list[str]]:
    """Normalised text -> ids of the documents that have it."""
    index: dict[str, list[str]] = {}
    for document in documents:
        index.setdefault(normalise_text(document.tokens), []).append(document.doc_id)
    return index


def audit_leakage(splits: Mapping[str, list[Document]]) -> dict:
    """Count documents shared between each pair of splits; changes nothing.

    Returns ``{"shared": {"train/test": n, ...}, "examples": {"train/test":
    [[train id, test id], ...]}}`` where ``n`` counts documents of the first
    split of the pair whose text occurs in the second.
    """
    names = [name for name in PRIORITY[::-1] if name in splits]  # train, validation, test
    indexes = {name: _index(splits[name]) for name in names}
    shared: dict[str, int] = {}
    examples: dict[str, list[list[str]]] = {}
    for position, lower in enumerate(names):
        for higher in names[position + 1:]:
            pair = f"{lower}/{higher}"
            count, found = 0, []
            for text, ids in indexes[lower].items():
                if text in indexes[higher]:
                    count += len(ids)
                    found.extend([doc_id, indexes[higher][text][0]] for doc_id in ids)
            shared[pair] = count
            examples[pair] = found[:MAX_EXAMPLES]
    return {"shared": shared, "examples": examples}


def remove_leakage(splits: Mapping[str, list[Document]]) -> tuple[dict[str, list[Document]], dict]:
    """Drop from each split the documents whose text is in a higher-priority split.

    Returns the cleaned splits (order kept) and the report of
    :func:`audit_leakage` with ``removed`` (documents dropped per split) added.
    """
    report = audit_leakage(splits)
    seen: set[str] = set()
    cleaned: dict[str, list[Document]] = {}
    removed: dict[str, int] = {}
    for name in PRIORITY:
        if name not in splits:
            continue
        texts = [normalise_text(d.tokens) for d in splits[name]]
        cleaned[name] = [d for d, text in zip(splits[name], texts) if text not in seen]
        removed[name] = len(splits[name]) - len(cleaned[name])
        seen.update(texts)
    report["removed"] = removed
    return {name: cleaned[name] for name in splits}, report


def apply_leakage_policy(
    splits: Mapping[str, list[Document]], remove: bool, corpus: str = "corpus"
) -> tuple[dict[str, list[Document]], dict]:
    """Audit ``splits`` and, when ``remove``, drop the shared documents; log the counts.

    The report always says whether removal was on (``"removed_shared": bool``),
    so a manifest states the policy as well as what it found.
    """
    if remove:
        result, report = remove_leakage(splits)
    else:
        result, report = dict(splits), audit_leakage(splits)
        report["removed"] = {name: 0 for name in splits}
    report["removed_shared"] = bool(remove)
    total = sum(report["shared"].values())
    if total:
        action = f"removed {report['removed']}" if remove else "kept (remove_leakage is off)"
        logger.warning("%s: documents shared between splits %s; %s", corpus, report["shared"], action)
    else:
        logger.info("%s: no document is shared between splits", corpus)
    return result, report
