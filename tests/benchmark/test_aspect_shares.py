"""benchmarks/aspect_shares.py: the share of each aspect's words a run's rationales keep, counted by hand."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pyhighlights.data.errors import CorpusFormatError

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "aspect_shares.py"


def load():
    spec = importlib.util.spec_from_file_location("aspect_shares", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# two reviews: words 0-9 and 0-5; aspect 2 the target, aspect 0 a correlated one, the rest filler
ANNOTATIONS = [
    {"x": list("abcdefghij"), "y": [0.8] * 5, "0": [[0, 2]], "1": [], "2": [[4, 7]], "3": [], "4": []},
    {"x": list("abcdef"), "y": [0.2] * 5, "0": [[4, 6]], "1": [], "2": [[0, 2]], "3": [], "4": []},
]
PREDICTIONS = [  # listed out of order: the id, not the position, names the review
    {"id": "annotations.json:2", "label": 1, "prediction": 1, "selected": [0, 1, 4], "highlight": [0, 1]},
    {"id": "annotations.json:1", "label": 0, "prediction": 0, "selected": [1, 4, 5, 6, 9], "highlight": [4, 5, 6]},
]


def write_corpus(directory, records):
    path = directory / "annotations.json"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def test_shares_by_hand(tmp_path):
    module = load()
    shares = module.aspect_shares(module.read_annotations(write_corpus(tmp_path, ANNOTATIONS)), PREDICTIONS)
    # aspect 2: 3 of 3 words kept in review 1, 2 of 2 in review 2 -> 5/5; aspect 0: 1 of 2, then 1 of 2 -> 2/4;
    # filler: review 1 has 5 (2, 3, 7, 8, 9; 9 kept), review 2 has 2 (2, 3; none kept) -> 1/7
    assert shares == {"0": 0.5, "2": 1.0, "filler": 1 / 7}


def test_a_bad_line_or_a_review_not_in_the_annotations_is_named(tmp_path):
    module = load()
    missing_aspect = {key: value for key, value in ANNOTATIONS[0].items() if key != "3"}
    with pytest.raises(CorpusFormatError, match="annotations.json, line 2"):
        module.read_annotations(write_corpus(tmp_path, [ANNOTATIONS[0], missing_aspect]))
    annotations = module.read_annotations(write_corpus(tmp_path, ANNOTATIONS[:1]))
    with pytest.raises(ValueError, match="'annotations.json:2': the annotations have no review at line 2"):
        module.aspect_shares(annotations, PREDICTIONS)


def test_the_script_prints_a_line_per_run(tmp_path):
    corpus = write_corpus(tmp_path, ANNOTATIONS)
    run = tmp_path / "run"
    run.mkdir()
    (run / "predictions.jsonl").write_text("\n".join(json.dumps(p) for p in PREDICTIONS) + "\n")
    result = subprocess.run([sys.executable, str(SCRIPT), str(corpus), str(run)], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split() == [str(run), "0", "0.50", "2", "1.00", "filler", "0.14"]
