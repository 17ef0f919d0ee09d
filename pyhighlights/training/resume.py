"""Continuing a run in its own directory: ``resume=<run dir>`` and SLURM requeues.

A run is resumed with the configuration its manifest recorded; the only
change allowed is a larger ``trainer.max_epochs``. Each seed continues from
its latest checkpoint (see :mod:`pyhighlights.training.checkpoints`).

Under SLURM a requeued job (``SLURM_RESTART_COUNT`` >= 1) that finds, in its
run directory, the run its own job id started continues it instead of being
refused as a second run into a used directory.
"""
from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from pyhighlights.config.resolve import ConfigError

class RunFinished(FileExistsError):
    """resume= names a run that has finished."""


class RunStillRunning(FileExistsError):
    """resume= names a run whose process is alive."""


#: Overrides a resumed run accepts besides ``resume=`` itself.
CHANGEABLE = ("trainer.max_epochs",)


def slurm_job() -> str | None:
    """This job's id as ``scontrol requeue`` names it (``<array job>_<task>`` in an array), or None."""
    array_job = os.environ.get("SLURM_ARRAY_JOB_ID")
    if array_job is not None and "SLURM_ARRAY_TASK_ID" in os.environ:
        return f"{array_job}_{os.environ['SLURM_ARRAY_TASK_ID']}"
    return os.environ.get("SLURM_JOB_ID")


def read_manifest(run_dir: Path | str) -> dict[str, Any] | None:
    try:
        return json.loads((Path(run_dir) / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def is_requeued_run(run_dir: Path | str) -> bool:
    """This is a requeued SLURM job and ``run_dir`` holds the run it started before."""
    if int(os.environ.get("SLURM_RESTART_COUNT", "0") or 0) < 1 or slurm_job() is None:
        return False
    manifest = read_manifest(run_dir)
    return manifest is not None and manifest.get("slurm_job") == slurm_job()


def check_resumable(run_dir: Path | str, seeds: list[int]) -> None:
    """Refuse a finished run (its results are final) and one whose process still runs on this machine."""
    from pyhighlights.run_files import STATUS_FILE

    run_dir = Path(run_dir)
    try:
        status = json.loads((run_dir / STATUS_FILE).read_text())
    except (OSError, ValueError):
        status = {}
    done = set(json.loads((run_dir / "results.json").read_text()).get("seeds", {})) \
        if (run_dir / "results.json").is_file() else set()
    # A run that records its state is finished when it says so: one killed after its last results were
    # written still has its plots and final state to write. A run from before states were recorded is
    # finished when every seed has results.
    if status.get("state") == "finished" or (not status and {str(s) for s in seeds} <= done):
        raise RunFinished(f"{run_dir}: this run has finished; its results are never replaced — start a new run "
                          "to train more")
    pid, host = status.get("pid"), status.get("host")
    requeued = int(os.environ.get("SLURM_RESTART_COUNT", "0") or 0) >= 1
    if status.get("state") == "running" and not requeued and host == socket.gethostname() and _alive(pid):
        raise RunStillRunning(f"{run_dir}: the run is still going (process {pid} on {host}); stop it before "
                              "resuming it")


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recorded_config(run_dir: Path | str, overrides: list[str]) -> dict[str, Any]:
    """The run's recorded configuration (sections + seeds), with the allowed overrides applied."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    if manifest is None or "parameters" not in manifest:
        raise ConfigError(f"resume={run_dir}: no manifest.json of a run there; expected a run directory "
                          "written by scripts/train.py")
    config = {**json.loads(json.dumps(manifest["parameters"])), "seeds": list(manifest["seeds"])}
    for override in overrides:
        key, _, value = override.partition("=")
        if key.lstrip("+~") == "resume":
            continue
        if key not in CHANGEABLE:
            raise ConfigError(f"{override}: a resumed run keeps the configuration recorded in {run_dir}/manifest.json; "
                              f"only {', '.join(CHANGEABLE)} may be changed (to train longer)")
        recorded = config["trainer"]["max_epochs"]
        try:
            epochs = int(value)
        except ValueError:
            raise ConfigError(f"{override}: expected an integer number of epochs") from None
        if epochs < recorded:
            raise ConfigError(f"{override}: the run was started with trainer.max_epochs={recorded}; "
                              "a resumed run may only train longer")
        config["trainer"]["max_epochs"] = epochs
    return config


def note_resumed(run_dir: Path, parameters: dict[str, Any], command: list[str] | None) -> None:
    """Record in the manifest when the run was resumed, by which command, and its (possibly longer) epochs."""
    import sys
    from datetime import datetime, timezone

    from pyhighlights.training.rundir import write_json_atomic

    manifest = read_manifest(run_dir) or {}
    manifest["parameters"] = parameters
    manifest.setdefault("resumed", []).append({
        "at": datetime.now(timezone.utc).isoformat(), "command": command if command is not None else sys.argv,
        "slurm_job": slurm_job(), "max_epochs": parameters["trainer"]["max_epochs"]})
    write_json_atomic(Path(run_dir) / "manifest.json", manifest)
