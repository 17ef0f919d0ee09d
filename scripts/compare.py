#!/usr/bin/env python
"""Train several models over several seeds on one corpus and write one comparison table.

    python scripts/compare.py --models fr,dr,mgr,mcd,dar,mrd,rnp,grat --seeds 0,1 --out runs/compare
    python scripts/compare.py --models rnp,fr --seeds 0,1,2 --out runs/beer -- dataset=beer dataset.data_dir=/data/beer

See ``--help``; the logic is in :mod:`pyhighlights.training.compare`.
"""
import sys

from pyhighlights.cli.compare import main

if __name__ == "__main__":
    sys.exit(main())
