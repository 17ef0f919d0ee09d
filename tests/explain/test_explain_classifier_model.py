"""model=classifier: the full-input baseline, on the SPP explanation interface."""
from __future__ import annotations

import torch
from explain_helpers import tiny_classifier, word_batch

from pyhighlights.config.resolve import validate

ROWS = [[3, 5, 7, 2, 9], [4, 1, 8]]


def test_registered_with_cross_entropy_only_and_composable():
    spec = validate("model", {"name": "classifier"}, "model")
    assert set(spec["losses"]) == {"task"} and spec["losses"]["task"]["name"] == "cross_entropy"
    assert spec["predictor"]["name"] == "mlp"
    from hydra import compose, initialize_config_dir

    from pyhighlights.cli.common import CONFIG_DIR
    from pyhighlights.config.hydra_schema import register_schemas

    register_schemas()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("train", overrides=["model=classifier", "model.predictor.hidden_size=8"])
    assert cfg.model.name == "classifier" and cfg.model.predictor.hidden_size == 8 and "selector" not in cfg.model


def test_selects_every_real_word_and_predicts_from_the_full_text():
    model, batch = tiny_classifier(), word_batch(ROWS)
    with torch.no_grad():
        selection = model.select(batch)
        outputs = model(batch)
        assert torch.equal(selection.mask, batch.word_mask.float())
        assert torch.equal(model.word_scores(batch), batch.word_mask.float())
        assert torch.allclose(outputs["logits"], model.predict(batch, batch.word_mask.float()))


def test_removed_words_contribute_nothing():
    """Swapping a word for another changes the prediction only if the word is kept."""
    model, batch = tiny_classifier(), word_batch(ROWS)
    swapped = word_batch([[3, 11, 7, 2, 9], [4, 1, 8]])
    keep = batch.word_mask.float().clone()
    keep[0, 1] = 0
    with torch.no_grad():
        assert torch.allclose(model.predict(batch, keep), model.predict(swapped, keep), atol=1e-6)
        full = batch.word_mask.float()
        assert not torch.allclose(model.predict(batch, full)[0], model.predict(swapped, full)[0])
