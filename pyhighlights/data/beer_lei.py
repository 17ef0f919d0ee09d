"""Loader for the BeerAdvocate corpus as released by Lei et al. (2016).

Files expected in ``data_dir`` (each may also be ``.gz``)::

    reviews.aspect{k}.train.txt     training reviews for aspect k
    reviews.aspect{k}.heldout.txt   validation reviews for aspect k
    annotations.json                994 reviews with human highlights (test)

Aspect k = 0, 1, 2 is appearance, aroma, palate. Labels binarise the chosen
aspect's score (<= 0.4 negative, >= 0.6 positive, else dropped).

The *correlated* release (``variant="correlated"``) has one pair of files for
every aspect, in the same line format (five scores, a tab, the tokens)::

    reviews.260k.train.txt          reviews.260k.heldout.txt

The chosen aspect's score is the label; the test set is the same
annotations.json. Its aspects' scores correlate strongly, so a model can
predict one aspect from another's words (MGR, MCD and MRD report it; MGR
``beer.py`` Beer_correlated). Its loader also balances the heldout split;
here only training is balanced, as for the decorrelated release.
"""
from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

from pyhighlights.data.batch import Corpus, Document
from pyhighlights.data.corpus_files import require_files
from pyhighlights.data.disagreement import disagreement_pattern, redraw_for_disagreement
from pyhighlights.data.lei_format import parse_annotation_line, parse_review_line
from pyhighlights.data.preprocess import BINARY_LABEL_NAMES, assemble_corpus, binarize_score
from pyhighlights.data.records import log_skipped, parse_lines

logger = logging.getLogger(__name__)

LEI_ASPECTS = ("appearance", "aroma", "palate")

LEI_PUBLICATION = (
    "The corpus is the BeerAdvocate release of Lei, Barzilay and Jaakkola (2016), "
    '"Rationalizing Neural Predictions" (EMNLP); it is distributed by the authors, '
    "who grant access on request."
)


def resolve_lei_aspect(aspect: str | int) -> int:
    """Aspect index 0-2 from a name ("aroma"), an index (1) or its string ("1")."""
    if isinstance(aspect, str):
        name = aspect.strip().lower()
        if name in LEI_ASPECTS:
            return LEI_ASPECTS.index(name)
        if name.isdigit():
            aspect = int(name)
    if isinstance(aspect, int) and not isinstance(aspect, bool) and 0 <= aspect < len(LEI_ASPECTS):
        return aspect
    allowed = ", ".join(f"{i} or {n!r}" for i, n in enumerate(LEI_ASPECTS))
    raise ValueError(f"unknown Beer aspect {aspect!r}; expected one of: {allowed}")


LEI_VARIANTS = ("decorrelated", "correlated")


def lei_file_names(aspect_index: int, variant: str = "decorrelated") -> dict[str, list[str]]:
    if variant not in LEI_VARIANTS:
        raise ValueError(f"unknown Beer variant {variant!r}; expected one of {', '.join(LEI_VARIANTS)}")
    stem = "reviews.260k" if variant == "correlated" else f"reviews.aspect{aspect_index}"
    return {
        "train": [f"{stem}.train.txt"],
        "validation": [f"{stem}.heldout.txt"],
        "test": ["annotations.json"],
    }


def _read_reviews(path: Path, aspect: int, counts: dict, skip_malformed: bool,
                  disagreeing: list[bool] | None = None, environments: bool = False) -> list[Document]:
    """The reviews with a polar score for ``aspect``; ``disagreeing``, when given, receives per review whether
    another aspect's score is of the opposite polarity; ``environments``: each review's environment is its
    :func:`~pyhighlights.data.disagreement.disagreement_pattern`."""
    counts["middle_band_dropped"] = 0
    documents = []
    for number, review in parse_lines(path, parse_review_line, counts, skip_malformed=skip_malformed):
        label = binarize_score(review.scores[aspect])
        if label is None:
            counts["middle_band_dropped"] += 1
            continue
        pattern = _pattern(review.scores, aspect, label) if environments or disagreeing is not None else None
        documents.append(Document(f"{path.name}:{number}", review.tokens, label,
                                  environment=pattern if environments else None))
        if disagreeing is not None:
            disagreeing.append(pattern != 0)
    log_skipped(path, counts)
    return documents


def _pattern(scores: list[float], aspect: int, label: int) -> int:
    return disagreement_pattern(label, (binarize_score(score) for k, score in enumerate(scores) if k != aspect))


