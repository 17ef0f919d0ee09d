"""The learning tests' per-epoch scoring (tests/learning_stop.py) leaves the run it scores unchanged.

RNP with a sampled evaluation, as the Liu et al. references evaluate: the test run draws Gumbel masks from the
global generator, from which training draws its Gumbel noise too, so a scoring that leaked into the
generators' states, the modules' modes (dropout) or the module's Trainer would change the trained weights.
"""
from __future__ import annotations

import lightning.pytorch as pl
import pytest
import torch
from learning_stop import thresholds, train_until_learned

from pyhighlights.config.compose import compose_config
from pyhighlights.testing import quiet_cpu_trainer, tiny_overrides
from pyhighlights.training.run import Experiment, resolve_specs

SEED = 4


@pytest.fixture(scope="module")
def exp(tmp_path_factory):
    from pyhighlights.data.synthetic import write_synthetic_beer

    # a few batches an epoch: the question is the bookkeeping, not learning
    data_dir = write_synthetic_beer(tmp_path_factory.mktemp("learning_stop"), seed=3, n_train=96, n_heldout=20,
                                    n_test=40, min_length=20, max_length=40)
    return Experiment(resolve_specs(compose_config(tiny_overrides(
        data_dir, "model=rnp", "model.pad_to=null", "model.selector.evaluation=sample", "model.selector.dropout=0.3"))))


def plain_run(exp, epochs: int):
    """What a learning test did before: train ``epochs``, then one test run of the final weights."""
    pl.seed_everything(SEED, verbose=False)
    model, datamodule = exp.model(), exp.datamodule(SEED)
    trainer = quiet_cpu_trainer(epochs)
    trainer.fit(model, datamodule=datamodule)
    return model, trainer.test(model, datamodule=datamodule, verbose=False)[0]


def scored_run(exp, epochs: int, learned):
    pl.seed_everything(SEED, verbose=False)
    model, datamodule = exp.model(), exp.datamodule(SEED)
    return model, train_until_learned(model, datamodule, epochs, learned)


def test_scoring_each_epoch_changes_neither_the_weights_nor_the_scores(exp):
    one_epoch, after_one = plain_run(exp, 1)
    two_epochs, after_two = plain_run(exp, 2)
    scored, scores = scored_run(exp, 2, learned=lambda metrics: False)
    assert len(scores) == 2
    # each epoch's score is the test run of a run trained that many epochs
    assert scores == [after_one, after_two]
    assert all(torch.equal(a, b) for a, b in zip(scored.state_dict().values(), two_epochs.state_dict().values()))
    # the two epochs trained differently from one (else the comparison above could not fail)
    assert not all(torch.equal(a, b) for a, b in zip(one_epoch.state_dict().values(),
                                                     two_epochs.state_dict().values()))


def test_training_stops_after_the_first_epoch_that_passes(exp):
    epochs_seen = []

    def learned(metrics):
        epochs_seen.append(metrics)
        return len(epochs_seen) == 2

    _, scores = scored_run(exp, 4, learned)
    assert len(scores) == 2 and scores == epochs_seen


def test_the_criterion_is_test_accuracy_and_highlight_f1():
    learned = thresholds(0.8, 0.3)
    assert learned({"test/accuracy": 0.8, "test/highlight_f1": 0.3})
    assert not learned({"test/accuracy": 0.79, "test/highlight_f1": 0.9})
    assert not learned({"test/accuracy": 1.0, "test/highlight_f1": 0.29})
    with pytest.raises(KeyError):  # a model that reports no highlight F1 cannot pass
        learned({"test/accuracy": 1.0})

