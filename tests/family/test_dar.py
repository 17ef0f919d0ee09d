"""DAR: the auxiliary predictor trains alone on the full text, is restored from its best validation
epoch, then never changes."""
from __future__ import annotations

import lightning.pytorch as pl
import torch
from family_helpers import SHORT_PADDING, experiment, same, snapshot, trainer


class Snapshots(pl.Callback):
    """Auxiliary and rationaliser parameters at the end of every validation (= after each epoch's training)."""

    def __init__(self):
        self.auxiliary, self.rationaliser = [], []

    def on_validation_epoch_end(self, trainer, pl_module):
        if trainer.sanity_checking:
            return
        self.auxiliary.append(snapshot(pl_module.auxiliary_modules()))
        self.rationaliser.append(snapshot(pl_module.rationaliser_modules()))


def test_pretrained_restored_from_best_epoch_then_frozen(family_tiny_dir, tmp_path):
    # auxiliary_mode=eval (our option: no dropout in the frozen teacher); the default, train mode, is
    # tested in test_reference_steps.py
    exp = experiment(family_tiny_dir, "dar", "model.auxiliary_epochs=3", "model.lr=0.01", "model.auxiliary_mode=eval",
                     SHORT_PADDING)
    pl.seed_everything(0)
    model = exp.model()
    assert model.first_scored_epoch == 3

    # Validation accuracy of the auxiliary predictor per pre-training epoch: epoch 1 is the best.
    scores = iter([0.6, 0.9, 0.7])
    model.auxiliary_validation_score = lambda: next(scores)
    # What the auxiliary encoder reads while it trains: the full text (no word removed).
    reads = []
    model.auxiliary_encoder.register_forward_hook(
        lambda module, args, kwargs, out: reads.append((model.current_epoch, module.training, kwargs.get("keep"))),
        with_kwargs=True)
    snapshots = Snapshots()
    fit = trainer(5, limit_train_batches=2, limit_val_batches=1, callbacks=[snapshots])
    fit.fit(model, datamodule=exp.datamodule(0))

    initial_rationaliser = snapshots.rationaliser[0]
    # Pre-training (epochs 0-2): the auxiliary predictor moves every epoch, the rationaliser never.
    assert not same(snapshots.auxiliary[0], snapshots.auxiliary[1])
    assert not same(snapshots.auxiliary[1], snapshots.auxiliary[2])
    assert all(same(initial_rationaliser, s) for s in snapshots.rationaliser[:3])
    assert all(keep is None for epoch, training, keep in reads if epoch < 3 and training)
    # Then: restored from epoch 1 (its best validation score), frozen, and never changed again.
    best = snapshots.auxiliary[1]
    assert not same(best, snapshots.auxiliary[2])
    assert same(best, snapshots.auxiliary[3]) and same(best, snapshots.auxiliary[4])
    assert same(best, snapshot(model.auxiliary_modules()))
    assert all(not p.requires_grad for p in model.auxiliary_parameters())
    assert all(not m.training for m in model.auxiliary_modules()) and model.selector.training
    assert not same(snapshots.rationaliser[2], snapshots.rationaliser[3])
    assert not same(snapshots.rationaliser[3], snapshots.rationaliser[4])
    # After pre-training the auxiliary predictor reads rationales (words removed), in eval mode.
    late = [(training, keep) for epoch, training, keep in reads if epoch >= 3]
    assert late and all(not training for training, _ in late)
    assert any(keep is not None for _, keep in late)

    # The kept state travels in checkpoints, and a resumed run keeps the auxiliary predictor frozen.
    fit.save_checkpoint(tmp_path / "last.ckpt")
    saved = torch.load(tmp_path / "last.ckpt", weights_only=False)
    assert saved["pyhighlights_auxiliary"]["epoch"] == 1
    resumed = exp.model()
    trainer(6, limit_train_batches=2, limit_val_batches=1).fit(resumed, datamodule=exp.datamodule(0),
                                                                ckpt_path=tmp_path / "last.ckpt")
    assert same(best, snapshot(resumed.auxiliary_modules()))
    assert all(not p.requires_grad for p in resumed.auxiliary_parameters())


def test_without_validation_keeps_last_pretraining_state(family_tiny_dir):
    exp = experiment(family_tiny_dir, "dar", "model.auxiliary_epochs=1", "model.lr=0.01", SHORT_PADDING)
    pl.seed_everything(0)
    model = exp.model()
    before = snapshot(model.auxiliary_modules())
    states = []

    class AtEpochEnd(pl.Callback):
        def on_train_epoch_end(self, trainer, pl_module):
            states.append(snapshot(pl_module.auxiliary_modules()))

    trainer(2, limit_train_batches=2, callbacks=[AtEpochEnd()]).fit(model, datamodule=exp.datamodule(0))
    assert not same(before, states[0]) and same(states[0], states[1])
    assert bool(model.auxiliary_frozen)
