"""The benchmark's phase markers: one line per event when PYHIGHLIGHTS_PHASE_LOG names a file, nothing otherwise."""
from __future__ import annotations

from pyhighlights.training import phases


def test_marks_append_time_and_cpu(tmp_path, monkeypatch):
    log = tmp_path / "phases.txt"
    monkeypatch.setenv(phases.VARIABLE, str(log))
    phases.mark("first")
    phases.mark("second")
    lines = [line.split() for line in log.read_text().splitlines()]
    assert [line[0] for line in lines] == ["first", "second"]
    assert float(lines[0][1]) <= float(lines[1][1]) and float(lines[0][2]) <= float(lines[1][2])


def test_unset_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv(phases.VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)
    phases.mark("first")
    assert list(tmp_path.iterdir()) == []
