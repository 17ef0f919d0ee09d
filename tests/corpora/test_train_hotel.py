"""End to end: RNP and G-RAT train on Hotel-format data and report highlight F1 (tiny settings)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from corpora_fixtures import HOTEL
from pyhighlights.cli.common import CONFIG_DIR
from pyhighlights.config.hydra_schema import register_schemas
from pyhighlights.training.run import run

TINY = ["trainer.max_epochs=1", "trainer.batch_size=8", "trainer.progress_bar=false", "trainer.save_checkpoints=false",
        "backbone.hidden_size=8", "embeddings.dim=8"]


@pytest.mark.parametrize("model", [["model=rnp"], ["model=grat", "model.pretrain_epochs=0"]])
def test_trains_on_hotel_and_reports_highlight_f1(tmp_path: Path, model: list[str]) -> None:
    register_schemas()
    overrides = ["dataset=hotel", f"dataset.data_dir={HOTEL}", "dataset.aspect=location", *model, *TINY]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="train", overrides=overrides)
    metrics = run(cfg, tmp_path / "run")["seeds"]["0"]
    assert math.isfinite(metrics["test/highlight_f1"]) and 0.0 <= metrics["test/highlight_f1"] <= 1.0
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["corpus_info"]["leakage"]["removed"]["train"] == 1
    assert sorted(Path(p).name for p in manifest["data_files"]) == ["hotel_Location.dev", "hotel_Location.train",
                                                                   "hotel_Location.train"]
    lines = (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 6 and json.loads(lines[0])["highlight"] == [7, 8, 9, 10, 11]
