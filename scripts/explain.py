#!/usr/bin/env python
"""Post-hoc attribution of a trained classifier: ``python scripts/explain.py RUN_DIR method=integrated_gradients``.

See ``--help``; the logic is in :mod:`pyhighlights.explain`.
"""
import sys

from pyhighlights.explain.cli import main

if __name__ == "__main__":
    sys.exit(main())
