"""A checkpoint is data: crafted, damaged and foreign files are refused by every command that reads one.

The crafted file is a pickle whose object, when unpickled without restriction, creates a marker file
(harmless, but the same mechanism runs any command). Each entry point must refuse it with a one-line
message naming the file, exit with status 2, and leave the marker uncreated.
"""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
import torch
from evaluation_fixtures import tiny_runs  # noqa: F401  (fixture)
from forked_scripts import run_script

import pyhighlights
from pyhighlights.checkpoint_file import DamagedCheckpoint, UnsafeCheckpoint, read_checkpoint
from pyhighlights.evaluation.cli import main as evaluate_main
from pyhighlights.explain.cli import main as explain_main
from pyhighlights.viewer.cli import main as view_main


class MakesFile:
    """Unpickled without restriction, this calls ``open(marker, "w")``: the file appears."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def craft(path: Path, marker: Path) -> Path:
    torch.save({"state_dict": {}, "epoch": 0, "payload": MakesFile(marker)}, path)
    return path


def damage(path: Path, kind: str) -> Path:
    whole = path.read_bytes()
    path.write_bytes({"empty": b"", "truncated": whole[:len(whole) // 2],
                      "random": random.Random(0).randbytes(4096)}[kind])
    return path


@pytest.fixture
def marker(tmp_path) -> Path:
    return tmp_path / "CREATED-BY-THE-CHECKPOINT"


def test_the_crafted_file_does_run_code_when_loaded_without_restriction(tmp_path, marker):
    # What the refusals below protect against: an unrestricted load creates the marker.
    torch.load(craft(tmp_path / "x.ckpt", marker), weights_only=False)
    assert marker.exists()


def copy_run(tiny_runs, name: str, tmp_path: Path) -> Path:
    run = tmp_path / name
    shutil.copytree(tiny_runs[name], run, ignore=shutil.ignore_patterns("evaluation", "explain", "plots"))
    return run


def one_line_error(text: str, path: Path, words: str) -> None:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), text[-2000:]
    assert str(path) in lines[0] and words in lines[0], lines[0]
    assert "Traceback" not in text


def test_the_reader_refuses_crafted_damaged_and_non_dictionary_files(tiny_runs, tmp_path, marker):
    with pytest.raises(UnsafeCheckpoint, match=r"x\.ckpt: refused, not loaded: .*open"):
        read_checkpoint(craft(tmp_path / "x.ckpt", marker))
    good = tiny_runs["classifier"] / "checkpoints" / "last.ckpt"
    for kind in ("empty", "truncated", "random"):
        path = tmp_path / f"{kind}.ckpt"
        shutil.copy(good, path)
        for mmap in (False, True):
            with pytest.raises(DamagedCheckpoint, match=rf"{kind}\.ckpt: damaged or not a checkpoint"):
                read_checkpoint(damage(path, kind), mmap=mmap)
    torch.save([1, 2], tmp_path / "list.ckpt")
    with pytest.raises(DamagedCheckpoint, match="holds a list"):
        read_checkpoint(tmp_path / "list.ckpt")
    assert not marker.exists()
    assert set(read_checkpoint(good)) >= {"state_dict", "optimizer_states", "loops", "callbacks", "pyhighlights"}


def test_pyhighlights_load_refuses_crafted_and_damaged_files(tiny_runs, tmp_path, marker):
    with pytest.raises(UnsafeCheckpoint, match=r"x\.ckpt"):
        pyhighlights.load(craft(tmp_path / "x.ckpt", marker))
    for kind in ("empty", "truncated", "random"):
        path = tmp_path / f"{kind}.ckpt"
        shutil.copy(tiny_runs["classifier"] / "checkpoints" / "last.ckpt", path)
        with pytest.raises(DamagedCheckpoint, match=rf"{kind}\.ckpt: damaged"):
            pyhighlights.load(damage(path, kind))
    assert not marker.exists()


def refused(main, argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("command", ["evaluate", "explain"])
def test_evaluate_and_explain_refuse_a_crafted_or_damaged_best_checkpoint(tiny_runs, tmp_path, marker, capsys,
                                                                          command):
    run = copy_run(tiny_runs, "classifier", tmp_path)
    best = next((run / "checkpoints").glob("best-*.ckpt"))
    main, extra = (evaluate_main, []) if command == "evaluate" else (explain_main, ["method=feature_ablation"])
    craft(best, marker)
    for argv in ([str(run), *extra], [str(best), *extra]):  # the run directory, or the checkpoint named
        one_line_error(refused(main, argv, capsys), best, "refused, not loaded")
    assert not marker.exists()
    shutil.copy(tiny_runs["classifier"] / "checkpoints" / best.name, best)
    for kind in ("empty", "truncated", "random"):
        damage(best, kind)
        one_line_error(refused(main, [str(run), *extra], capsys), best, "damaged or not a checkpoint")
    assert not [p for p in run.rglob("*") if p.is_file() and p.parts[len(run.parts)] in ("evaluation", "explain")]


def test_evaluate_refuses_a_crafted_faithfulness_model(tiny_runs, tmp_path, marker, capsys):
    scorer = copy_run(tiny_runs, "classifier", tmp_path)
    best = craft(next((scorer / "checkpoints").glob("best-*.ckpt")), marker)
    err = refused(evaluate_main, [str(tiny_runs["rnp"] / "seed0" / "checkpoints" / "last.ckpt"),
                                  f"faithfulness_model={scorer}", "tag=crafted-scorer"], capsys)
    one_line_error(err, best, "refused, not loaded")
    assert not marker.exists()


def test_view_refuses_a_pickle_in_place_of_the_predictions(tiny_runs, tmp_path, marker, capsys):
    run = copy_run(tiny_runs, "classifier", tmp_path)
    craft(run / "predictions.jsonl", marker)
    page = tmp_path / "page.html"
    assert view_main([str(run), "--out", str(page)]) == 2
    one_line_error(capsys.readouterr().err, run / "predictions.jsonl", "not JSON")
    assert not marker.exists() and not page.exists()


@pytest.mark.parametrize("case", ["foreign model", "foreign configuration"])
def test_evaluate_and_explain_refuse_a_checkpoint_of_another_run(tiny_runs, tmp_path, capsys, case):
    run = copy_run(tiny_runs, "classifier", tmp_path)
    best = next((run / "checkpoints").glob("best-*.ckpt"))
    if case == "foreign model":
        shutil.copy(tiny_runs["rnp"] / "seed0" / "checkpoints" / "last.ckpt", best)
        words = "a rnp checkpoint in a classifier run"
    else:  # the same model, trained with another learning rate
        checkpoint = torch.load(best, weights_only=True)
        checkpoint["pyhighlights"]["specs"]["model"]["lr"] = 0.5
        torch.save(checkpoint, best)
        words = "model.lr: the run's"
    for main, extra in ((evaluate_main, []), (explain_main, ["method=feature_ablation"])):
        err = refused(main, [str(run), *extra], capsys)
        one_line_error(err, best, words)
        assert str(run) in err
    assert not [p for p in run.rglob("*") if p.is_file() and p.parts[len(run.parts)] in ("evaluation", "explain")]


def unfinished(tiny_runs, tmp_path) -> Path:
    """A copy of the one-seed classifier run as a run killed before it finished (resumable)."""
    run = copy_run(tiny_runs, "classifier", tmp_path)
    (run / "results.json").unlink()
    status = json.loads((run / "status.json").read_text())
    (run / "status.json").write_text(json.dumps({**status, "state": "interrupted"}))
    return run


@pytest.mark.parametrize("case", ["crafted last.ckpt", "crafted best", "truncated last.ckpt", "foreign last.ckpt"])
def test_resume_refuses_a_crafted_damaged_or_foreign_checkpoint_before_running(tiny_runs, tmp_path, marker, case):
    run = unfinished(tiny_runs, tmp_path)
    last = run / "checkpoints" / "last.ckpt"
    path = next((run / "checkpoints").glob("best-*")) if case == "crafted best" else last
    if case.startswith("crafted"):
        craft(path, marker)
        words = "refused, not loaded"
    elif case.startswith("truncated"):
        damage(path, "truncated")
        words = "damaged or not a checkpoint"
    else:
        shutil.copy(tiny_runs["rnp"] / "seed0" / "checkpoints" / "last.ckpt", path)
        words = "a rnp checkpoint in a classifier run"
    before = (run / "status.json").read_text()
    result = run_script("train.py", f"resume={run}")
    assert result.returncode == 2, result.stderr[-3000:]
    one_line_error(result.stderr, path, words)
    assert not marker.exists() and (run / "status.json").read_text() == before  # not marked running


def test_which_differences_make_a_checkpoint_foreign():
    from pyhighlights.checkpoint_match import differences

    run = {"model": {"name": "rnp", "lr": 0.1, "added_since": 1}, "trainer": {"max_epochs": 4}}
    # trained longer on resume, or a parameter one side does not record yet: the same run
    assert differences(run, {"model": {"name": "rnp", "lr": 0.1}, "trainer": {"max_epochs": 2}}) == []
    assert differences(run, {"model": {"name": "grat", "lr": 0.2}, "trainer": {"max_epochs": 4}}) == [
        ("model.lr", 0.1, 0.2), ("model.name", "rnp", "grat")]
