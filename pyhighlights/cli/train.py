"""The Hydra entry point behind ``scripts/train.py``."""
from __future__ import annotations

import copy
import gc
import logging
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf, read_write

from pyhighlights.cli.common import CONFIG_DIR, fail, prepare
from pyhighlights.cli.unclaimed import discarded_unless_claimed, note_existing_run_dirs
from pyhighlights.config.errors import ConfigError

log = logging.getLogger("pyhighlights")

SHOWN = ("test/accuracy", "test/highlight_f1", "test/sparsity")


class MeanStd(float):
    """The mean over seeds (a float, as Hydra sweepers expect) that also carries the std and count."""

    def __new__(cls, mean: float, std: float, n: int):
        value = super().__new__(cls, mean)
        value.std, value.n = std, n
        return value

    def __repr__(self) -> str:
        return f"{float(self):.4f} ± {self.std:.4f} (n={self.n})"

    def __reduce__(self):
        # Launchers that run jobs in other processes (submitit) pickle the returned value.
        return MeanStd, (float(self), self.std, self.n)


def summary_lines(summary: dict) -> list[str]:
    """``name = mean ± std (n=k)`` for the metrics shown on the console."""
    return [f"{name} = {summary[name]['mean']:.4f} ± {summary[name]['std']:.4f} (n={summary[name]['n']})"
            for name in SHOWN if name in summary and summary[name]["mean"] is not None]


def objective(summary: dict, name: str = "test/highlight_f1") -> MeanStd | None:
    stats = summary.get(name)
    return None if not stats or stats["mean"] is None else MeanStd(stats["mean"], stats["std"], stats["n"])


def hydra_records(cfg: DictConfig) -> dict[str, str]:
    """What Hydra writes to ``.hydra/`` (disabled in pyhighlights/configs/train.yaml); we write it once the run owns its directory."""
    hydra_cfg = copy.deepcopy(HydraConfig.instance().cfg)
    with read_write(hydra_cfg.hydra):
        hydra_cfg.hydra.output_subdir = ".hydra"
    return {".hydra/config.yaml": OmegaConf.to_yaml(cfg), ".hydra/hydra.yaml": OmegaConf.to_yaml(hydra_cfg),
            ".hydra/overrides.yaml": OmegaConf.to_yaml(hydra_cfg.hydra.overrides.task)}


@hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="train")
def _train(cfg: DictConfig) -> float | None:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    with discarded_unless_claimed(run_dir, Path(HydraConfig.get().runtime.cwd)):
        return _train_into(cfg, run_dir)


def _train_into(cfg: DictConfig, run_dir: Path) -> float | None:
    with imports_without_collection():  # torch, Lightning and the models
        from pyhighlights.checkpoint_file import CheckpointRefused
        from pyhighlights.data.errors import CorpusFormatError
        from pyhighlights.training.guards import NonFiniteTraining
        from pyhighlights.training.resume import RunFinished, is_requeued_run, recorded_config
        from pyhighlights.training.rundir import RunDirectoryExists, RunWriteFailed
        from pyhighlights.training.run import run

    try:
        if cfg.get("resume") is not None:
            run_dir = Path(cfg.resume)
            payload = run(recorded_config(run_dir, list(HydraConfig.get().overrides.task)), run_dir,
                          command=sys.argv, resume=True)
        else:
            payload = run(cfg, run_dir, command=sys.argv, records=hydra_records(cfg),
                          resume=is_requeued_run(run_dir))
    except RunDirectoryExists as error:
        fail(f"{error}; to continue an interrupted run there: python scripts/train.py resume={run_dir}")
    except (ConfigError, CorpusFormatError, CheckpointRefused, NonFiniteTraining, RunFinished, RunWriteFailed,
            FileNotFoundError, FileExistsError, NotADirectoryError) as error:
        fail(error)
    except OSError as error:  # outside the run's own writes: say which file, without a traceback
        fail(f"{error.filename or run_dir}: {error.strerror or error}")
    for line in summary_lines(payload["summary"]):
        print(line)
    print(f"run directory: {run_dir}")
    return objective(payload["summary"])


@contextmanager
def imports_without_collection():
    """Import without the garbage collector's full passes, then leave what was imported out of its reach.

    Importing torch and Lightning allocates millions of long-lived objects, and every full collection
    walks all of them: eight passes, about 1 s of CPU, before the first training step. Module objects
    are not garbage; freezing them (``gc.freeze``) also keeps the run's later full passes short.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _refuse_file_run_dir(argv: list[str]) -> None:
    """Hydra creates the run directory before our code runs; a path that is a file would end in its traceback."""
    for argument in argv:
        if argument.startswith("hydra.run.dir="):
            path = Path(argument.split("=", 1)[1]).expanduser()
            for part in (path, *path.parents):
                if part.exists() and not part.is_dir():
                    fail(NotADirectoryError(f"hydra.run.dir: {part} is a file; expected a directory for the run"))


def _print_help(overrides: list[str]) -> None:
    """``--help``: the choices and the composed config (printed here: Hydra's own help lists every config
    group twice, over a minute with the generated part groups, before printing a template)."""
    from hydra.errors import HydraException

    from pyhighlights.config.compose import compose_config
    from pyhighlights.config.hydra_schema import help_text

    try:
        cfg = compose_config(overrides)
    except HydraException as error:
        fail(error)
    chosen = {section: str(cfg[section].name) for section in ("dataset", "model", "backbone", "embeddings")
              if section in cfg and "name" in cfg[section]}
    print(help_text(OmegaConf.to_yaml(cfg), chosen))


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> None:
    from pyhighlights.config.hydra_schema import group_overrides
    from pyhighlights.config.override_keys import check_override_keys
    from pyhighlights.config.value_checks import check_printed_config

    prepare()
    _refuse_file_run_dir(sys.argv[1:])
    try:
        sys.argv[1:] = group_overrides(sys.argv[1:])
        if {"--help", "-h"} & set(sys.argv[1:]):
            _print_help([a for a in sys.argv[1:] if a not in ("--help", "-h")])
            return
        check_override_keys(sys.argv[1:])  # before Hydra creates a run directory
        check_printed_config(sys.argv[1:])  # --cfg job prints only what training accepts
    except ConfigError as error:
        fail(error)
    note_existing_run_dirs(sys.argv[1:])
    signal.signal(signal.SIGTERM, _interrupt)  # a killed run records itself as interrupted
    _train()
