"""Writing the synthetic Beer corpus in the Lei et al. (2016) format, and caching it.

Reviews come from :mod:`synthetic_reviews`; ``annotations.json`` marks exactly
each aspect's sentences, so a rationaliser's highlights can be scored exactly.
``correlation`` is the probability that an aspect copies the polarity of the
review's anchor aspect: at 1 all aspects agree (the "correlated Beer" trap:
appearance can be predicted from aroma words), at 0 they are independent. The
anchor of ``reviews.aspect{k}.*`` is aspect k, so every training file is equally
trapped for its own aspect; in ``annotations.json`` (shared by all aspects)
the anchor is drawn per review among aspects 0-2.

Every file has its own random stream derived from ``seed`` and its name, so
changing ``n_train`` does not change the test set.

The Lei et al. release annotates only its test reviews; the synthetic corpus
also writes ``annotations.aspect{k}.heldout.json``: the reviews of
``reviews.aspect{k}.heldout.txt``, line for line and byte for byte the same
text and scores, in the ``annotations.json`` format with their aspects'
spans. ``dataset=synth_beer`` reads its validation split from that file, so
validation highlight F1 is measured (and can select checkpoints); the test
split stays ``annotations.json``, drawn from its own stream.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import random
import shutil
import tempfile
from pathlib import Path

from pyhighlights.data.lei_format import format_annotation_line, format_review_line
from pyhighlights.data.synthetic_reviews import MIN_REVIEW_LENGTH, generate_review

# Bump when the generated text changes, so cached corpora are regenerated.
GENERATOR_VERSION = 1
# Bump when files are added with the text unchanged: a new cache folder, the same streams (and documents).
LAYOUT_VERSION = 2


def validation_annotations_name(aspect: int) -> str:
    """The file holding the heldout reviews of ``aspect`` with their highlights."""
    return f"annotations.aspect{aspect}.heldout.json"
NUM_LEI_ASPECTS = 3  # aspects with their own train/heldout files


def _check_parameters(counts: dict[str, int], correlation: float, min_length: int, max_length: int) -> None:
    for name, value in counts.items():
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    if not 0.0 <= correlation <= 1.0:
        raise ValueError(f"correlation must be in [0, 1], got {correlation}")
    if min_length < MIN_REVIEW_LENGTH:
        raise ValueError(
            f"min_length must be >= {MIN_REVIEW_LENGTH} (one shortest sentence per aspect), got {min_length}"
        )
    if max_length < min_length:
        raise ValueError(f"max_length ({max_length}) must be >= min_length ({min_length})")


def write_synthetic_beer(
    out_dir: str | Path,
    *,
    seed: int = 0,
    n_train: int = 3000,
    n_heldout: int = 500,
    n_test: int = 500,
    correlation: float = 0.0,
    min_length: int = 100,
    max_length: int = 250,
) -> Path:
    """Write a synthetic Beer corpus (Lei et al. format) into ``out_dir``.

    Files: ``reviews.aspect{0,1,2}.{train,heldout}.txt`` (``n_train`` and
    ``n_heldout`` reviews each), ``annotations.aspect{0,1,2}.heldout.json``
    (the same heldout reviews with spans), ``annotations.json`` (``n_test``
    reviews, spans for all five aspects) and ``synthetic.json`` (the parameters). The output
    depends only on the arguments: the same arguments give the same bytes.
    """
    _check_parameters(
        {"n_train": n_train, "n_heldout": n_heldout, "n_test": n_test}, correlation, min_length, max_length
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lengths = {"correlation": correlation, "min_length": min_length, "max_length": max_length}

    def stream(name: str) -> random.Random:
        # A string seed is hashed with SHA-512 by `random`: stable across runs.
        return random.Random(f"synth-beer:v{GENERATOR_VERSION}:{seed}:{name}")

    for aspect in range(NUM_LEI_ASPECTS):
        for split, size in (("train", n_train), ("heldout", n_heldout)):
            name = f"reviews.aspect{aspect}.{split}.txt"
            rng = stream(name)
            reviews = [generate_review(rng, anchor=aspect, **lengths) for _ in range(size)]
            lines = [format_review_line(r.scores, r.tokens) + "\n" for r in reviews]
            (out / name).write_text("".join(lines), encoding="utf-8")
            if split == "heldout":
                annotated = [format_annotation_line(r.tokens, r.scores, r.spans) + "\n" for r in reviews]
                (out / validation_annotations_name(aspect)).write_text("".join(annotated), encoding="utf-8")
    rng = stream("annotations.json")
    annotated = []
    for _ in range(n_test):
        review = generate_review(rng, anchor=rng.randrange(NUM_LEI_ASPECTS), **lengths)
        annotated.append(format_annotation_line(review.tokens, review.scores, review.spans) + "\n")
    (out / "annotations.json").write_text("".join(annotated), encoding="utf-8")
    parameters = {
        "generator": "pyhighlights.data.synthetic",
        "version": GENERATOR_VERSION,
        "seed": seed,
        "n_train": n_train,
        "n_heldout": n_heldout,
        "n_test": n_test,
        **lengths,
    }
    (out / "synthetic.json").write_text(json.dumps(parameters, indent=2) + "\n", encoding="utf-8")
    return out


def synthetic_cache_root() -> Path:
    """``$PYHIGHLIGHTS_CACHE/synth_beer`` or ``~/.cache/pyhighlights/synth_beer``."""
    base = os.environ.get("PYHIGHLIGHTS_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "pyhighlights"
    return root / "synth_beer"


def synthetic_parameters(**params: object) -> dict:
    """All generator parameters, defaults filled in; unknown names are an error."""
    signature = inspect.signature(write_synthetic_beer)
    try:
        bound = signature.bind(None, **params)
    except TypeError as error:
        allowed = [name for name in signature.parameters if name != "out_dir"]
        raise TypeError(f"{error}; synthetic corpus parameters are {allowed}") from None
    bound.apply_defaults()
    return {name: value for name, value in bound.arguments.items() if name != "out_dir"}


def synthetic_beer_dir(**params: object) -> Path:
    """The cached synthetic corpus for ``params`` (generated on first use).

    The directory name is a short hash of the parameters and the generator
    version. It is written under a temporary name and renamed into place, so
    concurrent processes never see a half-written corpus; one that loses the
    race discards its copy and uses the winner's (identical) one.
    """
    parameters = synthetic_parameters(**params)
    key = json.dumps({**parameters, "version": GENERATOR_VERSION, "layout": LAYOUT_VERSION}, sort_keys=True)
    final = synthetic_cache_root() / hashlib.sha256(key.encode()).hexdigest()[:12]
    if final.is_dir():
        return final
    for path in (final.parent, *final.parent.parents):
        if path.exists() and not path.is_dir():
            raise NotADirectoryError(f"{path} is a file; the synthetic corpus cache {final.parent} must be a "
                                     "directory (set PYHIGHLIGHTS_CACHE to a directory)")
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=final.parent))
    try:
        write_synthetic_beer(scratch, **parameters)
        try:
            os.rename(scratch, final)
        except OSError:
            if not final.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return final
