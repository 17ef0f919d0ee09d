#!/usr/bin/env python
"""Train a select-then-predict model: ``python scripts/train.py model=grat dataset=beer``.

Hydra chooses the components and overrides; every override is validated
against the component's registered configuration before anything is built.
"""
from pyhighlights.cli.train import main

if __name__ == "__main__":
    main()
