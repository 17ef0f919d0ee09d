"""Synthetic reviews written in the on-disk layouts of the real corpora, for protocols across many corpora.

``dataset=synth_beer`` reads one corpus (:mod:`synthetic`). A recipe chosen for robustness must be tried on
many: other generator seeds, aspect correlations, human highlight rates and review lengths, and the file
layouts the real corpora come in, read by their own loaders:

- ``lei``: the Lei et al. (2016) Beer release (``dataset=beer``): ``reviews.aspect{k}.{train,heldout}.txt``
  and ``annotations.json``;
- ``beer_r2a``: BeerAdvocate in the R2A TSV layout of Bao et al. (2018) (``dataset=beer_r2a``):
  ``beer_{Look,Aroma,Palate}.{train,dev}`` and ``annotations/beer_{Aspect}.train``;
- ``hotel``: the R2A hotel layout (``dataset=hotel``), the synthetic aspects 0-2 standing for location,
  service and cleanliness.

The R2A files carry a 0/1 label (scores <= 0.4 negative, >= 0.6 positive, as the Lei loader binarises; the
middle band is left out, as the R2A release has no such reviews) and, in the annotated file, one 0/1 rationale
mark per token. ``aspect_share`` sets how much of a review the aspects' sentences take, hence the human
rate; :func:`write_layout_corpus` measures the rate of each aspect's annotated test reviews and records it
with the parameters in ``synthetic.json``. The same arguments give the same bytes.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from pyhighlights.data.lei_format import format_annotation_line, format_review_line
from pyhighlights.data.preprocess import binarize_score
from pyhighlights.data.r2a import R2A_ASPECTS
from pyhighlights.data.synthetic_reviews import ASPECT_SHARE, SyntheticReview, generate_review

LAYOUTS = ("lei", "beer_r2a", "hotel")
ASPECTS = 3  # the aspects with their own training files (appearance/look/location, ...)



def _tsv(reviews: list[SyntheticReview], aspect: int, rationale: bool) -> str:
    rows = ["label\ttext\trationale" if rationale else "label\ttext"]
    for review in reviews:
        label = binarize_score(review.scores[aspect])
        if label is None:
            continue
        row = f"{label}\t{' '.join(review.tokens)}"
        if rationale:
            marks = [0] * len(review.tokens)
            for start, end in review.spans[aspect]:
                marks[start:end] = [1] * (end - start)
            row += "\t" + " ".join(map(str, marks))
        rows.append(row)
    return "\n".join(rows) + "\n"


def _human_rate(reviews: list[SyntheticReview], aspect: int) -> float:
    """The share of the annotated tokens of ``aspect`` over the reviews a loader keeps (not middle-rated)."""
    kept = [r for r in reviews if binarize_score(r.scores[aspect]) is not None]
    marked = sum(end - start for r in kept for start, end in r.spans[aspect])
    return marked / max(1, sum(len(r.tokens) for r in kept))


def write_layout_corpus(
    out_dir: str | Path,
    layout: str,
    *,
    seed: int = 0,
    n_train: int = 1000,
    n_heldout: int = 200,
    n_test: int = 200,
    correlation: float = 0.0,
    aspect_share: tuple[float, float] = ASPECT_SHARE,
    min_length: int = 100,
    max_length: int = 250,
) -> dict:
    """Write one synthetic corpus in ``layout`` (one of :data:`LAYOUTS`); return its ``synthetic.json`` record."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    low, high = aspect_share
    if not 0 < low <= high <= 1:
        raise ValueError(f"aspect_share must be two numbers 0 < low <= high <= 1, got {aspect_share}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    options = {"correlation": correlation, "min_length": min_length, "max_length": max_length,
               "aspect_share": (low, high)}

    def reviews(name: str, size: int, anchor: int | None) -> list[SyntheticReview]:
        rng = random.Random(f"synth-layout:{layout}:{seed}:{name}")
        return [generate_review(rng, anchor=rng.randrange(ASPECTS) if anchor is None else anchor, **options)
                for _ in range(size)]

    test = reviews("test", n_test, None)  # one annotated set, every aspect marked, anchors mixed
    for aspect in range(ASPECTS):
        train, heldout = reviews(f"train{aspect}", n_train, aspect), reviews(f"heldout{aspect}", n_heldout, aspect)
        if layout == "lei":
            for split, items in (("train", train), ("heldout", heldout)):
                text = "".join(format_review_line(r.scores, r.tokens) + "\n" for r in items)
                (out / f"reviews.aspect{aspect}.{split}.txt").write_text(text, encoding="utf-8")
            continue
        corpus = "hotel" if layout == "hotel" else "beer"
        stem = f"{corpus}_{R2A_ASPECTS[corpus][aspect]}"
        (out / f"{stem}.train").write_text(_tsv(train, aspect, False), encoding="utf-8")
        (out / f"{stem}.dev").write_text(_tsv(heldout, aspect, False), encoding="utf-8")
        (out / "annotations").mkdir(exist_ok=True)
        (out / "annotations" / f"{stem}.train").write_text(_tsv(test, aspect, True), encoding="utf-8")
    if layout == "lei":
        text = "".join(format_annotation_line(r.tokens, r.scores, r.spans) + "\n" for r in test)
        (out / "annotations.json").write_text(text, encoding="utf-8")
    record = {"generator": "pyhighlights.data.synthetic_layouts", "layout": layout, "seed": seed,
              "n_train": n_train, "n_heldout": n_heldout, "n_test": n_test, **options,
              "aspect_share": [low, high],
              "test_human_rate": [round(_human_rate(test, a), 4) for a in range(ASPECTS)]}
    (out / "synthetic.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return record
