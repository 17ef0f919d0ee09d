#!/usr/bin/env python
"""A mean ± std table over run directories: ``python scripts/report.py runs/* --format latex``.

See ``--help``; the logic is in :mod:`pyhighlights.reporting`.
"""
import sys

from pyhighlights.cli.report import main

if __name__ == "__main__":
    sys.exit(main())
