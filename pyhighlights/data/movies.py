"""ERASER movie reviews (DeYoung et al., "ERASER: A Benchmark to Evaluate
Rationalized NLP Models", ACL 2020), from the movie reviews of Pang and Lee
(2004) with the rationales of Zaidan, Eisner and Piatko (2007).

Files expected in ``data_dir`` (the ``movies`` folder of the ERASER release)::

    docs/<docid>                  one review, space-tokenised, one sentence a line
    train.jsonl, val.jsonl, test.jsonl

Each JSON line is an annotation::

    {"annotation_id": "negR_000.txt", "classification": "NEG",
     "evidences": [[{"docid": "negR_000.txt", "start_token": 239,
                     "end_token": 243, "text": "...", ...}], ...],
     "docids": null, "query": "...", "query_type": null}

The document's tokens are its lines' tokens concatenated; evidence offsets
index into them with an exclusive end. ``evidences`` is a list of evidence
groups (each a list of evidences; a bare evidence object is accepted too);
the highlight is the union of every evidence span, and the spans themselves
are kept as written (span-level metrics score them unmerged). An annotation without any
evidence is kept as an unannotated document (highlights None) and counted.
Labels: NEG -> 0 (negative), POS -> 1 (positive).

Reviews run to hundreds of words (often over a thousand), so documents are
truncated to ``max_length`` words; how many were cut, and how many
highlighted words went with them, is counted per split in
``Corpus.info["splits"]`` and logged.
"""
from __future__ import annotations

import json
import logging
from functools import partial
from pathlib import Path

from pyhighlights.data.batch import Corpus, Document
from pyhighlights.data.corpus_files import require_files
from pyhighlights.data.errors import CorpusNotFoundError, MalformedRecord
from pyhighlights.data.preprocess import BINARY_LABEL_NAMES, assemble_corpus
from pyhighlights.data.records import log_skipped, parse_lines, read_lines

logger = logging.getLogger(__name__)

MOVIES_PUBLICATION = (
    "The corpus is the movie reviews part of the ERASER benchmark (DeYoung, Jain, Rajani, Lehman, Xiong, "
    'Socher and Wallace, "ERASER: A Benchmark to Evaluate Rationalized NLP Models", ACL 2020), distributed '
    "with the benchmark (movies.tar.gz: docs/ and train/val/test.jsonl)."
)

MOVIES_LABELS = {"NEG": 0, "POS": 1}
MOVIES_SPLIT_FILES = {"train": "train.jsonl", "validation": "val.jsonl", "test": "test.jsonl"}


def read_movie_document(path: Path) -> list[str]:
    """The tokens of ``docs/<docid>``: every line's space-separated tokens, in order."""
    return [token for _, line in read_lines(path) for token in line.split()]


class DocumentStore:
    """Reads ``docs/<docid>`` files on demand (each once)."""

    def __init__(self, docs_dir: Path) -> None:
        self.docs_dir = docs_dir
        self._cache: dict[str, list[str]] = {}

    def tokens(self, docid: str) -> list[str]:
        if docid not in self._cache:
            if not docid or "/" in docid or "\\" in docid or docid in (".", ".."):
                raise MalformedRecord(f"docid must be a file name under docs/, got {docid!r}")
            path = self.docs_dir / docid
            if not path.is_file():
                raise MalformedRecord(f"the document docs/{docid} does not exist in {self.docs_dir.parent}")
            tokens = read_movie_document(path)
            if not tokens:
                raise MalformedRecord(f"the document docs/{docid} is empty; expected space-tokenised text")
            self._cache[docid] = tokens
        return self._cache[docid]


def _evidences(value: object) -> list[dict]:
    """Flatten ERASER's list of evidence groups into a list of evidence objects."""
    if not isinstance(value, list):
        raise MalformedRecord(f"'evidences' must be a list of evidence groups, got {type(value).__name__}")
    flat = []
    for group in value:
        items = group if isinstance(group, list) else [group]
        for item in items:
            if not isinstance(item, dict):
                raise MalformedRecord(f"an evidence must be an object with docid/start_token/end_token, got {item!r}")
            flat.append(item)
    return flat


def _span(evidence: dict, docid: str, tokens: list[str], check_text: bool) -> tuple[int, int]:
    if evidence.get("docid", docid) != docid:
        raise MalformedRecord(
            f"evidence refers to document {evidence.get('docid')!r} but the annotation is about {docid!r}; "
            "expected single-document annotations"
        )
    start, end = evidence.get("start_token"), evidence.get("end_token")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
        raise MalformedRecord(f"evidence start_token/end_token must be integers, got {start!r}, {end!r}")
    if not 0 <= start < end <= len(tokens):
        raise MalformedRecord(
            f"evidence span [{start}, {end}) is out of range for docs/{docid} with {len(tokens)} tokens "
            "(expected 0 <= start_token < end_token <= number of tokens; end_token is exclusive)"
        )
    text = evidence.get("text")
    if check_text and isinstance(text, str) and " ".join(text.split()) != " ".join(tokens[start:end]):
        raise MalformedRecord(
            f"evidence text {text!r} does not match tokens [{start}, {end}) of docs/{docid}: "
            f"{' '.join(tokens[start:end])!r} (offsets must index the whole document's tokens, end exclusive)"
        )
    return start, end


