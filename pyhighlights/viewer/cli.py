"""``scripts/view.py``: one HTML page of the highlights of one or more runs."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_OUT = "highlights.html"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python scripts/view.py",
        description="Write one self-contained HTML page showing, per test document, the human highlight and each "
                    "run's selection (and post-hoc methods' top-k selections found in the runs' explain/ folders).")
    p.add_argument("runs", nargs="+", help="run directories (or folders above runs)")
    p.add_argument("--out", default=DEFAULT_OUT, help="HTML file to write (default: %(default)s)")
    p.add_argument("--seed", type=int, help="which seed of runs with several (default: each run's first)")
    p.add_argument("--title", default="pyhighlights: highlights", help="page title")
    return p


def write_viewer(paths: list[str | Path], out: str | Path, seed: int | None = None,
                 title: str = "pyhighlights: highlights") -> Path:
    """Read the runs under ``paths`` and write their page to ``out``."""
    from pyhighlights.viewer.data import assemble
    from pyhighlights.viewer.page import write_page
    from pyhighlights.viewer.runs import find_runs, load_run

    runs = [load_run(path, seed=seed) for path in find_runs(paths)]
    return write_page(assemble(runs), out, title=title)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        path = write_viewer(args.runs, args.out, seed=args.seed, title=args.title)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0
