"""Reading a checkpoint as data only.

A checkpoint is an untrusted file: a pickle may name any function for the
unpickler to call, so loading a crafted ``last.ckpt`` with
``torch.load(weights_only=False)`` runs whatever it names. Every checkpoint
pyhighlights reads (resume, evaluation, explanations, ``pyhighlights.load``,
Lightning's own loads through :class:`pyhighlights.training.checkpoint_io.SafeCheckpointIO`)
goes through :func:`read_checkpoint`, which uses PyTorch's restricted
unpickler (``weights_only=True``: tensors, containers, numbers, strings) with
only the types in :data:`ALLOWED` added. What Lightning 2.6 and our callbacks
store (weights, optimiser and scheduler states, loop and callback states,
random states, the model description) is all of those plain types, so the
list is empty; a type added to a checkpoint must be added here on purpose.

A file that names anything else is refused as unsafe; a file that is not a
whole checkpoint (empty, truncated, random bytes, not a dictionary) is refused
as damaged. Both errors name the file and fit on one line.
"""
from __future__ import annotations

import pickle
import re
import warnings
import zipfile
from pathlib import Path
from typing import Any

import torch

#: Project types a checkpoint may hold besides PyTorch's plain ones (none today).
ALLOWED: tuple[type, ...] = ()


class CheckpointRefused(ValueError):
    """A file read as a checkpoint that is not one pyhighlights may load."""


class UnsafeCheckpoint(CheckpointRefused):
    """The file asks the unpickler to call a function or build an object other than data."""


class DamagedCheckpoint(CheckpointRefused):
    """The file is not a whole checkpoint: empty, cut short, overwritten, or another kind of file."""


_GLOBAL = re.compile(r"GLOBAL ([\w.]+)")


def read_checkpoint(path: Path | str, mmap: bool = False, map_location: Any = "cpu") -> dict[str, Any]:
    """The dictionary a checkpoint file holds, loaded as data only; refuses unsafe and damaged files.

    ``mmap`` maps the tensors' storage instead of reading it (cheap when only a few entries are needed).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: {'a directory, not a checkpoint file' if path.is_dir() else 'no such checkpoint file'}")
    if path.stat().st_size == 0:
        raise DamagedCheckpoint(f"{path}: damaged or not a checkpoint (the file is empty)")
    # torch.save writes a zip archive; mmap refuses anything else with a message about save options.
    mmap = mmap and zipfile.is_zipfile(path)
    try:
        with torch.serialization.safe_globals(list(ALLOWED)), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. about the pickle protocol of a file that is refused anyway
            checkpoint = torch.load(path, map_location=map_location, weights_only=True, mmap=mmap)
    except PermissionError:
        raise  # says which file and why; not damage
    except pickle.UnpicklingError as error:
        named = _GLOBAL.search(str(error))
        if named:
            raise UnsafeCheckpoint(f"{path}: refused, not loaded: the file asks to call or build {named.group(1)}, "
                                   "and a checkpoint holds only tensors and plain values (was it crafted, or "
                                   "written by other code?)") from None
        raise DamagedCheckpoint(f"{path}: damaged or not a checkpoint (not a file torch.save wrote: "
                                f"{_first_line(error)})") from None
    except (RuntimeError, EOFError, OSError, ValueError, zipfile.BadZipFile) as error:
        raise DamagedCheckpoint(f"{path}: damaged or not a checkpoint (truncated or overwritten: "
                                f"{_first_line(error)})") from None
    if not isinstance(checkpoint, dict):
        raise DamagedCheckpoint(f"{path}: not a checkpoint (it holds a {type(checkpoint).__name__}, "
                                "expected a dictionary of weights and states)")
    return checkpoint


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    if "Weights only load failed" in text:
        found = re.search(r"WeightsUnpickler error: \s*(.+?)\n", text)
        return found.group(1).strip() if found else "not a pickle of plain values"
    return text.splitlines()[0].split(". ")[0][:160]
