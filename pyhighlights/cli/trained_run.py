"""Hydra apps that read a trained run (``evaluate.py``, ``explain.py``): the run's path comes first.

The first argument, the run directory or one of its checkpoints, is taken
before Hydra parses the rest, so every path train.py writes works as it is
(in ``best-epoch=1.ckpt`` Hydra's grammar would read ``=`` as key=value).
Everything after it is Hydra's override grammar, as for train.py. The path
and the run's dataset spec are stored in Hydra's ConfigStore as the config
``trained_run`` (keys ``run`` and ``dataset``) that the apps' configs start
from, so ``dataset.data_dir=...`` changes one field of the run's own corpus.
"""
from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyhighlights.cli.common import fail, prepare


def split_path(argv: list[str]) -> tuple[str | None, list[str]]:
    """``(run path or None, Hydra's arguments)``: the first argument is the path unless it reads as an override."""
    if argv and not argv[0].startswith("-") and _is_path(argv[0]):
        return argv[0], list(argv[1:])
    return None, list(argv)


def _is_path(argument: str) -> bool:
    key = argument.split("=", 1)[0]
    return "=" not in argument or "/" in key or argument.endswith(".ckpt") or Path(argument).exists()


def store_trained_run(path: str | None) -> None:
    from hydra.core.config_store import ConfigStore

    from pyhighlights.evaluation.restore import RestoredRun

    node: dict[str, Any] = {"run": None, "dataset": {}}
    if path is not None:
        node = {"run": str(path), "dataset": dict(RestoredRun(path).trained_dataset)}
    ConfigStore.instance().store(name="trained_run", node=node)


def dataset_overrides(cfg) -> dict[str, Any]:
    """The dataset fields the command line changed from the run's own spec (``{}``: the run's corpus)."""
    from omegaconf import OmegaConf

    from pyhighlights.evaluation.restore import RestoredRun

    given = OmegaConf.to_container(cfg.dataset, resolve=True) or {}
    trained = RestoredRun(cfg.run).trained_dataset
    return {key: value for key, value in given.items() if key not in trained or trained[key] != value}


def require_run(cfg) -> str:
    if cfg.run is None:
        raise ValueError("expected the run directory or checkpoint as the first argument (see --help)")
    return str(cfg.run)


def configure_logging() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    for name in ("pyhighlights.evaluation", "pyhighlights.explain"):
        logging.getLogger(name).setLevel(logging.INFO)


#: The command line as typed (Hydra is given it without the path).
_command: list[str] = []


def command() -> list[str]:
    return list(_command)


def run_app(app: Callable[[], Any], argv: list[str] | None, usage: Callable[[], str],
            store: Callable[[], None] = lambda: None) -> int:
    """Run the ``hydra.main`` function ``app`` on ``argv`` (default: the command line); 0 when it succeeds.

    ``--help`` prints ``usage()``; ``--force`` is ``overwrite=true``;
    ``store`` adds the app's own ConfigStore entries.
    """
    from pyhighlights.evaluation.restore import RunNotFound

    argv = sys.argv[1:] if argv is None else list(argv)
    if any(a in ("-h", "--help") for a in argv):
        print(usage())
        return 0
    prepare()
    configure_logging()
    path, rest = split_path(argv)
    rest = ["overwrite=true" if a == "--force" else a for a in rest]
    try:
        store_trained_run(path)
    except (RunNotFound, ValueError) as error:
        fail(error)
    store()
    program = sys.argv[0]
    _command[:] = [program, *argv]
    sys.argv = [program, *rest]
    try:
        app()
    finally:
        sys.argv = [program, *argv]
    return 0


def print_summary(summary: dict, names=("accuracy", "highlight_f1", "auprc", "comprehensiveness", "sufficiency",
                                         "sparsity", "infidelity", "convergence_delta")) -> None:
    for key, stats in summary.items():
        if key.split("/")[-1] in names and stats.get("mean") is not None:
            spread = f" ± {stats['std']:.4f} (n={stats['n']})" if stats["n"] > 1 else ""
            print(f"{key} = {stats['mean']:.4f}{spread}")
