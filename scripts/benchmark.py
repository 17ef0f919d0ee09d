#!/usr/bin/env python
"""A benchmark suite's whole grid in one command, ending in the papers' table.

    python scripts/benchmark.py suite=synthetic
    python scripts/benchmark.py suite=beer_correlated models=[fr,mgr] data_dir=/data/beer embeddings.path=glove.6B.100d.txt
    python scripts/benchmark.py suite=beer_correlated --list

See ``--help``; the logic is in :mod:`pyhighlights.benchmark`.
"""
import sys

from pyhighlights.cli.benchmark import main

if __name__ == "__main__":
    sys.exit(main())
