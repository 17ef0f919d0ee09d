"""Label binarisation, class balancing and truncation shared by all loaders."""
from __future__ import annotations

import random
from pathlib import Path

from pyhighlights.data.batch import Corpus, Document
from pyhighlights.data.errors import CorpusFormatError

# Thresholds of the rationalization references (Lei et al. 2016 and after):
# a score <= 0.4 is negative, >= 0.6 positive, anything between is dropped.
NEGATIVE_MAX = 0.4
POSITIVE_MIN = 0.6
BINARY_LABEL_NAMES = ["negative", "positive"]


def binarize_score(score: float) -> int | None:
    """0 for a low score, 1 for a high one, None for the dropped middle band."""
    if score <= NEGATIVE_MAX:
        return 0
    if score >= POSITIVE_MIN:
        return 1
    return None


class UnbalanceableSplit(ValueError):
    """A class has no documents, so balancing would drop every document."""


def label_counts(documents: list[Document], num_classes: int) -> list[int]:
    counts = [0] * num_classes
    for document in documents:
        counts[document.label] += 1
    return counts


def balance_classes(
    documents: list[Document], num_classes: int, seed: int
) -> tuple[list[Document], int]:
    """Drop random documents of the larger classes until all classes are equal.

    Returns the kept documents (original order) and how many were dropped.
    The draw depends only on ``seed`` and the documents' order.
    """
    by_class: list[list[int]] = [[] for _ in range(num_classes)]
    for position, document in enumerate(documents):
        by_class[document.label].append(position)
    sizes = [len(positions) for positions in by_class]
    if min(sizes) == 0:
        raise UnbalanceableSplit(
            f"cannot balance classes: per-class counts are {sizes}, one class has no "
            "examples (pass balance=False to keep the split as it is)"
        )
    target = min(sizes)
    rng = random.Random(seed)
    dropped: set[int] = set()
    for positions in by_class:
        if len(positions) > target:
            dropped.update(rng.sample(positions, len(positions) - target))
    kept = [d for position, d in enumerate(documents) if position not in dropped]
    return kept, len(dropped)


def truncate_document(document: Document, max_length: int) -> Document:
    """The first ``max_length`` tokens (and their highlights and evidence spans)."""
    return document.truncated(max_length)


def finish_split(
    documents: list[Document],
    counts: dict,
    *,
    max_length: int,
    num_classes: int,
    balance: bool = False,
    seed: int = 0,
) -> list[Document]:
    """Balance (if asked) then truncate a split, recording what was done in ``counts``."""
    if max_length < 1:
        raise ValueError(f"max_length must be at least 1, got {max_length}")
    if balance:
        documents, counts["balance_dropped"] = balance_classes(documents, num_classes, seed)
    counts["truncated"] = sum(len(d.tokens) > max_length for d in documents)
    documents = [truncate_document(d, max_length) for d in documents]
    counts["kept"] = len(documents)
    counts["label_counts"] = label_counts(documents, num_classes)
    return documents


def assemble_corpus(
    name: str,
    documents: dict[str, list[Document]],
    counts: dict[str, dict],
    *,
    label_names: list[str],
    max_length: int,
    balance: bool,
    seed: int,
    info: dict,
    remove_leakage: bool | None = None,
    truncate_test: bool = True,
) -> Corpus:
    """Finish the three splits the same way for every loader and record it.

    ``truncate_test=False`` keeps the test documents whole (the G-RAT
    reference scores the annotated Hotel reviews untruncated).

    Only the training split is balanced; evaluation splits keep the label
    distribution the corpus has. ``info`` (the loader's own keys) is extended
    with the preprocessing options and ``info["splits"]``, the per-split counts.
    ``remove_leakage``: None skips the leakage audit; False audits and reports
    documents shared between splits (``info["leakage"]``); True also removes
    them (see :mod:`pyhighlights.data.leakage`), before balancing and truncation.
    """
    if remove_leakage is not None:
        from pyhighlights.data.leakage import apply_leakage_policy

        documents, leakage = apply_leakage_policy(documents, remove_leakage, corpus=name)
        for split, removed in leakage["removed"].items():
            counts[split]["leakage_removed"] = removed
        info = {**info, "leakage": leakage}
    common = {"max_length": max_length, "num_classes": len(label_names)}
    splits = {}
    for split in ("train", "validation", "test"):
        # The annotated test set may be kept whole (G-RAT's reference does not truncate it).
        length = (_longest(documents[split], max_length) if split == "test" and not truncate_test else max_length)
        try:
            splits[split] = finish_split(documents[split], counts[split], balance=balance and split == "train",
                                         seed=seed, **{**common, "max_length": length})
        except UnbalanceableSplit as error:
            raise CorpusFormatError(split_file(info, split), None, f"{split} split: {error}") from None
    info = {**info, "max_length": max_length, "balance": balance, "seed": seed, "truncate_test": truncate_test,
            "splits": counts}
    return Corpus(name, splits["train"], splits["validation"], splits["test"], list(label_names), info)


def _longest(documents: list[Document], at_least: int) -> int:
    return max([at_least] + [len(d.tokens) for d in documents])


def split_file(info: dict, split: str) -> Path:
    """The file a split was read from, as the loader recorded it (for error messages)."""
    files = info.get("files") or {}
    if split in files:
        return Path(files[split])
    # One file for all splits (HateXplain: the division file says which post is in which split).
    return Path(files.get("divisions") or next(iter(files.values()), info.get("data_dir", "?")))
