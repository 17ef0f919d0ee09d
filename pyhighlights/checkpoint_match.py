"""Whether a checkpoint belongs to the run it is read for.

Every checkpoint carries the validated configuration of the run that wrote it
(:mod:`pyhighlights.training.description`); a run directory records its own in
``manifest.json``. A checkpoint copied in from another run (another model, or
the same model configured differently) would otherwise be resumed, evaluated
or explained under this run's name; it is refused, naming both.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pyhighlights.checkpoint_file import CheckpointRefused, read_checkpoint
from pyhighlights.inference import read_description

#: Settings a resumed run may change (training longer), so its checkpoints may differ in them.
MAY_DIFFER = ("trainer.max_epochs",)
_SHOWN = 4


class CheckpointMismatch(CheckpointRefused):
    """The checkpoint was written by a run of another model or configuration."""


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, inner in value.items():
            flat.update(_flat(inner, f"{prefix}{key}."))
        return flat
    return {prefix[:-1]: value}


def differences(run_specs: dict[str, Any], checkpoint_specs: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(field, the run's value, the checkpoint's value)`` for every field both record with different values.

    A field only one side records is a parameter added to pyhighlights between the two writes (a run resumed
    by a newer version records it in its manifest); another model differs in ``model.name`` anyway.
    """
    # Both through JSON, as the manifest was: tuples read as lists, keys as strings.
    ours = _flat(json.loads(json.dumps(run_specs, default=str)))
    theirs = _flat(json.loads(json.dumps(checkpoint_specs, default=str)))
    return [(key, ours[key], theirs[key]) for key in sorted(set(ours) & set(theirs))
            if key not in MAY_DIFFER and ours[key] != theirs[key]]


def check_belongs(described: dict[str, Any], path: Path | str, run_specs: dict[str, Any], run_dir: Path | str) -> None:
    """Refuse the checkpoint at ``path``, whose description holds the configuration ``described``, unless the run
    in ``run_dir`` with ``run_specs`` wrote it."""
    diffs = differences(run_specs, described)
    if not diffs:
        return
    ours, theirs = run_specs.get("model", {}).get("name"), described.get("model", {}).get("name")
    shown = "; ".join(f"{key}: the run's {_text(a)}, the checkpoint's {_text(b)}" for key, a, b in diffs[:_SHOWN])
    more = f"; and {len(diffs) - _SHOWN} more" if len(diffs) > _SHOWN else ""
    what = f"a {theirs} checkpoint in a {ours} run" if ours != theirs else f"a {theirs} checkpoint of another configuration"
    raise CheckpointMismatch(f"{path}: {what} ({run_dir}): {shown}{more}; refused (it was not written by this run)")


def _text(value: Any) -> str:
    return json.dumps(value)


def check_run_checkpoints(out_dirs: list[Path], run_specs: dict[str, Any], run_dir: Path) -> None:
    """Read every checkpoint a resumed run may load (``checkpoints/*.ckpt``, SLURM's ``hpc_ckpt_*.ckpt``) in
    ``out_dirs`` before the run starts again: unsafe, damaged and foreign ones are refused up front."""
    for out_dir in out_dirs:
        for path in [*sorted((out_dir / "checkpoints").glob("*.ckpt")), *sorted(out_dir.glob("hpc_ckpt_*.ckpt"))]:
            check_belongs(read_description(read_checkpoint(path, mmap=True), path)["specs"], path, run_specs, run_dir)
