"""A Hydra launcher's job: one cell of a benchmark grid (see :mod:`pyhighlights.benchmark.runner`)."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

from pyhighlights.cli.common import CONFIG_DIR, prepare


@hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="benchmark_cell")
def _cell(cfg: DictConfig) -> str:
    from pyhighlights.benchmark.runner import read_grid, run_cell

    prepare()
    logging.getLogger("pyhighlights").setLevel(logging.INFO)
    cells = read_grid(Path(cfg.grid))
    index = int(cfg.cell)
    if not 0 <= index < len(cells):
        raise ValueError(f"cell={index}: {cfg.grid} has cells 0..{len(cells) - 1}")
    cell, run_dir = cells[index]
    return run_cell(cell, run_dir, command=sys.argv)


def main() -> None:
    prepare()
    _cell()


if __name__ == "__main__":
    main()
