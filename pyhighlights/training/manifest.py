"""manifest.json: everything needed to repeat a run."""
from __future__ import annotations

import hashlib
import platform
import subprocess
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from pyhighlights.training.rundir import write_json_atomic

PACKAGES = ("pyhighlights", "torch", "lightning", "torchmetrics", "hydra-core", "cinnamon-core", "numpy",
            "transformers", "captum")


def sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def package_versions() -> dict[str, str | None]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_commit() -> str | None:
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True,
                               timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def write_manifest(path: Path, *, specs: dict[str, Any], seeds: list[int], command: list[str] | None,
                   data_files: list[Path], **extra: Any) -> None:
    write_json_atomic(path, {
        "command": command if command is not None else sys.argv,
        "created": datetime.now(timezone.utc).isoformat(),
        "parameters": specs,
        "seeds": seeds,
        "packages": package_versions(),
        "python": platform.python_version(),
        "git_commit": git_commit(),
        "data_files": {str(p): sha256(p) for p in data_files},
        **extra,
    })
