"""Run ``scripts/*.py`` as separate processes that share one start-up.

Importing torch, Lightning and the models costs seconds per process, and the command-line tests start
dozens of runs. A helper process imports them once; each run is then a fork of it that executes the
script file as ``__main__`` with its own arguments, environment, working directory and output files,
and ends as a process does (exit status, or the signal that killed it). What a run does is therefore
what ``python scripts/<name> ...`` does; only the interpreter's start-up and those imports are shared.
"""
from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The helper: preload, then for each request line fork a child that runs the script; reply with the
# child's pid, then its exit status. Protocol messages go to a private copy of the original stdout, so
# nothing a run prints can mix into them.
HELPER = r"""
import json, os, runpy, sys
replies = os.fdopen(os.dup(1), "w")
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
import pyhighlights.cli.train, pyhighlights.training.run, pyhighlights.registry  # the start-up every run shares
pyhighlights.registry.load_registrations()  # imports the component modules, as every run does first
import pyhighlights.config.hydra_schema  # the parts' schemas in Hydra's ConfigStore, as every run's first compose
pyhighlights.config.hydra_schema.register_schemas()  # stores them (a run re-stores them if its parts differ)
import gc
# What was loaded above lives as long as the helper: out of the collector's reach, a run's full collections
# skip it (each otherwise walked the whole inherited heap, ~0.6 s of CPU per run, copying its pages).
gc.freeze()
for line in sys.stdin:
    request = json.loads(line)
    sys.stdout.flush(), sys.stderr.flush(), replies.flush()
    pid = os.fork()
    if pid == 0:
        replies.close()
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, request["stdout"], os.O_WRONLY),
                                (2, request["stderr"], os.O_WRONLY)):
            os.dup2(os.open(path, flags), fd)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = [request["script"], *request["args"]]
        exec(request["prelude"])
        runpy.run_path(request["script"], run_name="__main__")
        sys.exit(0)
    print(pid, file=replies, flush=True)
    _, status, usage = os.wait4(pid, 0)
    print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, file=replies, flush=True)
"""


DRAW_PLOTS = True
_NO_PLOTS = "import pyhighlights.training.run as _run; _run.plot_run_safely = lambda *args, **kwargs: []"


class ForkedScripts:
    def __init__(self):
        self.log = tempfile.NamedTemporaryFile("w+", prefix="forked_scripts_", suffix=".log")
        self.helper = subprocess.Popen([sys.executable, "-c", HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=self.log, text=True, cwd=ROOT,
                                       env={**os.environ, "OMP_NUM_THREADS": "1"})

    def _reply(self, timeout: float | None) -> str:
        ready, _, _ = select.select([self.helper.stdout], [], [], timeout)
        line = self.helper.stdout.readline() if ready else ""
        if not line and self.helper.poll() is not None:
            self.log.seek(0)
            raise RuntimeError(f"the script helper stopped (exit {self.helper.returncode}):\n{self.log.read()[-3000:]}")
        return line

    def run(self, script: str, args: list[str], env: dict, cwd: Path, timeout: float,
            prelude: str = "") -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory() as tmp:
            out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
            out.touch(), err.touch()
            if not DRAW_PLOTS:  # see tests/conftest.py: only the tests marked ``plots`` draw them
                prelude = f"{_NO_PLOTS}\n{prelude}"
            request = dict(script=str(script_path(script)), args=list(args), env=env, cwd=str(cwd),
                           stdout=str(out), stderr=str(err), prelude=prelude)
            self.helper.stdin.write(json.dumps(request) + "\n")
            self.helper.stdin.flush()
            pid = int(self._reply(timeout))  # the first request also waits for the helper's imports
            status = self._reply(timeout)
            if not status:
                os.kill(pid, signal.SIGKILL)
                self._reply(30)
                raise subprocess.TimeoutExpired([script, *args], timeout, out.read_text(), err.read_text())
            code, cpu = status.split()
            _record(script, args, float(cpu))
            return subprocess.CompletedProcess([script, *args], int(code), out.read_text(), err.read_text())

    def close(self) -> None:
        self.helper.stdin.close()
        self.helper.wait(30)
        self.log.close()


def script_path(script: str) -> Path:
    """``train.py`` is ``scripts/train.py``; a name with a folder (``benchmarks/gpu.py``) is relative to the repository."""
    return ROOT / script if "/" in script else ROOT / "scripts" / script


_helper: ForkedScripts | None = None

# PYHIGHLIGHTS_FORK_LOG=FILE: each run's CPU seconds (user + system), script and arguments appended to FILE, one
# tab-separated line per run: where the command-line tests' CPU goes.
_LOG = os.environ.get("PYHIGHLIGHTS_FORK_LOG")


def _record(script: str, args: list[str], cpu: float) -> None:
    if _LOG:
        with open(_LOG, "a") as log:
            print(f"{cpu:.2f}\t{os.environ.get('PYTEST_CURRENT_TEST', '').split(' ')[0]}\t{script}\t{' '.join(args)}",
                  file=log)


def run_script(script: str, *args: str, env: dict | None = None, cwd: Path = ROOT, timeout: float = 600,
               prelude: str = "") -> subprocess.CompletedProcess:
    """``python scripts/<script> *args`` (or ``python <script>`` for a path such as ``benchmarks/gpu.py``) with output
    captured as text; ``prelude`` is Python run first in that
    process (to patch something for the test); ``env`` defaults to this environment with one OpenMP thread."""
    global _helper
    if _helper is None or _helper.helper.poll() is not None:
        _helper = ForkedScripts()
        atexit.register(_helper.close)
    return _helper.run(script, args, env if env is not None else {**os.environ, "OMP_NUM_THREADS": "1"}, cwd,
                       timeout, prelude)
