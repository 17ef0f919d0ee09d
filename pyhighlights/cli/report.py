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
    p.add_argument("--html", action="store_true",
                   help="also write OUT_DIR/highlights.html: the runs' highlights, document by document")
    p.add_argument("--plots", action="store_true",
                   help="also write OUT_DIR/sparsity_f1.png: the sparsity–F1 trade-off, mean ± std over seeds")
    p.add_argument("--out-dir", default=".", help="folder for --html and --plots (default: %(default)s)")
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
    return _figures(args, sets)


def _figures(args: argparse.Namespace, sets) -> int:
    from pathlib import Path

    try:
        if args.plots:
            from pyhighlights.plots import plot_tradeoff

            print(f"wrote {plot_tradeoff(sets, Path(args.out_dir) / 'sparsity_f1.png', args.split)}")
        if args.html:
            from pyhighlights.viewer.cli import write_viewer

            print(f"wrote {write_viewer(args.paths, Path(args.out_dir) / 'highlights.html')}")
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0
