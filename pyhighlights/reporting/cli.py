"""``scripts/report.py``: a mean ± std table over run directories."""
from __future__ import annotations

import argparse
import sys

from pyhighlights.reporting.table import DEFAULT_METRICS, FORMATS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python scripts/report.py",
        description="Read run directories (training runs, their evaluation/ and explain/ folders, or folders "
                    "above runs) and print one row per model or post-hoc method with the mean ± std over "
                    "runs and seeds.")
    p.add_argument("paths", nargs="+", help="run directories, evaluation/explain folders, or folders above runs")
    p.add_argument("--metrics", default=",".join(DEFAULT_METRICS),
                   help="comma-separated metric names, without the split prefix (default: %(default)s)")
    p.add_argument("--format", choices=FORMATS, default="markdown", help="table format (default: %(default)s)")
    p.add_argument("--split", default="test", help="metric prefix: test, val or train (default: %(default)s)")
    p.add_argument("--evaluation", default="test",
                   help="evaluation folder merged into each training run's row, or 'none' (default: %(default)s)")
    p.add_argument("--digits", type=int, default=3, help="decimals shown (default: %(default)s)")
    p.add_argument("--output", help="also write the table to this file")
    return p


def main(argv: list[str] | None = None) -> int:
    from pyhighlights.reporting.reader import read_results
    from pyhighlights.reporting.table import aggregate, format_table

    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    if not metrics:
        print("error: --metrics: no metric named", file=sys.stderr)
        return 2
    skipped: list = []
    try:
        sets = read_results(args.paths, evaluation=None if args.evaluation == "none" else args.evaluation,
                            skipped=skipped)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for path, reason in skipped:
        print(f"warning: skipped {path} ({reason})", file=sys.stderr)
    if not sets:
        print("error: no readable finished run among the paths given", file=sys.stderr)
        return 2
    text = format_table(aggregate(sets, metrics, args.split), metrics, args.format, args.digits)
    sys.stdout.write(text)
    if args.output:
        with open(args.output, "w") as handle:
            handle.write(text)
    return 0
