#!/usr/bin/env python
"""Re-score a trained run: ``python scripts/evaluate.py RUN_DIR [split=test] [dataset.data_dir=...]``.

See ``--help``; the logic is in :mod:`pyhighlights.evaluation`.
"""
import sys

from pyhighlights.evaluation.cli import main

if __name__ == "__main__":
    sys.exit(main())
