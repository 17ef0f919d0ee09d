"""Warm-up-aware checkpointing and early stopping; monitors must agree."""
import lightning.pytorch as pl
import pytest
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint

from pyhighlights.testing import scripted_validation
from pyhighlights.training.callbacks import WarmupAwareCheckpoint, WarmupAwareEarlyStopping, check_monitors

# val/loss per epoch: the guider-only epochs 0 and 1 look best, but must not count.
LOSSES = [0.1, 0.2, 0.9, 0.5, 0.7]


def fit(tmp_path, first_scored_epoch, patience=None):
    checkpoint = WarmupAwareCheckpoint(dirpath=tmp_path, filename="best-{epoch}", monitor="val/loss", mode="min")
    callbacks = [checkpoint]
    if patience is not None:
        callbacks.append(WarmupAwareEarlyStopping(monitor="val/loss", mode="min", patience=patience))
    trainer = pl.Trainer(max_epochs=len(LOSSES), callbacks=callbacks, logger=False, enable_progress_bar=False,
                         enable_model_summary=False, num_sanity_val_steps=0, accelerator="cpu")
    trainer.fit(scripted_validation(first_scored_epoch, [{"val/loss": loss} for loss in LOSSES]))
    return trainer, checkpoint


def test_best_checkpoint_skips_warmup_epochs(tmp_path):
    _, checkpoint = fit(tmp_path / "a", first_scored_epoch=2)
    # 0.5 (index 3) is the best loss from index 2 on; file names count epochs from 1
    assert checkpoint.best_model_path.endswith("best-epoch=4.ckpt")
    _, plain = fit(tmp_path / "b", first_scored_epoch=0)
    assert plain.best_model_path.endswith("best-epoch=1.ckpt")


def test_early_stopping_counts_from_the_first_scored_epoch(tmp_path):
    # Without warm-up awareness, patience 1 stops at epoch 1 (0.2 > 0.1); with it, epochs 2..4 are scored:
    # 0.9, then 0.5 improves, then 0.7 is one bad epoch -> stop after epoch 4.
    trainer, _ = fit(tmp_path, first_scored_epoch=2, patience=1)
    assert trainer.current_epoch == 5 and trainer.early_stopping_callback.best_score.item() == pytest.approx(0.5)


def test_monitors_must_agree():
    check_monitors([ModelCheckpoint(monitor="val/loss"), EarlyStopping(monitor="val/loss")])
    with pytest.raises(ValueError, match="same quantity"):
        check_monitors([ModelCheckpoint(monitor="val/loss"), EarlyStopping(monitor="val/accuracy")])


# val/accuracy per epoch: it saturates at 1.0 in epoch 2 (index 1) and again in epochs 4 and 5
ACCURACIES = [0.9, 1.0, 0.99, 1.0, 1.0]


@pytest.mark.parametrize("ties, tested", [("earliest", 2), ("latest", 5)])
def test_ties_at_the_best_value_keep_the_earliest_or_the_latest_epoch(tmp_path, ties, tested):
    checkpoint = WarmupAwareCheckpoint(dirpath=tmp_path, filename="best-{epoch}", monitor="val/accuracy", mode="max",
                                       ties=ties)
    trainer = pl.Trainer(max_epochs=len(ACCURACIES), callbacks=[checkpoint], logger=False, enable_progress_bar=False,
                         enable_model_summary=False, num_sanity_val_steps=0, accelerator="cpu")
    trainer.fit(scripted_validation(0, [{"val/accuracy": a} for a in ACCURACIES]))
    assert checkpoint.best_model_path.endswith(f"best-epoch={tested}.ckpt")
    # one best checkpoint on disk: the replaced one is gone
    assert sorted(p.name for p in tmp_path.glob("best-*.ckpt")) == [f"best-epoch={tested}.ckpt"]


def test_an_unknown_tie_rule_is_refused(tmp_path):
    with pytest.raises(ValueError, match="expected earliest or latest, got 'middle'"):
        WarmupAwareCheckpoint(dirpath=tmp_path, monitor="val/accuracy", mode="max", ties="middle")


def test_the_latest_tie_rule_needs_one_kept_checkpoint(tmp_path):
    with pytest.raises(ValueError, match="ties=latest: needs save_top_k=1 .* got 3"):
        WarmupAwareCheckpoint(dirpath=tmp_path, monitor="val/accuracy", mode="max", save_top_k=3, ties="latest")