def _read_annotations(path: Path, aspect: int, counts: dict, skip_malformed: bool,
                      environments: bool = False) -> list[Document]:
    counts["no_rationale_skipped"] = 0
    counts["middle_band_dropped"] = 0
    parse = partial(parse_annotation_line, aspects=(aspect,))
    documents = []
    for number, record in parse_lines(path, parse, counts, skip_malformed=skip_malformed):
        spans = record.spans[aspect]
        if not spans:
            counts["no_rationale_skipped"] += 1
            continue
        label = binarize_score(record.scores[aspect])
        if label is None:
            counts["middle_band_dropped"] += 1
            continue
        highlights = [0] * len(record.tokens)
        for start, end in spans:
            highlights[start:end] = [1] * (end - start)
        environment = _pattern(record.scores, aspect, label) if environments else None
        documents.append(Document(f"{path.name}:{number}", record.tokens, label, highlights, list(spans),
                                  environment))
    log_skipped(path, counts)
    return documents


def load_lei_beer(
    data_dir: str | Path,
    aspect: str | int,
    *,
    max_length: int = 256,
    balance: bool = True,
    seed: int = 0,
    skip_malformed: bool = False,
    remove_leakage: bool | None = None,
    variant: str = "decorrelated",
    validation_annotations: str | None = None,
    disagreement_share: float | None = None,
    aspect_environments: bool = False,
) -> Corpus:
    """Read the Lei et al. Beer corpus for one aspect.

    The training split is balanced (``balance=True``) by dropping random
    documents of the majority class (seeded); validation (heldout) and test
    (annotations.json) keep their label distribution. What was dropped,
    skipped and truncated is counted in ``Corpus.info["splits"][split]``.
    ``variant``: "decorrelated" (per-aspect files) or "correlated"
    (``reviews.260k.*``). ``remove_leakage`` (None, False, True): the leakage audit, see
    :func:`pyhighlights.data.preprocess.assemble_corpus`. ``validation_annotations``: a file of ``data_dir``
    in the ``annotations.json`` format to read the validation split from instead of the heldout reviews,
    for their highlights (the synthetic corpus writes one; the authors' release has none).
    ``disagreement_share``: redraw the training reviews, before balancing, so that those in which another aspect's
    polarity is the opposite of the label make this share of them (:mod:`pyhighlights.data.disagreement`); None =
    as read. ``aspect_environments``: each review's environment (every split) is the bit mask of the other
    aspects whose polarity is the opposite of the label (:func:`pyhighlights.data.disagreement.disagreement_pattern`;
    the five scores less the label's give four bits, 16 environments).
    """
    index = resolve_lei_aspect(aspect)
    names = lei_file_names(index, variant)
    if validation_annotations is not None:
        names["validation"] = [validation_annotations]
    files = require_files(data_dir, names, LEI_PUBLICATION)
    read_validation = _read_annotations if validation_annotations is not None else _read_reviews
    counts: dict[str, dict] = {"train": {}, "validation": {}, "test": {}}
    # per training review, whether another aspect disagrees with its label: only the redraw reads it
    disagreeing: list[bool] | None = [] if disagreement_share is not None else None
    documents = {
        "train": _read_reviews(files["train"], index, counts["train"], skip_malformed, disagreeing,
                               environments=aspect_environments),
        "validation": read_validation(files["validation"], index, counts["validation"], skip_malformed,
                                      environments=aspect_environments),
        "test": _read_annotations(files["test"], index, counts["test"], skip_malformed,
                                  environments=aspect_environments),
    }
    if disagreement_share is not None:
        documents["train"], counts["train"]["disagreement_redraw"] = redraw_for_disagreement(
            documents["train"], disagreeing, disagreement_share, seed)
    info = {
        "corpus": "beer",
        "format": "lei2016",
        "aspect": LEI_ASPECTS[index],
        "aspect_index": index,
        "variant": variant,
        "data_dir": str(Path(data_dir)),
        "files": {split: str(path) for split, path in files.items()},
        "skip_malformed": skip_malformed,
    }
    corpus = assemble_corpus(
        f"beer{'_correlated' if variant == 'correlated' else ''}/{LEI_ASPECTS[index]}",
        documents,
        counts,
        label_names=BINARY_LABEL_NAMES,
        max_length=max_length,
        balance=balance,
        seed=seed,
        info=info,
        remove_leakage=remove_leakage,
    )
    logger.debug("loaded Beer (Lei 2016) aspect %s: %s", LEI_ASPECTS[index], counts)
    return corpus
