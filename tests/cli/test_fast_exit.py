"""A finished command's exit: exit handlers run, output is flushed, status 0; the ordinary exit otherwise."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import atexit, sys, threading, time
from pyhighlights.cli.common import exit_finished
mode, marker = sys.argv[1], sys.argv[2]
atexit.register(lambda: open(marker, "a").write("handler\\n"))
sys.stdout.write("buffered line")  # no newline, no flush: must still come out
if mode == "thread":
    threading.Thread(target=lambda: (time.sleep(0.5), open(marker, "a").write("thread\\n"))).start()
if mode == "profiled":
    sys.setprofile(lambda *args: None)
exit_finished()
sys.setprofile(None)
open(marker, "a").write("ordinary exit\\n")
"""


def run(mode: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    marker = tmp_path / "marker.txt"
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode, str(marker)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    return done, marker.read_text().splitlines() if marker.exists() else []


def test_exits_at_once_after_the_exit_handlers(tmp_path):
    done, lines = run("plain", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "buffered line"
    assert lines == ["handler"]  # the code after exit_finished never ran


def test_a_running_thread_keeps_the_ordinary_exit(tmp_path):
    done, lines = run("thread", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "buffered line"
    assert lines == ["ordinary exit", "thread", "handler"]


def test_a_profiler_keeps_the_ordinary_exit(tmp_path):
    done, lines = run("profiled", tmp_path)
    assert done.returncode == 0, done.stderr
    assert lines == ["ordinary exit", "handler"]