def parse_movie_annotation(line: str, store: DocumentStore, check_text: bool = True) -> Document:
    """One line of ``{train,val,test}.jsonl`` -> a :class:`Document` over the whole review."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise MalformedRecord(f"expected one JSON object a line ({error.msg})") from None
    if not isinstance(record, dict):
        raise MalformedRecord("expected a JSON object with annotation_id, classification and evidences")
    annotation_id = record.get("annotation_id")
    if not isinstance(annotation_id, str):
        raise MalformedRecord(f"expected a string 'annotation_id', got {annotation_id!r}")
    where = f"annotation {annotation_id!r}: "
    label = record.get("classification")
    if label not in MOVIES_LABELS:
        raise MalformedRecord(f"{where}unknown label {label!r}; expected one of {sorted(MOVIES_LABELS)}")
    docids = record.get("docids")
    if docids is not None and (not isinstance(docids, list) or len(docids) != 1):
        raise MalformedRecord(f"{where}expected one document in 'docids' (or null), got {docids!r}")
    docid = docids[0] if docids else annotation_id
    try:
        tokens = store.tokens(docid)
        evidences = _evidences(record.get("evidences", []))
        spans = [_span(e, docid, tokens, check_text) for e in evidences]
    except MalformedRecord as problem:
        raise MalformedRecord(where + str(problem)) from None
    highlights = None
    if spans:
        highlights = [0] * len(tokens)
        for start, end in spans:
            highlights[start:end] = [1] * (end - start)
    return Document(annotation_id, list(tokens), MOVIES_LABELS[label], highlights, spans or None)


def _read_split(path: Path, store: DocumentStore, counts: dict, *, check_text: bool,
                skip_malformed: bool) -> list[Document]:
    parse = partial(parse_movie_annotation, store=store, check_text=check_text)
    # Blank lines (e.g. a trailing newline pair) are not records.
    records = ((number, text) for number, text in read_lines(path) if text.strip())
    documents = [doc for _, doc in parse_lines(path, parse, counts, skip_malformed=skip_malformed,
                                               raw_records=records)]
    counts["unannotated"] = sum(d.highlights is None for d in documents)
    log_skipped(path, counts)
    return documents


def _count_cut_highlights(documents: list[Document], max_length: int) -> int:
    return sum(sum(d.highlights[max_length:]) for d in documents if d.highlights is not None)


def load_movies(
    data_dir: str | Path,
    *,
    max_length: int = 1024,
    balance: bool = False,
    seed: int = 0,
    skip_malformed: bool = False,
    check_evidence_text: bool = True,
    remove_leakage: bool | None = False,
) -> Corpus:
    """Read ERASER movies; documents are truncated to ``max_length`` words (reported).

    ``check_evidence_text`` compares each evidence's ``text`` with the tokens
    its offsets point at, which catches offsets into the wrong tokenisation.
    """
    files = require_files(
        data_dir, {split: [name] for split, name in MOVIES_SPLIT_FILES.items()}, MOVIES_PUBLICATION
    )
    docs_dir = Path(data_dir) / "docs"
    if not docs_dir.is_dir():
        raise CorpusNotFoundError(data_dir, ["docs/ (one file per review, named by its docid)"], MOVIES_PUBLICATION)
    store = DocumentStore(docs_dir)
    counts: dict[str, dict] = {split: {} for split in MOVIES_SPLIT_FILES}
    documents = {
        split: _read_split(files[split], store, counts[split], check_text=check_evidence_text,
                           skip_malformed=skip_malformed)
        for split in MOVIES_SPLIT_FILES
    }
    for split, docs in documents.items():  # as read, before leakage removal and balancing
        counts[split]["highlight_words_truncated"] = _count_cut_highlights(docs, max_length)
        counts[split]["longest_document"] = max((len(d.tokens) for d in docs), default=0)
    info = {
        "corpus": "movies",
        "format": "eraser",
        "data_dir": str(Path(data_dir)),
        "files": {split: str(path) for split, path in files.items()},
        "skip_malformed": skip_malformed,
    }
    corpus = assemble_corpus("movies", documents, counts, label_names=list(BINARY_LABEL_NAMES),
                             max_length=max_length, balance=balance, seed=seed, info=info,
                             remove_leakage=remove_leakage)
    for split, split_counts in counts.items():
        logger.info(
            "movies %s: %d documents, %d truncated to max_length=%d words (longest %d; %d highlighted words cut)",
            split, split_counts["kept"], split_counts["truncated"], max_length, split_counts["longest_document"],
            split_counts["highlight_words_truncated"],
        )
    return corpus
