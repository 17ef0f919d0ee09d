"""How Lightning reads and writes every checkpoint of a run.

Given to the Trainer as a plugin, so the checkpoints Lightning handles itself
(``best-*.ckpt``, ``last.ckpt``, SLURM's ``hpc_ckpt_*.ckpt``, the one
``fit(ckpt_path=...)`` resumes from and the one ``test(ckpt_path=...)`` tests)
are read as data only (:func:`pyhighlights.checkpoint_file.read_checkpoint`,
whatever ``weights_only`` Lightning passes) and written whole or not at all
(:func:`pyhighlights.atomic.replace_atomically`).
"""
from __future__ import annotations

from typing import Any

import torch
from lightning.fabric.plugins.io.torch_io import TorchCheckpointIO

from pyhighlights.checkpoint_file import read_checkpoint
from pyhighlights.atomic import replace_atomically


class SafeCheckpointIO(TorchCheckpointIO):
    def save_checkpoint(self, checkpoint: dict[str, Any], path, storage_options: Any | None = None) -> None:
        if storage_options is not None:
            raise TypeError("storage_options: not supported by pyhighlights' checkpoint writer")
        replace_atomically(path, lambda handle: torch.save(checkpoint, handle))

    def load_checkpoint(self, path, map_location: Any = "cpu", weights_only: bool | None = None) -> dict[str, Any]:
        return read_checkpoint(path, map_location=map_location)
