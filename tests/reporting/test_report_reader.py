"""Reading run directories, evaluation and explanation folders into result sets."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyhighlights.cli.report import main
from pyhighlights.reporting.reader import read_results


def write(path: Path, payload) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload))


def fake_run(root: Path, model: str, seeds: dict, aspect="aroma") -> Path:
    write(root / "results.json", {"seeds": seeds, "summary": {}})
    write(root / "manifest.json", {"parameters": {"model": {"name": model},
                                                  "dataset": {"name": "beer", "aspect": aspect, "data_dir": None}}})
    return root


@pytest.fixture
def runs(tmp_path):
    rnp = fake_run(tmp_path / "multirun" / "0", "rnp", {"0": {"test/highlight_f1": 0.5, "test/sparsity": 0.2}})
    fake_run(tmp_path / "multirun" / "1", "rnp", {"1": {"test/highlight_f1": 0.7}})
    write(rnp / "evaluation" / "test" / "metrics.json",
          {"kind": "evaluation", "model": "rnp", "seeds": {"0": {"test/auprc": 0.3, "test/highlight_f1": 0.55}}})
    clf = fake_run(tmp_path / "clf", "classifier", {"0": {"test/accuracy": 0.9}})
    write(clf / "explain" / "lime" / "metrics.json",
          {"kind": "explain", "model": "classifier", "dataset": {"name": "beer", "aspect": "aroma"},
           "seeds": {"0": {"test/highlight_f1": 0.4}}})
    return tmp_path


def test_runs_below_a_folder_merge_their_evaluation_and_add_explanations(runs):
    sets = read_results([runs / "multirun", runs / "clf", runs / "clf" / "explain" / "lime"])
    assert [(s.label, s.kind) for s in sets] == [("rnp", "train"), ("rnp", "train"), ("classifier", "train"),
                                                 ("lime", "explain")]  # the lime folder is read once
    assert sets[0].seeds["0"] == {"test/highlight_f1": 0.55, "test/sparsity": 0.2, "test/auprc": 0.3}
    assert sets[0].dataset == "beer/aroma"
    assert read_results([runs / "multirun"], evaluation=None)[0].seeds["0"]["test/highlight_f1"] == 0.5


def test_cli_prints_the_table(runs, capsys):
    assert main([str(runs), "--metrics", "highlight_f1,auprc"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # runs below a folder come in path order: clf (and its explanation), then multirun/0 and /1
    assert lines[2] == "| classifier | 1 | – | – |"
    assert lines[3] == "| lime | 1 | 0.400 ± 0.000 | – |"
    # mean(0.55, 0.7), stdev = 0.15/√2; AUPRC was evaluated for seed 0 only
    assert lines[4] == "| rnp | 2 | 0.625 ± 0.106 | 0.300 ± 0.000 (n=1) |"
    assert main([str(runs / "nothing")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_two_runs_of_one_model_and_seed_are_two_rows(tmp_path, capsys):
    for name, lr, f1 in (("A", 0.1, 0.8), ("B", 0.01, 0.9)):
        write(tmp_path / name / "results.json", {"seeds": {"0": {"test/highlight_f1": f1}}})
        write(tmp_path / name / "manifest.json", {"parameters": {"model": {"name": "rnp", "lr": lr},
                                                                 "dataset": {"name": "beer", "aspect": "aroma"}}})
    assert main([str(tmp_path / "A"), str(tmp_path / "B"), "--metrics", "highlight_f1"]) == 0
    assert capsys.readouterr().out.splitlines()[2:] == ["| rnp (model.lr=0.1) | 1 | 0.800 ± 0.000 |",
                                                        "| rnp (model.lr=0.01) | 1 | 0.900 ± 0.000 |"]
