#!/usr/bin/env python
"""One HTML page of the highlights of runs: ``python scripts/view.py runs/rnp runs/grat --out view.html``.

See ``--help``; the logic is in :mod:`pyhighlights.viewer`.
"""
import sys

from pyhighlights.viewer.cli import main

if __name__ == "__main__":
    sys.exit(main())
