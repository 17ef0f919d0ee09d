"""HardKuma with the transformer backbone (tiny BERT): its gates over words train end to end."""
from __future__ import annotations

import json
import math
from pathlib import Path

from hydra import compose, initialize_config_dir

from transformer_fixtures import tiny_bert  # noqa: F401 (pytest fixtures)
from pyhighlights.cli.common import CONFIG_DIR
from pyhighlights.config.hydra_schema import register_schemas
from pyhighlights.training.run import run

HOTEL = Path(__file__).resolve().parents[1] / "fixtures" / "hotel"


def test_hardkuma_trains_on_subwords_and_selects_words(tmp_path: Path, tiny_bert: Path) -> None:
    register_schemas()
    overrides = ["trainer.max_epochs=1", "trainer.batch_size=4", "trainer.progress_bar=false",
                 "trainer.save_checkpoints=false", "dataset=hotel", f"dataset.data_dir={HOTEL}",
                 "backbone=transformer", f"backbone.path={tiny_bert}", "model=hardkuma", "model.encoder_lr=1e-4"]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="train", overrides=overrides)
    metrics = run(cfg, tmp_path / "run")["seeds"]["0"]
    assert math.isfinite(metrics["test/accuracy"]) and math.isfinite(metrics["test/highlight_f1"])
    from pyhighlights.data.hotel import load_hotel

    words = {d.doc_id: len(d.tokens) for d in load_hotel(HOTEL, "location").test}
    for line in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert all(0 <= i < words[record["id"]] for i in record["selected"])
