"""The Hydra entry point behind ``scripts/train.py``."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from pyhighlights.cli.common import CONFIG_DIR, fail, prepare
from pyhighlights.config.resolve import ConfigError

log = logging.getLogger("pyhighlights")


@hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="train")
def _train(cfg: DictConfig) -> float | None:
    from pyhighlights.data.errors import CorpusFormatError
    from pyhighlights.training.rundir import RunDirectoryExists
    from pyhighlights.training.run import run

    from pyhighlights.training.resume import RunFinished, is_requeued_run, recorded_config

    run_dir = Path(HydraConfig.get().runtime.output_dir)
    try:
        if cfg.get("resume") is not None:
            run_dir = Path(cfg.resume)
            payload = run(recorded_config(run_dir, list(HydraConfig.get().overrides.task)), run_dir,
                          command=sys.argv, resume=True)
        else:
            payload = run(cfg, run_dir, command=sys.argv, resume=is_requeued_run(run_dir))
    except RunDirectoryExists as error:
        fail(f"{error}; to continue an interrupted run there: python scripts/train.py resume={run_dir}")
    except (ConfigError, CorpusFormatError, RunFinished, FileNotFoundError) as error:
        fail(error)
    summary = {k: v for seed in payload["seeds"].values() for k, v in seed.items()}
    for name in ("test/accuracy", "test/highlight_f1", "test/sparsity"):
        if name in summary:
            print(f"{name} = {summary[name]:.4f}")
    print(f"run directory: {run_dir}")
    return summary.get("test/highlight_f1")


def main() -> None:
    prepare()
    _train()
