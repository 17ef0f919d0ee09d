"""Run directories: atomic claim, ordinary permissions, recorded states."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pyhighlights.training.rundir import (RunDirectory, RunDirectoryExists, RunDirectoryUnusable, read_state,
                                          write_json_atomic)


@pytest.fixture
def umask():
    old = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(old)


def test_only_one_of_two_runs_that_both_passed_the_check_claims_the_directory(tmp_path):
    first, second = RunDirectory(tmp_path / "run"), RunDirectory(tmp_path / "run")
    first.check_free()
    second.check_free()  # both looked before either claimed
    first.claim({".hydra/overrides.yaml": "- seed=0\n"})
    with pytest.raises(RunDirectoryExists, match="claimed by another run"):
        _claim_skipping_check(second)
    assert read_state(tmp_path / "run") == "running"
    assert (tmp_path / "run" / ".hydra" / "overrides.yaml").read_text() == "- seed=0\n"


def _claim_skipping_check(directory: RunDirectory) -> None:
    # The second run's check ran before the first claim: only the exclusive create stands between them.
    directory.check_free = lambda: directory
    directory.claim()


def test_a_directory_holding_a_run_is_refused_before_any_write(tmp_path):
    run = RunDirectory(tmp_path / "run").claim()
    run.set_state("finished")
    status = (tmp_path / "run" / "status.json").read_bytes()
    with pytest.raises(RunDirectoryExists, match="already holds a run"):
        RunDirectory(tmp_path / "run").claim({"x.txt": "late"})
    assert not (tmp_path / "run" / "x.txt").exists() and (tmp_path / "run" / "status.json").read_bytes() == status


def test_a_path_through_a_file_is_named(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(RunDirectoryUnusable, match=f"{tmp_path / 'file'} is a file"):
        RunDirectory(tmp_path / "file" / "run").check_free()


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_files_get_the_permissions_the_umask_gives(tmp_path, umask, mask, mode):
    umask(mask)
    write_json_atomic(tmp_path / "results.json", {"a": 1})
    assert (tmp_path / "results.json").stat().st_mode & 0o777 == mode
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]  # no temporary file left behind
    RunDirectory(tmp_path / "run").claim()
    assert (tmp_path / "run" / "status.json").stat().st_mode & 0o777 == mode


def test_a_failed_write_keeps_the_previous_file(tmp_path):
    write_json_atomic(tmp_path / "results.json", {"a": 1})
    with pytest.raises(TypeError):
        write_json_atomic(tmp_path / "results.json", {"a": object()})
    assert json.loads((tmp_path / "results.json").read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_states_and_seed_warnings_are_recorded(tmp_path):
    run = RunDirectory(tmp_path).claim()
    assert read_state(tmp_path) == "running"
    run.add_seed(0, {"test/accuracy": 0.5}, [{"kind": "loss_growth", "epoch": 0}])
    run.add_seed(1, {"test/accuracy": 0.7})
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["warnings"] == {"0": [{"kind": "loss_growth", "epoch": 0}]}
    assert results["summary"]["test/accuracy"]["mean"] == pytest.approx(0.6)
    run.set_state("interrupted", error="KeyboardInterrupt")
    status = json.loads((tmp_path / "status.json").read_text())
    assert status["state"] == "interrupted" and status["error"] == "KeyboardInterrupt" and status["started"]
    with pytest.raises(ValueError, match="unknown run state"):
        run.set_state("done")
    assert read_state(Path(tmp_path) / "nothing") is None
