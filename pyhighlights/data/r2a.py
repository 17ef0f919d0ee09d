"""Loader for the TSV layout of the R2A release (Bao et al., 2018).

Files expected in ``data_dir`` for ``corpus`` and ``Aspect`` (each may be ``.gz``)::

    {corpus}_{Aspect}.train                 training set
    {corpus}_{Aspect}.dev                   validation set
    annotations/{corpus}_{Aspect}.train     annotated test set
      (or target/{corpus}_{Aspect}.train, as in the R2A archive)

Each file is tab-separated with a header row naming its columns; ``label`` (an
integer class) and ``text`` (space-tokenised) are required, and the annotated
file adds ``rationale``: one 0/1 per token, space separated (a mask only, so
span-level metrics take its maximal runs as the human spans). A line is one
record and a TAB separates fields; there is no quoting, so a ``"`` is part of
the text (tokenised reviews often start with one).
"""
from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from pyhighlights.data.batch import Corpus, Document
from pyhighlights.data.corpus_files import require_files
from pyhighlights.data.errors import CorpusFormatError, MalformedRecord
from pyhighlights.data.preprocess import BINARY_LABEL_NAMES, assemble_corpus
from pyhighlights.data.records import log_skipped, parse_lines, read_lines

logger = logging.getLogger(__name__)

# Aspect names as they appear in the R2A file names, per corpus. An index
# resolves through this table; other names are used as given.
R2A_ASPECTS = {
    "hotel": ("Location", "Service", "Cleanliness"),
    "beer": ("Look", "Aroma", "Palate"),
}

R2A_PUBLICATION = (
    "The corpus is the release of Bao, Chang, Yu and Barzilay (2018), \"Deriving "
    'Machine Attention from Human Rationales" (R2A, EMNLP; beer and hotel reviews); it '
    "is distributed by the authors with their code."
)


def resolve_r2a_aspect(corpus: str, aspect: str | int) -> str:
    """The aspect's name as used in file names (``hotel``, 0 -> ``Location``)."""
    known = R2A_ASPECTS.get(corpus, ())
    if isinstance(aspect, str) and aspect.strip().isdigit():
        aspect = int(aspect)
    if isinstance(aspect, int) and not isinstance(aspect, bool):
        if 0 <= aspect < len(known):
            return known[aspect]
        allowed = ", ".join(f"{i}={n}" for i, n in enumerate(known)) or "none known"
        raise ValueError(
            f"aspect index {aspect} is not defined for R2A corpus {corpus!r} "
            f"(indices: {allowed}); pass the aspect's name as it appears in the file names"
        )
    if not isinstance(aspect, str) or not aspect.strip():
        raise ValueError(f"aspect must be a name or an index, got {aspect!r}")
    name = aspect.strip()
    by_lower = {n.lower(): n for n in known}
    return by_lower.get(name.lower(), name)


def r2a_file_names(corpus: str, aspect: str) -> dict[str, list[str]]:
    stem = f"{corpus}_{aspect}"
    return {
        "train": [f"{stem}.train"],
        "validation": [f"{stem}.dev"],
        "test": [f"annotations/{stem}.train", f"target/{stem}.train"],
    }


def _tsv_rows(path: Path) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """The header and an iterator of ``(line_number, fields)`` for the data rows."""
    lines = read_lines(path)
    first = next(lines, None)
    if first is None:
        raise CorpusFormatError(path, 1, "expected a header row naming the columns; the file is empty")
    rows = ((number, text.split("\t")) for number, text in lines)
    return [name.strip() for name in first[1].split("\t")], rows


