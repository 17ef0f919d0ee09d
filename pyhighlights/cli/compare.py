"""``scripts/compare.py``: train a list of models over a list of seeds, then one mean ± std table."""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python scripts/compare.py",
        description="Train every model of --models with every seed of --seeds on one corpus (one run directory "
                    "per model under --out), then write comparison.md and comparison.csv there: test accuracy, "
                    "highlight precision/recall/F1 and sparsity, mean ± std over seeds, and the run directory "
                    "of each row (a table of other runs already there is kept: the new one is comparison-2.md, "
                    "...). A model whose run directory already holds all the seeds is not retrained.",
        epilog="Hydra overrides for every run go after '--', e.g. -- dataset=beer dataset.data_dir=/data/beer")
    p.add_argument("--models", required=True, help="comma-separated model names, e.g. fr,dr,mgr,mcd,dar,mrd,rnp,grat")
    p.add_argument("--seeds", default="0,1", help="comma-separated seeds (default: %(default)s)")
    p.add_argument("--out", required=True, help="output folder: <out>/<model>/ runs and the comparison table")
    p.add_argument("--no-quick", dest="quick", action="store_false",
                   help="use each model's registered (reference) defaults instead of experiment=quick_<model>")
    p.add_argument("--table-only", action="store_true",
                   help="do not train: tabulate the finished runs under --out of these models, seeds and overrides")
    p.add_argument("overrides", nargs="*", help="Hydra overrides applied to every run (after '--')")
    return p


def main(argv: list[str] | None = None) -> int:
    import os

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("lightning.pytorch").setLevel(logging.WARNING)
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    from pyhighlights import registry
    from pyhighlights.cli.common import prepare
    from pyhighlights.config.resolve import ConfigError
    from pyhighlights.training import compare as comparison
    from pyhighlights.training.guards import NonFiniteTraining
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    prepare()
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in models if m not in registry.available("model")]
    if not models or unknown:
        print(f"error: --models: unknown {unknown or 'none given'}; available: {', '.join(registry.available('model'))}",
              file=sys.stderr)
        return 2
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError:
        print(f"error: --seeds: expected comma-separated integers, got {args.seeds!r}", file=sys.stderr)
        return 2
    out = Path(args.out)
    try:
        if args.table_only:
            table = comparison.tabulate(comparison.finished_runs(models, seeds, out, args.overrides, args.quick))
            written = comparison.write_comparison(out, table, seeds)
        else:
            table, written = comparison.compare(models, seeds, out, args.overrides, quick=args.quick,
                                                command=sys.argv)
    except (ConfigError, FileExistsError, FileNotFoundError, NotADirectoryError, ValueError, HydraException,
            OmegaConfBaseException, NonFiniteTraining) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(table.markdown)
    print(f"written: {written[0]}, {written[1]}")
    return 0
