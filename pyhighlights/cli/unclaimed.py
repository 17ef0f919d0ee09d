"""A refused run leaves nothing behind.

Hydra creates the run directory (``outputs/<date>/<time>/``) and its
``train.log`` before our code runs. A run takes the directory only when it
claims it (``status.json``, see :mod:`pyhighlights.training.rundir`), after
its configuration and corpus were checked; one that stops before that, for a
typo or a bad value, removes what Hydra created for it: the log, the
directory, and the parents left empty below the directory it was started
from. A directory that existed before the command started, or that holds
anything else, is left as it is.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

HYDRA_LOG = "train.log"

_EXISTING: set[Path] = set()


def note_existing_run_dirs(arguments: Sequence[str]) -> None:
    """Remember which ``hydra.run.dir`` given on the command line existed before Hydra could create it."""
    for argument in arguments:
        if argument.startswith("hydra.run.dir="):
            path = Path(argument.split("=", 1)[1]).expanduser().absolute()
            if path.exists():
                _EXISTING.add(path)


def _only_fresh_log(path: Path) -> bool:
    """Whether ``path`` holds nothing but an empty Hydra log (what Hydra writes before our code runs)."""
    try:
        contents = list(path.iterdir())
    except OSError:
        return False
    return all(item.name == HYDRA_LOG and item.is_file() and item.stat().st_size == 0 for item in contents)


def _close_logs_under(path: Path) -> None:
    for logger in [logging.getLogger(), *(logging.getLogger(n) for n in logging.root.manager.loggerDict)]:
        for handler in list(getattr(logger, "handlers", [])):
            if isinstance(handler, logging.FileHandler) and Path(handler.baseFilename).is_relative_to(path):
                logger.removeHandler(handler)
                handler.close()


def discard(run_dir: Path, launched_from: Path) -> None:
    """Remove ``run_dir`` (its Hydra log, nothing else) and its parents left empty below ``launched_from``."""
    run_dir = run_dir.absolute()
    if not run_dir.is_dir() or any(item.name != HYDRA_LOG for item in run_dir.iterdir()):
        return
    _close_logs_under(run_dir)
    (run_dir / HYDRA_LOG).unlink(missing_ok=True)
    if run_dir in _EXISTING:
        return
    launched_from = launched_from.absolute()
    below = [p for p in run_dir.parents if p != launched_from and p.is_relative_to(launched_from)]
    for path in (run_dir, *below):
        try:
            os.rmdir(path)  # only an empty directory
        except OSError:
            break


@contextmanager
def discarded_unless_claimed(run_dir: Path, launched_from: Path) -> Iterator[None]:
    """Around a run: if it stops before claiming ``run_dir``, remove what Hydra created there for it."""
    fresh = _only_fresh_log(run_dir)
    try:
        yield
    except BaseException:
        if fresh:
            discard(run_dir, launched_from)
        raise
