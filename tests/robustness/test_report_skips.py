"""scripts/report.py names the runs it cannot use instead of leaving them out in silence."""
from __future__ import annotations

import json
from pathlib import Path

from pyhighlights.cli.report import main
from pyhighlights.reporting.reader import read_results


def fake_run(root: Path, state: str | None, f1: float | None = 0.5) -> Path:
    root.mkdir(parents=True)
    (root / "manifest.json").write_text(json.dumps({"parameters": {"model": {"name": "rnp"},
                                                                   "dataset": {"name": "beer", "aspect": 0}}}))
    if f1 is not None:
        (root / "results.json").write_text(json.dumps({"seeds": {"0": {"test/highlight_f1": f1}}}))
    if state is not None:
        (root / "status.json").write_text(json.dumps({"state": state}))
    return root


def test_unfinished_and_unreadable_runs_are_skipped_by_name(tmp_path, capsys):
    fake_run(tmp_path / "done", "finished", 0.4)
    fake_run(tmp_path / "old", None, 0.6)  # written before run states: read
    fake_run(tmp_path / "killed", "running", None)  # died before its first seed: no results.json
    fake_run(tmp_path / "stopped", "interrupted", 0.9)  # partial results are not mixed in
    broken = fake_run(tmp_path / "broken", "finished")
    (broken / "results.json").write_text("{not json")
    skipped: list = []
    sets = read_results([tmp_path], skipped=skipped)
    assert sorted(s.source.parent.name for s in sets) == ["done", "old"]
    reasons = {path.name: reason for path, reason in skipped}
    assert set(reasons) == {"killed", "stopped", "broken"}
    assert "state running" in reasons["killed"] and "state interrupted" in reasons["stopped"]
    assert "cannot read" in reasons["broken"]

    assert main([str(tmp_path), "--metrics", "highlight_f1"]) == 0
    out, err = capsys.readouterr()
    # both runs report seed 0 of one configuration: two rows, never one row of n = 2
    assert f"| rnp ({tmp_path / 'done'}) | 1 | 0.400 ± 0.000 |" in out
    assert f"| rnp ({tmp_path / 'old'}) | 1 | 0.600 ± 0.000 |" in out
    assert f"warning: skipped {tmp_path / 'killed'} (state running in status.json, not finished)" in err
    assert main([str(tmp_path / "killed")]) == 2
    assert "no readable finished run" in capsys.readouterr().err
