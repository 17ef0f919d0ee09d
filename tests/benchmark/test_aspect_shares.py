"""benchmarks/aspect_shares.py: the share of each aspect's words a run's rationales keep, counted by hand."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "aspect_shares.py"


def load():
    spec = importlib.util.spec_from_file_location("aspect_shares", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# two reviews: words 0-9 and 0-5; aspect 2 the target, aspect 0 a correlated one, the rest filler
ANNOTATIONS = [
    {"x": list("abcdefghij"), "0": [[0, 2]], "1": [], "2": [[4, 7]], "3": [], "4": []},
    {"x": list("abcdef"), "0": [[4, 6]], "1": [], "2": [[0, 2]], "3": [], "4": []},
]
PREDICTIONS = [  # listed out of order: the id, not the position, names the review
    {"id": "annotations.json:2", "label": 1, "prediction": 1, "selected": [0, 1, 4], "highlight": [0, 1]},
    {"id": "annotations.json:1", "label": 0, "prediction": 0, "selected": [1, 4, 5, 6, 9], "highlight": [4, 5, 6]},
]


def test_shares_by_hand():
    shares = load().aspect_shares(ANNOTATIONS, PREDICTIONS)
    # aspect 2: 3 of 3 words kept in review 1, 2 of 2 in review 2 -> 5/5; aspect 0: 1 of 2, then 1 of 2 -> 2/4;
    # filler: review 1 has 5 (2, 3, 7, 8, 9; 9 kept), review 2 has 2 (2, 3; none kept) -> 1/7
    assert shares == {"0": 0.5, "2": 1.0, "filler": 1 / 7}


def test_the_script_prints_a_line_per_run(tmp_path):
    corpus = tmp_path / "annotations.json"
    corpus.write_text("\n".join(json.dumps(r) for r in ANNOTATIONS) + "\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "predictions.jsonl").write_text("\n".join(json.dumps(p) for p in PREDICTIONS) + "\n")
    result = subprocess.run([sys.executable, str(SCRIPT), str(corpus), str(run)], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split() == [str(run), "0", "0.50", "2", "1.00", "filler", "0.14"]
