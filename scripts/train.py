#!/usr/bin/env python
"""Train a select-then-predict model: ``python scripts/train.py model=grat dataset=beer``.

Hydra chooses the components and overrides; every override is validated
against the component's registered configuration before anything is built.
"""
from pyhighlights.cli.common import exit_finished
from pyhighlights.cli.train import main

if __name__ == "__main__":
    main()
    exit_finished()  # the run's files are written: skip the interpreter's seconds of teardown
