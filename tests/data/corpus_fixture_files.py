"""Small corpus files written by hand, in the exact on-disk formats (test helpers).

A module with its own name rather than conftest.py, so that importing it can
never pick up another test folder's conftest.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path


def write_text(path: Path, lines: list[str], *, gz: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(line + "\n" for line in lines)
    if gz:
        path = path.with_name(path.name + ".gz")
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def review(scores: list[float], text: str) -> str:
    return " ".join(str(s) for s in scores) + "\t" + text


def annotation(tokens: str, scores: list[float], **spans: list[list[int]]) -> str:
    record = {"x": tokens.split(), "y": scores}
    record.update({str(a): [] for a in range(5)})
    record.update({key.lstrip("a"): value for key, value in spans.items()})
    return json.dumps(record)


# Aspect 1 (aroma) scores decide the labels below.
TRAIN_LINES = [
    review([0.5, 0.4, 0.5, 0.5, 0.5], "smells stale"),  # 0
    review([0.5, 0.6, 0.5, 0.5, 0.5], "smells fresh"),  # 1
    review([0.9, 0.5, 0.5, 0.5, 0.5], "middle band dropped"),  # dropped
    review([0.9, 0.45, 0.5, 0.5, 0.5], "middle band dropped too"),  # dropped
    review([0.1, 0.8, 0.5, 0.5, 0.5], "smells lovely indeed"),  # 1
    review([0.1, 0.9, 0.5, 0.5, 0.5], "a b c d e f g h"),  # 1
    review([0.1, 0.0, 0.5, 0.5, 0.5], "smells awful"),  # 0
]
HELDOUT_LINES = [
    review([0.5, 1.0, 0.5, 0.5, 0.5], "good"),
    review([0.5, 0.7, 0.5, 0.5, 0.5], "good too"),
    review([0.5, 0.2, 0.5, 0.5, 0.5], "bad"),
    review([0.5, 0.5, 0.5, 0.5, 0.5], "dropped"),
]
ANNOTATION_LINES = [
    # aroma span [1, 3) marks tokens 1 and 2 only (end exclusive).
    annotation("t0 t1 t2 t3 t4 t5", [0.5, 0.8, 0.5, 0.5, 0.5], a1=[[1, 3]], a0=[[0, 6]]),
    annotation("u0 u1 u2 u3", [0.5, 0.2, 0.5, 0.5, 0.5], a1=[[0, 1], [3, 4]]),
    annotation("no aroma span here", [0.5, 0.9, 0.5, 0.5, 0.5], a0=[[0, 2]]),  # skipped
    annotation("middle band", [0.5, 0.5, 0.5, 0.5, 0.5], a1=[[0, 1]]),  # dropped
]
