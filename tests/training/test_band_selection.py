"""The G-RAT reference's model selection (run_guide.py) on a hand-made sequence of dev epochs."""
import lightning.pytorch as pl

from pyhighlights.testing import scripted_validation
from pyhighlights.training.callbacks import BandSelection, BandSelectionCheckpoint

# (dev accuracy, dev selection rate) per epoch; s = 0.15, band 0.035 -> rates in (0.115, 0.185); floor 0.8.
EPOCHS = [
    (0.95, 0.15),  # 0: guider-only epoch in the callback test (would be kept otherwise)
    (0.79, 0.15),  # 1: below the floor 0.8
    (0.85, 0.20),  # 2: beats 0.79 but the rate is outside the band
    (0.84, 0.15),  # 3: does not beat the previous epoch (0.85)
    (0.86, 0.16),  # 4: kept
    (0.90, 0.12),  # 5: kept
    (0.88, 0.15),  # 6: worse than the previous epoch
    (0.89, 0.15),  # 7: kept: beats the previous epoch (0.88) although the best so far is 0.90
    (0.95, 0.185),  # 8: the band is open: 0.185 is outside
]
KEPT_FROM_1 = [4, 5, 7]
LOGGED = [{"val/balanced_accuracy": accuracy, "val/sparsity_per_document": rate} for accuracy, rate in EPOCHS]


def test_rule_on_a_hand_made_sequence():
    rule = BandSelection(target=0.15, band=0.035, floor=0.8)
    kept = [epoch for epoch, (accuracy, rate) in enumerate(EPOCHS[1:], start=1) if rule.keep(accuracy, rate)]
    assert kept == KEPT_FROM_1


def test_first_epoch_must_beat_the_floor():
    assert not BandSelection(0.15, floor=0.8).keep(0.8, 0.15)
    assert BandSelection(0.15, floor=0.8).keep(0.81, 0.15)


def test_checkpoint_keeps_the_last_kept_epoch_and_ignores_warmup(tmp_path):
    checkpoint = BandSelectionCheckpoint(dirpath=tmp_path, target=0.15, band=0.035, floor=0.8)
    trainer = pl.Trainer(max_epochs=len(EPOCHS), callbacks=[checkpoint], logger=False, enable_progress_bar=False,
                         enable_model_summary=False, num_sanity_val_steps=0, accelerator="cpu")
    trainer.fit(scripted_validation(1, LOGGED))
    assert trainer.checkpoint_callback is checkpoint
    assert checkpoint.kept_epochs == KEPT_FROM_1
    # index 7 is the last kept epoch; file names count epochs from 1
    assert checkpoint.best_model_path.endswith("best-epoch=8.ckpt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best-epoch=8.ckpt"]


def test_without_warmup_awareness_epoch_zero_would_have_been_kept(tmp_path):
    checkpoint = BandSelectionCheckpoint(dirpath=tmp_path, target=0.15)
    trainer = pl.Trainer(max_epochs=2, callbacks=[checkpoint], logger=False, enable_progress_bar=False,
                         enable_model_summary=False, num_sanity_val_steps=0, accelerator="cpu")
    trainer.fit(scripted_validation(0, LOGGED))
    assert checkpoint.kept_epochs == [0]
