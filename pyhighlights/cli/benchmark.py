"""``scripts/benchmark.py`` / ``pyhighlights-benchmark``: a suite's grid of models × aspects × sparsity levels ×
seeds, trained (or resumed, or skipped when finished) and tabulated as the papers' table."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

USAGE = """usage: python scripts/benchmark.py [suite=NAME] [models=[fr,grat]] [seeds=[0,1]] [aspects=[aroma]]
                                  [out=DIR] [data_dir=DIR] [TRAINING OVERRIDES ...]
                                  [hydra/launcher=local|slurm] [hydra.launcher.KEY=VALUE ...]
                                  [--list] [--table-only]

Train every cell of a benchmark suite (pyhighlights/configs/suite/: synthetic, synthetic_correlated, beer,
beer_correlated, hotel): each model x aspect x sparsity level is one run directory <out>/<model>/<aspect>/<level>
holding all the seeds. A finished cell is not trained again and an interrupted one is resumed, so the same
command finishes an interrupted benchmark. Then <out>/table.{md,csv,tex,html} and <out>/table_sparsity_f1_<aspect>.png
are written (a partial table, with the missing cells marked, while cells are missing).

  suite=, models=, seeds=, aspects=, out=   the grid (pyhighlights/configs/benchmark.yaml); models default to the
                                            suite's list, null there: every registered rationalization model
  posthoc=[saliency,lime]                   the post-hoc rows: the full-input classifier of each aspect explained
                                            by these methods at each level's rate (posthoc=[]: none)
  data_dir=DIR                              short for dataset.data_dir=DIR
  other KEY=VALUE                           training overrides for every cell (as scripts/train.py takes them),
                                            applied after the suite's and the published experiment's
  hydra/launcher=local|slurm                run the unfinished cells as jobs of a submitit launcher (one job per
                                            cell; slurm: a job array, hydra.launcher.array_parallelism=32)
  --list                                    print the grid and each cell's training command; train nothing
  --table-only                              train nothing; write the table of the cells already there
"""

_BENCHMARK_KEYS = ("suite", "models", "seeds", "aspects", "posthoc", "out")


def split_arguments(argv: list[str]) -> tuple[list[str], list[str], str | None, list[str], set[str]]:
    """(benchmark overrides, cell overrides, launcher, launcher overrides, flags)."""
    benchmark, cells, launcher_overrides, flags = [], [], [], set()
    launcher = None
    for argument in argv:
        key, sep, value = argument.partition("=")
        if argument.startswith("--"):
            flags.add(argument)
        elif key in ("hydra/launcher", "+hydra/launcher"):
            launcher = value
        elif key.startswith("hydra.launcher."):
            launcher_overrides.append(argument)
        elif key in _BENCHMARK_KEYS or key.startswith("suite."):
            benchmark.append(argument)
        elif key == "data_dir" and sep:
            cells.append(f"dataset.data_dir={value}")
        else:
            cells.append(argument)
    return benchmark, cells, launcher, launcher_overrides, flags


def main(argv: list[str] | None = None) -> int:
    import os

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("lightning.pytorch").setLevel(logging.WARNING)
    args = list(sys.argv[1:] if argv is None else argv)
    benchmark, overrides, launcher, launcher_overrides, flags = split_arguments(args)
    unknown_flags = flags - {"--list", "--table-only", "--help", "-h"}
    if {"--help", "-h"} & (flags | set(args)):
        print(USAGE)
        return 0
    if unknown_flags:
        print(f"error: unknown option(s) {sorted(unknown_flags)}\n{USAGE}", file=sys.stderr)
        return 2
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from pyhighlights.benchmark.grid import build_grid, listing, suite_from_config
    from pyhighlights.benchmark.report import write_report
    from pyhighlights.benchmark.runner import plan, train_cells
    from pyhighlights.cli.common import prepare
    from pyhighlights.config.compose import compose_config
    from pyhighlights.config.errors import ConfigError
    from pyhighlights.training.guards import NonFiniteTraining

    prepare()
    try:
        cfg = compose_config(benchmark, config_name="benchmark")
        suite = suite_from_config(cfg.suite)
        cells = build_grid(suite, _list(cfg.models), _list(cfg.seeds), _list(cfg.aspects), overrides,
                           posthoc=_list(cfg.posthoc))
        out = Path(str(cfg.out)).expanduser()
        if "--list" in flags:
            sys.stdout.write(listing(cells, out))
            return 0
        if "--table-only" in flags:
            planned = plan(cells, out)
        else:
            planned = train_cells(cells, out, command=["python", "scripts/benchmark.py", *args],
                                  launcher=launcher, launcher_overrides=launcher_overrides, keep_going=True)
        table, written = write_report([(p.cell, p.run_dir) for p in planned], out, suite.name)
    except (ConfigError, FileExistsError, FileNotFoundError, NotADirectoryError, ValueError, HydraException,
            OmegaConfBaseException, NonFiniteTraining) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(Path(written["md"]).read_text())
    print("written: " + ", ".join(str(path) for path in written.values()))
    if not table.complete:
        print(f"partial table: {sum(e.stats is None for e in table.entries)} of {len(table.entries)} cells "
              "missing (listed under the table); run the same command again to train them", file=sys.stderr)
        return 0 if "--table-only" in flags else 1
    return 0


def _list(value) -> list | None:
    if value is None:
        return None
    from omegaconf import OmegaConf

    resolved = OmegaConf.to_container(value) if OmegaConf.is_config(value) else value
    return list(resolved) if isinstance(resolved, (list, tuple)) else [resolved]
