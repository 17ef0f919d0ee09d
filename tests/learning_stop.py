"""Learning tests that stop once the model has learned: score the test split after every epoch, stop when the
thresholds hold.

A learning test states "the model reaches accuracy A and highlight F1 F within E epochs". Training all E
epochs and scoring once checks only the last epoch; scoring after each epoch and stopping at the first that
passes checks the same statement and, since the thresholds sit well below what the seeds reach, usually
stops epochs earlier. The score at each epoch end is the one ``Trainer.test`` reports for the weights of that
moment (a second Trainer runs the model's own test hooks over the test split), so the number a test asserts
is the test split's, computed at the stop.

Scoring must not change the run it scores: a test run draws from the global random generators (every
``DataLoader`` iterator draws its base seed; a sampled evaluation draws masks) and switches modules to
evaluation mode, so the generators' states, each module's mode and the Trainer the module is attached to are
restored afterwards. Training to epoch ``e`` with scoring is therefore the run that trains ``e`` epochs
without it (tests/test_learning_stop.py checks that).
"""
from __future__ import annotations

import lightning.pytorch as pl

from pyhighlights.testing import quiet_cpu_trainer
from pyhighlights.training import random_states


class StopWhenLearned(pl.Callback):
    """After each training epoch, score the test split; stop training once ``learned(metrics)`` holds.

    ``scores`` keeps every epoch's test metrics (epoch 1 first); the last entry is the one at the stop."""

    def __init__(self, datamodule: pl.LightningDataModule, learned):
        self.datamodule, self.learned = datamodule, learned
        self.scores: list[dict[str, float]] = []
        # inference_mode=False: tensors a module caches during the test run must stay usable for training
        self.tester = quiet_cpu_trainer(inference_mode=False)

    def on_train_epoch_end(self, trainer, pl_module):
        metrics = self.score(trainer, pl_module)
        self.scores.append(metrics)
        if self.learned(metrics):
            trainer.should_stop = True

    def score(self, trainer, pl_module) -> dict[str, float]:
        rng = random_states.capture()
        # Lightning's test loop restores the modes itself unless a model overrides on_test_model_train
        modes = [(module, module.training) for module in pl_module.modules()]
        try:
            return self.tester.test(pl_module, datamodule=self.datamodule, verbose=False)[0]
        finally:
            random_states.restore(rng)
            for module, training in modes:
                module.training = training
            pl_module.trainer = trainer
            self.datamodule.trainer = trainer


def at_least(minimums: dict[str, float]):
    """A criterion: every named test metric at or above its minimum."""
    def learned(metrics: dict[str, float]) -> bool:
        return all(metrics[name] >= minimum for name, minimum in minimums.items())
    return learned


def thresholds(min_accuracy: float, min_f1: float):
    """The learning tests' criterion: test accuracy and test highlight F1 both at or above their minimum."""
    return at_least({"test/accuracy": min_accuracy, "test/highlight_f1": min_f1})


def train_until_learned(model: pl.LightningModule, datamodule: pl.LightningDataModule, max_epochs: int,
                        learned) -> list[dict[str, float]]:
    """Train ``model`` for at most ``max_epochs``, stopping after the first epoch whose test metrics are
    ``learned``; every epoch's test metrics, the last being those at the stop (or after ``max_epochs``)."""
    stop = StopWhenLearned(datamodule, learned)
    quiet_cpu_trainer(max_epochs, callbacks=[stop]).fit(model, datamodule=datamodule)
    return stop.scores
