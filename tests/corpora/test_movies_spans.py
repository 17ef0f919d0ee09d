"""ERASER movies: the evidence spans are kept as written, not only their union."""
from __future__ import annotations

import json

from corpora_fixtures import MOVIES
from pyhighlights.data.movies import load_movies


def test_evidence_spans_as_written():
    corpus = load_movies(MOVIES)
    record = json.loads((MOVIES / "test.jsonl").read_text().splitlines()[0])
    written = [(e["start_token"], e["end_token"]) for group in record["evidences"] for e in group]
    first = corpus.test[0]
    assert first.highlight_spans == written
    assert first.evidence_spans == written


def test_truncation_clips_the_spans():
    full, cut = load_movies(MOVIES).test[0], load_movies(MOVIES, max_length=12).test[0]
    expected = [(s, min(e, 12)) for s, e in full.highlight_spans if s < 12]
    assert cut.highlight_spans == expected
    assert all(e <= 12 for _, e in cut.highlight_spans)
