"""Files written whole or not at all: a synced temporary file renamed into place.

A reader (or a resumed run) sees the previous version or the new one, never
half of one: the bytes go to a temporary file in the same directory, are
fsynced, and the file is renamed over the old one (``os.replace`` is atomic
within one file system); the directory is fsynced so the rename survives a
crash. When writing fails (a full or read-only disk, a signal) the temporary
file is removed and the previous version is left as it was.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def file_mode() -> int:
    """The permissions a plain ``open`` would give under the current umask (mkstemp creates 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def fsync_directory(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # not every platform opens directories
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace_atomically(path: Path | str, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write(handle)`` on a temporary file beside ``path``, then rename it to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fchmod(handle.fileno(), file_mode())
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError) and error.filename is None and error.errno is not None:
            raise OSError(error.errno, error.strerror, str(path)) from error  # say which file
        raise
    fsync_directory(path.parent)


def write_bytes_atomic(path: Path | str, data: bytes) -> None:
    replace_atomically(path, lambda handle: handle.write(data))
