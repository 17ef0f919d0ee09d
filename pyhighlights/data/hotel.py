"""Hotel reviews in the R2A layout (Bao, Chang, Yu and Barzilay, EMNLP 2018).

The TripAdvisor hotel reviews of Wang, Lu and Zhai (KDD 2010), as prepared
for "Deriving Machine Attention from Human Rationales" (R2A): three aspects,
location / service / cleanliness, each with train and dev TSV files and 200
test reviews annotated with a per-token 0/1 rationale (the files the
rationalization references CAR, FR, DR and G-RAT evaluate on).

Files expected in ``data_dir`` (each may be ``.gz``), for Aspect = Location,
Service or Cleanliness::

    hotel_{Aspect}.train                    label<TAB>text ... (header row)
    hotel_{Aspect}.dev
    annotations/hotel_{Aspect}.train        adds the rationale column
      (or target/hotel_{Aspect}.train)

Parsing is :func:`pyhighlights.data.r2a.load_r2a`; this module only fixes the
aspect names and the labels (0 negative, 1 positive).
"""
from __future__ import annotations

from pathlib import Path

from pyhighlights.data.batch import Corpus
from pyhighlights.data.r2a import R2A_ASPECTS, load_r2a

HOTEL_ASPECTS = tuple(name.lower() for name in R2A_ASPECTS["hotel"])  # location, service, cleanliness

#: Number of annotated test reviews per aspect in the distributed release.
HOTEL_ANNOTATED_TEST_SIZE = 200


def resolve_hotel_aspect(aspect: str | int) -> str:
    """``Location`` / ``Service`` / ``Cleanliness`` from a name (any case) or an index 0-2."""
    if isinstance(aspect, str) and aspect.strip().isdigit():
        aspect = int(aspect)
    if isinstance(aspect, int) and not isinstance(aspect, bool) and 0 <= aspect < len(HOTEL_ASPECTS):
        return R2A_ASPECTS["hotel"][aspect]
    if isinstance(aspect, str) and aspect.strip().lower() in HOTEL_ASPECTS:
        return R2A_ASPECTS["hotel"][HOTEL_ASPECTS.index(aspect.strip().lower())]
    allowed = ", ".join(f"{i} or {name!r}" for i, name in enumerate(HOTEL_ASPECTS))
    raise ValueError(f"unknown hotel aspect {aspect!r}; expected one of: {allowed}")


def load_hotel(
    data_dir: str | Path,
    aspect: str | int,
    *,
    max_length: int = 256,
    balance: bool = False,
    seed: int = 0,
    skip_malformed: bool = False,
    remove_leakage: bool | None = True,
    truncate_test: bool = True,
) -> Corpus:
    """Read one aspect of the R2A hotel corpus; the corpus is named ``hotel/<Aspect>``.

    ``remove_leakage`` (default True) drops training/validation reviews whose
    text is also in a higher-priority split (:mod:`pyhighlights.data.leakage`);
    False only reports them, None skips the audit.

    ``Corpus.info["annotated_test_expected"]`` records the size of the
    distributed annotated test set (200), so a partial copy of the data is
    visible in the manifest next to the number actually read.
    """
    corpus = load_r2a(
        data_dir,
        "hotel",
        resolve_hotel_aspect(aspect),
        max_length=max_length,
        balance=balance,
        seed=seed,
        skip_malformed=skip_malformed,
        remove_leakage=remove_leakage,
        truncate_test=truncate_test,
    )
    corpus.info["annotated_test_expected"] = HOTEL_ANNOTATED_TEST_SIZE
    return corpus
