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
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyhighlights.data.lei_format import NUM_SCORES as ASPECTS  # noqa: E402  (one span list per rated aspect)
from pyhighlights.run_files import PREDICTIONS_FILE, read_jsonl  # noqa: E402


def aspect_shares(annotations: list[dict], predictions: list[dict]) -> dict[str, float]:
    """Share of the words of each aspect ("0"-"4") and of the rest ("filler") that the rationales keep.

    A prediction's ``id`` is ``annotations.json:<line>`` (1-based), as the Lei loader names test reviews."""
    kept = dict.fromkeys([*map(str, range(ASPECTS)), "filler"], 0)
    total = dict.fromkeys(kept, 0)
    for prediction in predictions:
        line = int(prediction["id"].rsplit(":", 1)[1])
        record = annotations[line - 1]
        chosen = set(prediction["selected"])
        owner = ["filler"] * len(record["x"])
        for aspect in map(str, range(ASPECTS)):
            for start, end in record.get(aspect, []):
                owner[start:end] = [aspect] * (end - start)
        for position, name in enumerate(owner):
            total[name] += 1
            kept[name] += position in chosen
    return {name: kept[name] / total[name] for name in kept if total[name]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("annotations", type=Path, help="the corpus's annotations.json (every aspect's spans)")
    parser.add_argument("runs", type=Path, nargs="+", help="run directories with predictions.jsonl")
    args = parser.parse_args()
    annotations = [json.loads(line) for line in args.annotations.read_text(encoding="utf-8").splitlines()
                   if line.strip()]
    for run in args.runs:
        shares = aspect_shares(annotations, read_jsonl(run / PREDICTIONS_FILE))
        print(run, " ".join(f"{name} {share:.2f}" for name, share in shares.items()))


if __name__ == "__main__":
    main()