def _parse_row(
    row: list[str], columns: list[str], labels: range, with_rationale: bool
) -> tuple[list[str], int, list[int] | None]:
    if len(row) != len(columns):
        raise MalformedRecord(
            f"expected {len(columns)} tab-separated fields (columns {columns}), found {len(row)}"
        )
    field = dict(zip(columns, row))
    try:
        label = int(field["label"].strip())
    except ValueError:
        raise MalformedRecord(f"label must be an integer, got {field['label']!r}") from None
    if label not in labels:
        raise MalformedRecord(f"unknown label {label}; expected one of {list(labels)}")
    tokens = field["text"].split()
    if not tokens:
        raise MalformedRecord("expected a non-empty text")
    if not with_rationale:
        return tokens, label, None
    marks = field["rationale"].split()
    if any(mark not in ("0", "1") for mark in marks):
        raise MalformedRecord("rationale must be space-separated 0/1 values, one per token")
    if len(marks) != len(tokens):
        raise MalformedRecord(
            f"rationale has {len(marks)} values but the text has {len(tokens)} tokens; "
            "expected one 0/1 per token"
        )
    return tokens, label, [int(mark) for mark in marks]


def _read_split(
    path: Path, counts: dict, *, num_classes: int, with_rationale: bool, skip_malformed: bool
) -> list[Document]:
    columns, rows = _tsv_rows(path)
    required = ["label", "text"] + (["rationale"] if with_rationale else [])
    absent = [name for name in required if name not in columns]
    if absent:
        raise CorpusFormatError(
            path, 1, f"header lacks column(s) {absent}; expected at least {required}, found {columns}"
        )
    parse = partial(_parse_row, columns=columns, labels=range(num_classes), with_rationale=with_rationale)
    documents = [
        Document(f"{path.name}:{number}", tokens, label, highlights)
        for number, (tokens, label, highlights) in parse_lines(
            path, parse, counts, skip_malformed=skip_malformed, raw_records=rows
        )
    ]
    log_skipped(path, counts)
    return documents


def load_r2a(
    data_dir: str | Path,
    corpus: str,
    aspect: str | int,
    *,
    max_length: int = 256,
    balance: bool = True,
    seed: int = 0,
    skip_malformed: bool = False,
    label_names: list[str] | tuple[str, ...] = tuple(BINARY_LABEL_NAMES),
    remove_leakage: bool | None = None,
    truncate_test: bool = True,
) -> Corpus:
    """Read one aspect of an R2A-layout corpus (``corpus="hotel"`` or ``"beer"``).

    Labels must be integers ``0 .. len(label_names) - 1``. The training split
    is balanced by dropping random majority-class documents when ``balance``;
    all splits are truncated to ``max_length`` tokens. Counts per split are in
    ``Corpus.info["splits"]``.
    ``remove_leakage`` (None, False, True): the leakage audit, see
    :func:`pyhighlights.data.preprocess.assemble_corpus`.
    """
    name = resolve_r2a_aspect(corpus, aspect)
    publication = R2A_PUBLICATION
    if corpus in R2A_ASPECTS:
        publication += f" Aspects of {corpus}: {', '.join(R2A_ASPECTS[corpus])}."
    files = require_files(data_dir, r2a_file_names(corpus, name), publication)
    counts: dict[str, dict] = {"train": {}, "validation": {}, "test": {}}
    documents = {
        split: _read_split(
            files[split],
            counts[split],
            num_classes=len(label_names),
            with_rationale=split == "test",
            skip_malformed=skip_malformed,
        )
        for split in counts
    }
    info = {
        "corpus": corpus,
        "format": "r2a",
        "aspect": name,
        "data_dir": str(Path(data_dir)),
        "files": {split: str(path) for split, path in files.items()},
        "skip_malformed": skip_malformed,
    }
    result = assemble_corpus(
        f"{corpus}/{name}",
        documents,
        counts,
        label_names=list(label_names),
        max_length=max_length,
        balance=balance,
        seed=seed,
        info=info,
        remove_leakage=remove_leakage,
        truncate_test=truncate_test,
    )
    logger.debug("loaded %s (R2A layout) aspect %s: %s", corpus, name, counts)
    return result
