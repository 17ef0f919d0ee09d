"""Behavioural: RNP learns the synthetic corpus within a stated budget on one CPU thread."""
from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import run


def test_rnp_learns_synthetic_beer(learnable_beer_dir, tmp_path):
    # ~1070 balanced reviews, batch 32, default BiGRU: 4 epochs = ~135 steps, about a minute on one thread.
    cfg = compose_config(["dataset=beer", f"dataset.data_dir={learnable_beer_dir}", "trainer.batch_size=32",
                          "trainer.max_epochs=4", "trainer.progress_bar=false"])
    metrics = run(cfg, tmp_path / "run")["seeds"]["0"]
    assert metrics["test/accuracy"] >= 0.85, metrics
    assert metrics["test/highlight_f1"] >= 0.4, metrics
