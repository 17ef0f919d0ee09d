"""Re-scoring trained runs: restoring a run, the evaluation pass, and its outputs.

- :mod:`restore`: a run's best checkpoints, models and corpus, read back from its directory;
- :mod:`scores`: every metric of a selection and soft word scores (plausibility and faithfulness);
- :mod:`evaluate`: the evaluation pass of an SPP model or classifier over a split;
- :mod:`loops`: the one-device Trainer whose test and predict loops run the passes;
- :mod:`outputs`: output folders that are never overwritten by accident;
- :mod:`cli`: ``scripts/evaluate.py``, a Hydra app (see ``pyhighlights/cli/trained_run.py``).
"""
