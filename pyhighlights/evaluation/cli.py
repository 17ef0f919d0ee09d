"""``scripts/evaluate.py``: re-score a trained run on any split or corpus."""
from __future__ import annotations

import logging
import os
import sys

from pyhighlights.evaluation.overrides import ArgumentError, parse_overrides, section

USAGE = """\
usage: python scripts/evaluate.py RUN_DIR_OR_CHECKPOINT [key=value ...] [--force]

Recompute every metric of a trained SPP model or classifier (task, highlight
P/R/F1/IoU micro and macro, sparsity, spans, IOU-F1, AUPRC of p(keep),
comprehensiveness, sufficiency and their AOPC versions) and write them to
RUN_DIR/evaluation/<split>[-<tag>]/metrics.json. Training results are never
touched; an existing evaluation is kept unless overwrite=true (or --force).
A run directory evaluates every seed's best checkpoint; a .ckpt file only that one.

arguments (key=value):
  split=test                 test | validation (val) | train
  dataset.<field>=VALUE      read another corpus in the same format, e.g. dataset.data_dir=/data/beer
                             dataset.aspect=aroma; dataset=<name> switches the reader (vocabulary stays the run's)
  tag=NAME                   output folder suffix (default: made from the dataset overrides, if any)
  faithfulness_model=RUN     score comprehensiveness/sufficiency with this classifier run (default: the model itself)
  batch_size=N               evaluation batch size (default: the run's)
  device=cpu                 cpu | cuda | cuda:N
  overwrite=false            replace an existing evaluation folder
"""

ARGUMENTS = ("split", "dataset", "tag", "faithfulness_model", "batch_size", "device", "overwrite")


def configure_logging() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    for name in ("pyhighlights.evaluation", "pyhighlights.explain"):
        logging.getLogger(name).setLevel(logging.INFO)


def split_flags(argv: list[str]) -> tuple[list[str], list[str], bool]:
    """(positional, key=value, force) from the command line; ``--help`` prints the usage and exits."""
    if any(a in ("-h", "--help") for a in argv):
        print(USAGE)
        sys.exit(0)
    force = "--force" in argv
    rest = [a for a in argv if a != "--force"]
    unknown = [a for a in rest if a.startswith("-")]
    if unknown:
        raise ArgumentError(f"{unknown[0]}: unknown option (see --help)")
    return [a for a in rest if "=" not in a], [a for a in rest if "=" in a], force


def main(argv: list[str] | None = None) -> int:
    from pyhighlights.cli.common import fail
    from pyhighlights.config.resolve import ConfigError
    from pyhighlights.evaluation.outputs import OutputExists
    from pyhighlights.evaluation.restore import RunNotFound

    argv = sys.argv[1:] if argv is None else argv
    configure_logging()
    try:
        positional, pairs, force = split_flags(argv)
        if len(positional) != 1:
            raise ArgumentError("expected one run directory or checkpoint (see --help)")
        args = parse_overrides(pairs, ARGUMENTS)
        from pyhighlights.evaluation.evaluate import evaluate_run

        out_dir, payload = evaluate_run(
            positional[0], split=args.get("split", "test"), dataset=section(args, "dataset"), tag=args.get("tag"),
            batch_size=args.get("batch_size"), device=args.get("device", "cpu"),
            faithfulness_model=args.get("faithfulness_model"), overwrite=force or bool(args.get("overwrite", False)),
            command=[sys.argv[0], *argv])
    except (ArgumentError, ConfigError, OutputExists, RunNotFound, FileNotFoundError, ValueError) as error:
        fail(error)
    print_summary(payload["summary"])
    print(f"evaluation written to {out_dir}")
    return 0


def print_summary(summary: dict, names=("accuracy", "highlight_f1", "auprc", "comprehensiveness", "sufficiency",
                                         "sparsity", "infidelity", "convergence_delta")) -> None:
    for key, stats in summary.items():
        if key.split("/")[-1] in names and stats.get("mean") is not None:
            spread = f" ± {stats['std']:.4f} (n={stats['n']})" if stats["n"] > 1 else ""
            print(f"{key} = {stats['mean']:.4f}{spread}")
