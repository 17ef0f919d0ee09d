"""``pyhighlights.load``: a checkpoint alone rebuilds its model and highlights raw text."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from evaluation_fixtures import tiny_runs  # noqa: F401  (fixture)

import pyhighlights
from pyhighlights.inference import Highlight, NotDescribed

ROOT = Path(__file__).resolve().parents[2]

# Loads every checkpoint named on the command line and highlights the texts read from stdin.
FRESH_PROCESS = """
import json, sys
import pyhighlights
texts = json.load(sys.stdin)
out = {}
for path in sys.argv[1:]:
    model = pyhighlights.load(path)
    out[path] = [[h.selected, h.prediction, model.training] for h in pyhighlights.highlight(model, texts)]
print(json.dumps(out))
"""


def test_a_fresh_process_without_the_corpus_reproduces_the_run_predictions(tiny_runs, tmp_path):
    run = tiny_runs["rnp"] / "seed0"  # trained one epoch: the best checkpoint is the last one
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    checkpoints = sorted(str(p) for p in (run / "checkpoints").glob("*.ckpt"))
    assert [Path(p).name for p in checkpoints] == ["best-epoch=1.ckpt", "last.ckpt"]
    corpus, away = tiny_runs["corpus"], tmp_path / "corpus-moved-away"
    shutil.move(corpus, away)
    try:
        result = subprocess.run([sys.executable, "-c", FRESH_PROCESS, *checkpoints], cwd=tmp_path, text=True,
                                input=json.dumps([" ".join(row["words"]) for row in rows]), capture_output=True,
                                env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    finally:
        shutil.move(away, corpus)
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = json.loads(result.stdout.splitlines()[-1])
    expected = [[row["selected"], row["prediction"], False] for row in rows]
    assert sum(len(row["selected"]) for row in rows) > 0
    for path in checkpoints:
        assert loaded[path] == expected, path


def test_one_text_gives_one_highlight_with_its_spans(tiny_runs):
    model = pyhighlights.load(tiny_runs["rnp"] / "seed1" / "checkpoints" / "last.ckpt")
    assert model.label_names == ["negative", "positive"] and model.specs["model"]["name"] == "rnp"
    text = "a crisp golden   pour with\ta thin head , smells of citrus and pine"
    result = model.highlight(text)
    assert isinstance(result, Highlight) and result.words == text.split() and result.words_cut == 0
    assert sum(result.probabilities) == pytest.approx(1.0) and result.label == model.label_names[result.prediction]
    assert model.highlight([text, "flat"])[0] == result  # batched with a shorter text: the same
    chosen = [int(i in result.selected) for i in range(len(result.words))]
    assert [w for w, keep in zip(result.words, chosen) if keep] == result.kept
    covered = [0] * len(result.words)
    for start, end in result.spans:
        covered[start:end] = [1] * (end - start)
        assert (start == 0 or not chosen[start - 1]) and (end == len(chosen) or not chosen[end])  # maximal runs
    assert covered == chosen
    with pytest.raises(ValueError, match="text 1: no words"):
        model.highlight(["fine", "  "])


def test_spans_and_marks_by_hand():
    result = Highlight(words="a b c d e".split(), selected=[0, 2, 3], prediction=1, label="positive",
                       probabilities=[0.2, 0.8])
    assert result.spans == [(0, 1), (2, 4)] and result.kept == ["a", "c", "d"]
    assert result.marked() == "[a] b [c d] e"


def test_a_checkpoint_without_description_is_named(tiny_runs, tmp_path):
    checkpoint = torch.load(tiny_runs["classifier"] / "checkpoints" / "last.ckpt", weights_only=True)
    checkpoint.pop("pyhighlights")
    torch.save(checkpoint, tmp_path / "old.ckpt")
    with pytest.raises(NotDescribed, match=r"old\.ckpt: the checkpoint does not describe its model"):
        pyhighlights.load(tmp_path / "old.ckpt")
    with pytest.raises(FileNotFoundError, match="no such checkpoint"):
        pyhighlights.load(tmp_path / "missing.ckpt")
