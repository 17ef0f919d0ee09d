"""HateXplain (Mathew, Saha, Yimam, Biemann, Goyal and Mukherjee, "HateXplain:
A Benchmark Dataset for Explainable Hate Speech Detection", AAAI 2021).

Files expected in ``data_dir`` (the ``Data`` folder of the authors' release)::

    dataset.json              {post_id: {"post_id", "annotators", "rationales", "post_tokens"}}
    post_id_divisions.json    {"train": [post ids], "val": [...], "test": [...]}

Each post has (normally three) annotators, each with a ``label`` among
``hatespeech``, ``offensive``, ``normal``; ``rationales`` holds one 0/1
vector per annotator who marked a rationale (normal posts often have none).

- Label: the strict majority of the annotators' labels; a post without one
  (e.g. three different labels) is dropped and counted
  (``no_majority_dropped``).
- Highlight: a token is highlighted when more than half of the rationale
  vectors present mark it; a post without rationale vectors is unannotated
  (highlights None, scored as -1). The result is a mask, so span-level
  metrics take its maximal runs as the human spans.

Errors name the file, the line of the post's record and its post id.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

from pyhighlights.data.batch import Corpus, Document
from pyhighlights.data.corpus_files import require_files
from pyhighlights.data.errors import CorpusFormatError, MalformedRecord
from pyhighlights.data.preprocess import assemble_corpus
from pyhighlights.data.records import read_lines

logger = logging.getLogger(__name__)

HATEXPLAIN_LABELS = ["hatespeech", "offensive", "normal"]
HATEXPLAIN_SPLITS = {"train": "train", "validation": "val", "test": "test"}

HATEXPLAIN_PUBLICATION = (
    'The corpus is HateXplain (Mathew et al., "HateXplain: A Benchmark Dataset for Explainable Hate Speech '
    'Detection", AAAI 2021), distributed with the authors\' code (Data/dataset.json and '
    "Data/post_id_divisions.json)."
)


def _load_json(path: Path) -> tuple[object, str]:
    """The parsed file and its text (kept to find a record's line for error messages)."""
    text = "\n".join(line for _, line in read_lines(path))
    try:
        return json.loads(text), text
    except json.JSONDecodeError as error:
        raise CorpusFormatError(path, error.lineno, f"expected a JSON document ({error.msg})") from None


def _line_of(text: str, key: str) -> int | None:
    """1-based line of the first occurrence of ``"key"`` in ``text`` (None if absent)."""
    position = text.find(json.dumps(key))
    return None if position < 0 else text.count("\n", 0, position) + 1


def majority_label(labels: list[str]) -> str | None:
    """The label more than half of ``labels`` agree on, else None."""
    for label in set(labels):
        if labels.count(label) * 2 > len(labels):
            return label
    return None


def majority_highlights(vectors: list[list[int]]) -> list[int] | None:
    """1 where more than half of the vectors mark the token; None without vectors."""
    if not vectors:
        return None
    return [int(sum(marks) * 2 > len(vectors)) for marks in zip(*vectors)]


def parse_post(post_id: str, record: object) -> tuple[list[str], str | None, list[int] | None]:
    """``(tokens, majority label or None, highlights or None)`` of one dataset.json record."""
    if not isinstance(record, dict):
        raise MalformedRecord("expected an object with post_tokens, annotators and rationales")
    tokens = record.get("post_tokens")
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
        raise MalformedRecord(f"expected 'post_tokens' to be a non-empty list of strings, got {tokens!r}")
    annotators = record.get("annotators")
    if not isinstance(annotators, list) or not annotators:
        raise MalformedRecord(f"expected 'annotators' to be a non-empty list, got {annotators!r}")
    labels = []
    for annotator in annotators:
        label = annotator.get("label") if isinstance(annotator, dict) else None
        if label not in HATEXPLAIN_LABELS:
            raise MalformedRecord(f"unknown label {label!r}; expected one of {HATEXPLAIN_LABELS}")
        labels.append(label)
    vectors = record.get("rationales", [])
    if not isinstance(vectors, list):
        raise MalformedRecord(f"expected 'rationales' to be a list of 0/1 vectors, got {vectors!r}")
    for number, marks in enumerate(vectors):
        if not isinstance(marks, list) or any(m not in (0, 1) or isinstance(m, bool) for m in marks):
            raise MalformedRecord(f"rationale vector {number} must be a list of 0/1 values")
        if len(marks) != len(tokens):
            raise MalformedRecord(
                f"rationale vector {number} has {len(marks)} values but the post has {len(tokens)} tokens; "
                "expected one 0/1 per token"
            )
    return tokens, majority_label(labels), majority_highlights(vectors)


def _divisions(path: Path) -> dict[str, list[str]]:
    divisions, text = _load_json(path)
    if not isinstance(divisions, dict):
        raise CorpusFormatError(path, 1, "expected an object {\"train\": [post ids], \"val\": [...], \"test\": [...]}")
    result: dict[str, list[str]] = {}
    owner: dict[str, str] = {}
    for split, key in HATEXPLAIN_SPLITS.items():
        ids = divisions.get(key)
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise CorpusFormatError(path, _line_of(text, key), f"expected {key!r} to be a list of post ids")
        for post_id in ids:
            if post_id in owner:
                raise CorpusFormatError(path, _line_of(text, post_id),
                                        f"post {post_id!r} is listed in both {owner[post_id]!r} and {key!r}")
            owner[post_id] = key
        result[split] = ids
    return result


def load_hatexplain(
    data_dir: str | Path,
    *,
    max_length: int = 256,
    balance: bool = False,
    seed: int = 0,
    skip_malformed: bool = False,
    remove_leakage: bool | None = True,
) -> Corpus:
    """Read HateXplain: three classes (hatespeech, offensive, normal), majority labels and highlights."""
    files = require_files(
        data_dir, {"dataset": ["dataset.json"], "divisions": ["post_id_divisions.json"]}, HATEXPLAIN_PUBLICATION
    )
    posts, text = _load_json(files["dataset"])
    if not isinstance(posts, dict):
        raise CorpusFormatError(files["dataset"], 1, "expected an object mapping post ids to records")
    divisions = _divisions(files["divisions"])
    counts: dict[str, dict] = {split: {"records": 0, "malformed_skipped": 0, "no_majority_dropped": 0}
                               for split in HATEXPLAIN_SPLITS}
    documents: dict[str, list[Document]] = {split: [] for split in HATEXPLAIN_SPLITS}
    for split, ids in divisions.items():
        for post_id in ids:
            counts[split]["records"] += 1
            try:
                if post_id not in posts:
                    raise MalformedRecord("listed in post_id_divisions.json but absent from dataset.json")
                tokens, label, highlights = parse_post(post_id, posts[post_id])
            except MalformedRecord as problem:
                error = CorpusFormatError(files["dataset"], _line_of(text, post_id), f"post {post_id!r}: {problem}")
                if not skip_malformed:
                    raise error from None
                counts[split]["malformed_skipped"] += 1
                logger.debug("skipping malformed record: %s", error)
                continue
            if label is None:
                counts[split]["no_majority_dropped"] += 1
                continue
            documents[split].append(Document(post_id, tokens, HATEXPLAIN_LABELS.index(label), highlights))
        counts[split]["unannotated"] = sum(d.highlights is None for d in documents[split])
    listed = {post_id for ids in divisions.values() for post_id in ids}
    info = {
        "corpus": "hatexplain",
        "format": "hatexplain",
        "data_dir": str(Path(data_dir)),
        "files": {role: str(path) for role, path in files.items()},
        "skip_malformed": skip_malformed,
        "posts_in_no_split": sum(post_id not in listed for post_id in posts),
    }
    for split, split_counts in counts.items():
        if split_counts["malformed_skipped"]:
            logger.warning("%s: skipped %d malformed %s record(s) of %d (skip_malformed=True)", files["dataset"],
                           split_counts["malformed_skipped"], split, split_counts["records"])
    corpus = assemble_corpus("hatexplain", documents, counts, label_names=list(HATEXPLAIN_LABELS),
                             max_length=max_length, balance=balance, seed=seed, info=info,
                             remove_leakage=remove_leakage)
    logger.debug("loaded HateXplain: %s", counts)
    return corpus
