"""The line formats of the Lei et al. (2016) BeerAdvocate release, both ways.

Reviews (``reviews.aspect{k}.{train,heldout}.txt``)::

    0.8 0.7 0.6 0.7 0.8<TAB>lower-cased space tokenised review

Annotations (``annotations.json``), one JSON object a line::

    {"x": [tokens], "y": [5 scores], "0": [[start, end], ...], ..., "4": [...]}

Spans are token offsets with an exclusive end. The parsers raise
:class:`MalformedRecord` saying what was expected; the reader adds file and line.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

from pyhighlights.data.errors import MalformedRecord

SCORE_NAMES = ("appearance", "aroma", "palate", "taste", "overall")
NUM_SCORES = len(SCORE_NAMES)

Span = tuple[int, int]


@dataclass
class LeiReview:
    scores: list[float]
    tokens: list[str]


@dataclass
class LeiAnnotation:
    tokens: list[str]
    scores: list[float]
    spans: dict[int, list[Span]]  # aspect index -> spans, only the aspects asked for


def _check_score(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedRecord(f"{what} must be a number in [0, 1], got {value!r}")
    if not (0.0 <= value <= 1.0):  # also rejects NaN
        raise MalformedRecord(f"{what} must be in [0, 1], got {value!r}")
    return float(value)


def parse_review_line(text: str) -> LeiReview:
    scores_text, tab, review = text.partition("\t")
    if not tab:
        raise MalformedRecord(
            f"expected {NUM_SCORES} space-separated scores, a TAB, then the review; found no TAB"
        )
    fields = scores_text.split()
    if len(fields) != NUM_SCORES:
        raise MalformedRecord(
            f"expected {NUM_SCORES} space-separated scores before the TAB, found {len(fields)}"
        )
    scores = []
    for position, field in enumerate(fields):
        try:
            value = float(field)
        except ValueError:
            raise MalformedRecord(
                f"score {position + 1} ({SCORE_NAMES[position]}) is not a number: {field!r}"
            ) from None
        scores.append(_check_score(value, f"score {position + 1} ({SCORE_NAMES[position]})"))
    tokens = review.split()
    if not tokens:
        raise MalformedRecord("expected review text after the TAB, found none")
    return LeiReview(scores, tokens)


def _check_spans(value: object, key: str, num_tokens: int) -> list[Span]:
    if not isinstance(value, list):
        raise MalformedRecord(f'"{key}" must be a list of [start, end] spans, got {value!r}')
    spans = []
    for span in value:
        if (
            not isinstance(span, list)
            or len(span) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in span)
        ):
            raise MalformedRecord(f'"{key}": a span must be [start, end] integers, got {span!r}')
        start, end = span
        if not 0 <= start < end <= num_tokens:
            raise MalformedRecord(
                f'"{key}": span {span} out of range: expected 0 <= start < end <= '
                f"{num_tokens} (the review has {num_tokens} tokens; end is exclusive)"
            )
        spans.append((start, end))
    return spans


def parse_annotation_line(text: str, aspects: tuple[int, ...]) -> LeiAnnotation:
    """Parse one annotations.json line, validating the span lists of ``aspects``."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise MalformedRecord(f"expected a JSON object ({error.msg})") from None
    if not isinstance(record, dict):
        raise MalformedRecord(f"expected a JSON object, got {type(record).__name__}")
    needed = ["x", "y"] + [str(a) for a in aspects]
    absent = [key for key in needed if key not in record]
    if absent:
        raise MalformedRecord(f"missing key(s) {absent}; expected keys {needed}")
    tokens = record["x"]
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
        raise MalformedRecord('"x" must be a non-empty list of token strings')
    scores = record["y"]
    if not isinstance(scores, list) or len(scores) != NUM_SCORES:
        raise MalformedRecord(f'"y" must be a list of {NUM_SCORES} scores, got {scores!r}')
    scores = [_check_score(v, f'"y"[{i}] ({SCORE_NAMES[i]})') for i, v in enumerate(scores)]
    spans = {a: _check_spans(record[str(a)], str(a), len(tokens)) for a in aspects}
    return LeiAnnotation(tokens, scores, spans)


def _format_score(score: float) -> str:
    if not (0.0 <= score <= 1.0) or math.isnan(score):
        raise ValueError(f"score must be in [0, 1], got {score}")
    return str(round(score, 4))


def format_review_line(scores: list[float], tokens: list[str]) -> str:
    """One reviews.aspect*.txt line (without the newline)."""
    if len(scores) != NUM_SCORES:
        raise ValueError(f"expected {NUM_SCORES} scores, got {len(scores)}")
    return " ".join(_format_score(s) for s in scores) + "\t" + " ".join(tokens)


def format_annotation_line(
    tokens: list[str], scores: list[float], spans: dict[int, list[Span]]
) -> str:
    """One annotations.json line (without the newline); every aspect gets a key."""
    record: dict[str, object] = {"x": tokens, "y": [round(s, 4) for s in scores]}
    for aspect in range(NUM_SCORES):
        record[str(aspect)] = [[start, end] for start, end in spans.get(aspect, [])]
    return json.dumps(record)
