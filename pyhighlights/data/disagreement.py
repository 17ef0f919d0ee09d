"""Redraw a multi-aspect training split so that reviews in which another aspect disagrees with the label are common.

The aspects of a review corpus such as BeerAdvocate are rated together and their ratings are correlated, so the
other aspects' sentences predict the target aspect's label almost as well as its own: a selector trained on the
label alone keeps them too (the reason Lei et al., 2016, train each aspect on a less correlated subset of the
reviews). Only a review in which some other aspect's polarity is the opposite of the label tells the target's
words from the others'. :func:`redraw_for_disagreement` draws a training split of the same size in which such
reviews make ``share`` of the draws (each repeated about equally often, the other reviews a random subset), and
returns a split in which they already do unchanged, so a corpus of independent aspects is left as it is.

:func:`disagreement_pattern` says which other aspects disagree, as a bit mask: a review's *aspect environment*,
which an adversary of the rationale reads (:mod:`pyhighlights.components.aspect_adversary`).
"""
from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace

from pyhighlights.data.batch import Document


def disagreement_pattern(label: int, other_labels: Iterable[int | None]) -> int:
    """Bit j set when the j-th other aspect (in file order, the label's own skipped) has the opposite polarity to
    ``label``; an aspect without a polarity (a middle-band score, None) counts as agreeing."""
    return sum(1 << j for j, other in enumerate(other_labels) if other is not None and other != label)


def redraw_for_disagreement(
    documents: list[Document], disagreeing: list[bool], share: float, seed: int
) -> tuple[list[Document], dict]:
    """``documents`` redrawn so that the disagreeing ones make ``share`` of them, and a record of what was done.

    ``disagreeing[i]``: whether document ``i`` has another aspect of the opposite polarity to its label. The split
    keeps its size, so each copy added takes an agreeing document's place; a repeated document's copies are named
    ``<doc_id>#copy<k>``. Unchanged when the disagreeing
    share already reaches ``share`` or when no document disagrees (nothing to repeat).
    """
    if not 0.0 < share < 1.0:
        raise ValueError(f"disagreement share must be in (0, 1), got {share}")
    if len(disagreeing) != len(documents):
        raise ValueError(f"{len(disagreeing)} disagreement flags for {len(documents)} documents")
    total = len(documents)
    chosen = [i for i, flag in enumerate(disagreeing) if flag]
    others = [i for i, flag in enumerate(disagreeing) if not flag]
    record = {"share": share, "disagreeing": len(chosen), "share_before": len(chosen) / total if total else 0.0}
    wanted = round(share * total)
    if not chosen or wanted <= len(chosen):
        return documents, {**record, "share_after": record["share_before"], "copies_added": 0}
    rng = random.Random(seed)
    repeats, extra = divmod(wanted, len(chosen))
    draws = chosen * repeats + rng.sample(chosen, extra)
    kept_others = rng.sample(others, total - wanted)
    copies: dict[int, int] = {}
    redrawn = []
    for i in sorted(draws + kept_others):
        copy = copies.get(i, 0)
        copies[i] = copy + 1
        document = documents[i]
        if copy:
            document = replace(document, doc_id=f"{document.doc_id}#copy{copy}")
        redrawn.append(document)
    return redrawn, {**record, "share_after": wanted / total, "copies_added": wanted - len(chosen)}
