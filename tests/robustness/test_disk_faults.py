"""A full or read-only disk: one line saying which file could not be written, status.json marked failed
where it can still be written (or the message says it could not be), and no temporary file left behind.

Tests run as root, for whom chmod does not make a directory read-only, so the disk's refusals are
simulated: the write or rename calls raise the OSError a full (ENOSPC) or read-only (EROFS) disk gives.
"""
from __future__ import annotations

import errno
import json
import os

import pytest
from forked_scripts import run_script

from pyhighlights.config.compose import compose_config
from pyhighlights.testing import tiny_overrides
from pyhighlights.training.rundir import RunWriteFailed, read_state
from pyhighlights.training.run import run

# In scripts/train.py's process: torch.save writes part of a checkpoint, then the disk is full.
FULL_DURING_CHECKPOINT = """
import errno, os, torch
def save(obj, handle, *args, **kwargs):
    handle.write(b"PK" + b"x" * 1000)
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
torch.save = save
"""


def leftovers(run_dir):
    return [p for p in run_dir.rglob("*") if p.name.endswith(".tmp") or ".tmp" in p.suffixes or p.name.startswith(".")
            and p.is_file()]


def test_a_disk_that_fills_while_a_checkpoint_is_written(tiny_beer_dir, tmp_path):
    run_dir = tmp_path / "run"
    result = run_script("train.py", *tiny_overrides(tiny_beer_dir), f"hydra.run.dir={run_dir}",
                        prelude=FULL_DURING_CHECKPOINT)
    assert result.returncode == 2, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert f"cannot write {run_dir / 'checkpoints'}" in errors[0] and "No space left on device" in errors[0]
    assert f"marked failed in {run_dir / 'status.json'}" in errors[0]
    assert read_state(run_dir) == "failed"
    assert not leftovers(run_dir) and not list((run_dir / "checkpoints").glob("*"))


def refuse(error_number: int, allowed=lambda path: False):
    """An os.replace that refuses every rename into a path ``allowed`` does not accept."""
    real = os.replace

    def replace(source, target, *args, **kwargs):
        if allowed(str(target)):
            return real(source, target, *args, **kwargs)
        raise OSError(error_number, os.strerror(error_number))
    return replace


@pytest.mark.parametrize("error_number, words", [(errno.ENOSPC, "No space left on device"),
                                                 (errno.EROFS, "Read-only file system")])
def test_a_disk_that_refuses_every_write_after_the_claim(tiny_beer_dir, tmp_path, monkeypatch, error_number, words):
    run_dir = tmp_path / "run"
    cfg = compose_config(tiny_overrides(tiny_beer_dir))
    monkeypatch.setattr(os, "replace", refuse(error_number))
    with pytest.raises(RunWriteFailed) as raised:
        run(cfg, run_dir)
    monkeypatch.undo()
    message = str(raised.value)
    assert f"cannot write {run_dir / 'manifest.json'}: {words}" in message
    # status.json could not be rewritten either: the message says so rather than claiming it was marked
    assert f"{run_dir / 'status.json'} could not be updated either" in message
    assert json.loads((run_dir / "status.json").read_text())["state"] == "running"
    assert not leftovers(run_dir)


def test_a_disk_that_still_takes_the_status_marks_the_run_failed(tiny_beer_dir, tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    cfg = compose_config(tiny_overrides(tiny_beer_dir))
    monkeypatch.setattr(os, "replace", refuse(errno.ENOSPC, allowed=lambda path: path.endswith("status.json")))
    with pytest.raises(RunWriteFailed, match="marked failed"):
        run(cfg, run_dir)
    monkeypatch.undo()
    status = json.loads((run_dir / "status.json").read_text())
    assert status["state"] == "failed" and "No space left on device" in status["error"]
    assert not leftovers(run_dir)


def test_a_claim_that_cannot_be_written_leaves_no_status(tiny_beer_dir, tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    cfg = compose_config(tiny_overrides(tiny_beer_dir))
    real = os.fsync

    def fsync(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(RunWriteFailed) as raised:
        run(cfg, run_dir)
    monkeypatch.setattr(os, "fsync", real)
    assert f"cannot write {run_dir / 'status.json'}: No space left on device" in str(raised.value)
    assert str(raised.value).endswith("the run did not start")
    assert not (run_dir / "status.json").exists()  # a half-written claim would block the directory
    run(compose_config(tiny_overrides(tiny_beer_dir, "trainer.save_checkpoints=false")), run_dir)  # still usable
    assert read_state(run_dir) == "finished"


def test_a_disk_that_fills_just_before_the_run_records_its_end(tiny_beer_dir, tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    cfg = compose_config(tiny_overrides(tiny_beer_dir, "trainer.save_checkpoints=false"))
    monkeypatch.setattr(os, "replace", refuse(errno.ENOSPC, allowed=lambda path: not path.endswith("status.json")))
    with pytest.raises(RunWriteFailed, match=r"status.json: cannot record the run as finished .* results.json is "
                                             r"complete"):
        run(cfg, run_dir)
    monkeypatch.undo()
    assert set(json.loads((run_dir / "results.json").read_text())["seeds"]) == {"0"} and not leftovers(run_dir)
