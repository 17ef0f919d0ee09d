"""How much of each aspect's words a run's test rationales keep, on a generated Lei-format corpus.

The generator (``scripts/make_synthetic.py``, ``benchmarks/recipe_protocol.py``) writes every aspect's sentences
into ``annotations.json`` (keys "0"-"4"); a run's ``predictions.jsonl`` lists the words each test rationale kept.
On a corpus whose aspects are correlated this says whether a model keeps the target aspect's words or every
aspect's sentiment::

    python benchmarks/aspect_shares.py CORPUS_DIR/annotations.json RUN_DIR [RUN_DIR ...]

prints, per run, the share of each aspect's words kept and of the words no aspect covers ("filler").
"""
from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyhighlights.data.lei_format import NUM_SCORES as ASPECTS, LeiAnnotation, parse_annotation_line  # noqa: E402
from pyhighlights.data.records import parse_lines  # noqa: E402
from pyhighlights.run_files import PREDICTIONS_FILE, read_jsonl  # noqa: E402


def read_annotations(path: Path) -> dict[int, LeiAnnotation]:
    """Each review of an ``annotations.json`` by its line number, every aspect's spans checked (a bad line is an
    error naming the file and line), numbered as the Lei loader numbers a test review's id."""
    return dict(parse_lines(path, partial(parse_annotation_line, aspects=tuple(range(ASPECTS))), {},
                            skip_malformed=False))


def aspect_shares(annotations: dict[int, LeiAnnotation], predictions: list[dict]) -> dict[str, float]:
    """Share of the words of each aspect ("0"-"4") and of the rest ("filler") that the rationales keep.

    A prediction's ``id`` is ``annotations.json:<line>``, as the Lei loader names test reviews."""
    kept = dict.fromkeys([*map(str, range(ASPECTS)), "filler"], 0)
    total = dict.fromkeys(kept, 0)
    for prediction in predictions:
        line = int(prediction["id"].rsplit(":", 1)[1])
        if line not in annotations:
            raise ValueError(f"prediction {prediction['id']!r}: the annotations have no review at line {line}")
        record = annotations[line]
        chosen = set(prediction["selected"])
        owner = ["filler"] * len(record.tokens)
        for aspect, spans in record.spans.items():
            for start, end in spans:
                owner[start:end] = [str(aspect)] * (end - start)
        for position, name in enumerate(owner):
            total[name] += 1
            kept[name] += position in chosen
    return {name: kept[name] / total[name] for name in kept if total[name]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("annotations", type=Path, help="the corpus's annotations.json (every aspect's spans)")
    parser.add_argument("runs", type=Path, nargs="+", help="run directories with predictions.jsonl")
    args = parser.parse_args()
    annotations = read_annotations(args.annotations)
    for run in args.runs:
        shares = aspect_shares(annotations, read_jsonl(run / PREDICTIONS_FILE))
        print(run, " ".join(f"{name} {share:.2f}" for name, share in shares.items()))


if __name__ == "__main__":
    main()
