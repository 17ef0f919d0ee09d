"""Every experiment config composes and validates; the G-RAT ones equal the reference scripts.

The table below was read from the G-RAT reference repository (github.com/shuaibo919/g-rat), not from our
configs: script/{beer,hotel}/guide/a{0,1,2}.sh and, where a script leaves a flag, run_guide.py's default.
"""
from pathlib import Path

import pytest

from pyhighlights.cli.common import CONFIG_DIR
from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import resolve_specs

EXPERIMENTS = sorted(p.stem for p in (Path(CONFIG_DIR) / "experiment").glob("*.yaml"))

# experiment -> (--lr, --sparsity, --sparsity_lambda, --continuity_lambda, --guide_lambda, --match_lambda,
#                --num_epochs, --guide_decay, --batch_size)
REFERENCE = {
    "grat_beer_appearance": (1e-4, 0.15, 10, 10, 10, 1.5, 300, 1e-5, 256),  # beer/guide/a0.sh
    "grat_beer_aroma": (1e-4, 0.123, 12, 10, 10, 1.5, 300, 1e-4, 256),  # beer/guide/a1.sh (no --guide_decay)
    "grat_beer_palate": (1e-4, 0.10, 10, 10, 10, 0.2, 100, 1e-5, 64),  # beer/guide/a2.sh
    "grat_hotel_location": (2e-4, 0.08, 8, 10, 2.5, 1.5, 300, 1e-5, 256),  # hotel/guide/a0.sh
    "grat_hotel_service": (2e-4, 0.105, 8, 10, 5, 0.2, 100, 1e-5, 256),  # hotel/guide/a1.sh
    "grat_hotel_cleanliness": (1e-4, 0.0775, 8, 10, 2.5, 0.2, 75, 1e-5, 256),  # hotel/guide/a2.sh
}
# Shared by all six: run_guide.py defaults (--weight_decay 2e-6, --seed 42, --hidden_size 200, --dropout 0.2,
# --noise_sigma 1.0, --history_performance 0.8, band 0.035, pre-training epoch < 10), --fix_embedding and
# --max_length 256 in every script; train_utils.py balances the training split of both corpora and builds the
# vocabulary from the GloVe file; the hotel annotated test reviews are not truncated (beer's are).
COMMON = {"weight_decay": 2e-6, "seed": 42, "hidden_size": 200, "dropout": 0.2, "noise_sigma": 1.0, "floor": 0.8,
          "band": 0.035, "pretrain_epochs": 10, "max_length": 256}


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_composes_and_validates(name):
    specs = resolve_specs(compose_config([f"experiment={name}"]))
    assert specs.model["name"]


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_grat_reference_settings(name):
    cfg = compose_config([f"experiment={name}"])
    specs = resolve_specs(cfg)
    model, trainer, dataset, embeddings = specs.model, specs.trainer, specs.dataset, specs.embeddings
    losses = model["losses"]
    got = (model["lr"], losses["sparsity"]["target"], losses["sparsity"]["weight"], losses["continuity"]["weight"],
           losses["guide"]["weight"], losses["match"]["weight"], trainer["max_epochs"], model["decay"],
           trainer["batch_size"])
    assert got == pytest.approx(REFERENCE[name])
    assert (model["weight_decay"], cfg.seed, specs.backbone["hidden_size"], model["selector"]["dropout"],
            model["predictor"]["dropout"], model["guider"]["noise_sigma"], trainer["selection_floor"],
            trainer["selection_band"], model["pretrain_epochs"], dataset["max_length"]) == pytest.approx(
        (COMMON["weight_decay"], COMMON["seed"], COMMON["hidden_size"], COMMON["dropout"], COMMON["dropout"],
         COMMON["noise_sigma"], COMMON["floor"], COMMON["band"], COMMON["pretrain_epochs"], COMMON["max_length"]))
    assert trainer["selection"] == "accuracy_in_band" and trainer["selection_target"] is None
    assert embeddings["name"] == "glove_file" and embeddings["trainable"] is False
    assert embeddings["vocabulary"] == "vectors"
    assert dataset["balance"] is True and dataset["remove_leakage"] is False
    assert dataset.get("truncate_test", True) is (not name.startswith("grat_hotel"))
    # The reference arithmetic is the model default, not something the experiment has to switch on.
    assert model["match_term"] == "match" and losses["match"]["name"] == "match"
    assert model["guider"]["name"] == "reference" and model["encoder_dropout"] == 0.0
    assert losses["sparsity"]["padding"] == losses["continuity"]["padding"] == "counted"


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_corpus_presets_equal_the_experiments(name):
    """``model=grat dataset=<corpus> dataset.aspect=<aspect>`` gets the experiment's model and schedule."""
    corpus, aspect = name.split("_")[1:]
    preset = resolve_specs(compose_config(["model=grat", f"dataset={corpus}", f"dataset.aspect={aspect}"]))
    experiment = resolve_specs(compose_config([f"experiment={name}"]))
    for section in ("model", "trainer", "backbone"):
        assert getattr(preset, section) == getattr(experiment, section), section
    by_number = resolve_specs(compose_config(["model=grat", f"dataset={corpus}",
                                              f"dataset.aspect={list(REFERENCE).index(name) % 3}"]))
    assert by_number.model == preset.model


# The Liu et al. family's published runs, typed from the authors' repositories (jugechengzi on GitHub):
# FR hyperparameters.txt; DR Readme.md; MGR readme.md; MCD Readme.md (+ decouple_bcr.py argparse defaults for
# decorrelated Beer); DAR readme.md; MRD README.md. name -> (lr, s, λs, λc, batch, epochs, dataset variant).
FAMILY_REFERENCE = {
    "fr_beer_appearance": (1e-4, 0.15, 10, 10, 256, 300, "decorrelated"),
    "fr_beer_aroma": (1e-4, 0.123, 12, 10, 256, 500, "decorrelated"),
    "fr_beer_palate": (1e-4, 0.12, 10, 10, 64, 500, "decorrelated"),
    "fr_hotel_location": (1e-4, 0.09, 8, 10, 64, 200, None),
    "fr_hotel_service": (5e-5, 0.115, 10, 10, 256, 400, None),
    "fr_hotel_cleanliness": (2e-4, 0.1, 10, 12, 256, 100, None),
    "dr_beer_aroma": (2e-4, 0.138, 11, 12, 128, 200, "decorrelated"),
    "dr_hotel_service": (1e-4, 0.115, 10, 10, 1024, 400, None),
    # norm_beer.py, the script of MGR readme.md's runs: λs 11, λc 12 unless the line passes them
    "mgr_beer_correlated_appearance": (3e-5, 0.173, 11, 12, 128, 400, "correlated"),
    "mgr_hotel_cleanliness": (7e-5, 0.1, 10, 10, 1024, 800, None),
    "mcd_beer_correlated_appearance": (1e-4, 0.175, 6, 6, 128, 150, "correlated"),
    "mcd_beer_appearance": (1e-4, 0.1, 6, 6, 256, 37, "decorrelated"),
    "dar_beer_appearance": (1e-4, 0.167, 11, 12, 128, 100 + 200, "decorrelated"),
    "mrd_beer_correlated_appearance": (1e-4, 0.075, 6, 6, 128, 150, "correlated"),
}
# FR hotel runs set --hidden_dim; the others keep the scripts' default 200.
FAMILY_HIDDEN = {"fr_hotel_service": 100, "fr_hotel_cleanliness": 100}


@pytest.mark.parametrize("name", sorted(FAMILY_REFERENCE))
def test_family_reference_settings(name):
    specs = resolve_specs(compose_config([f"experiment={name}"]))
    model, trainer, dataset = specs.model, specs.trainer, specs.dataset
    losses = model["losses"]
    got = (model["lr"], losses["sparsity"]["target"], losses["sparsity"]["weight"], losses["continuity"]["weight"],
           trainer["batch_size"], trainer["max_epochs"])
    lr, s, ls, lc, batch, epochs, variant = FAMILY_REFERENCE[name]
    assert got == pytest.approx((lr, s, ls, lc, batch, epochs))
    assert model["name"] == name.split("_")[0]
    assert dataset.get("variant") == variant
    assert losses["task"]["weight"] == pytest.approx(0.9)  # --cls_lambda in every script
    assert model["selector"]["evaluation"] == "sample" and model["predictor_pool"] == "valid"
    assert specs.embeddings == {**specs.embeddings, "name": "glove_file", "trainable": False, "oov": "zero",
                                "vocabulary": "vectors"}
    assert specs.backbone["hidden_size"] == FAMILY_HIDDEN.get(name, 200) and specs.backbone["dropout"] == 0.0
    assert (trainer["monitor"], trainer["mode"]) == ("val/accuracy", "max")
    if name.startswith("dar_"):
        assert model["auxiliary_epochs"] == 100  # --pre_epoch 100


def test_every_family_experiment_is_in_the_reference_table():
    family = {n for n in EXPERIMENTS if n.split("_")[0] in {"fr", "dr", "mgr", "mcd", "dar", "mrd"}}
    assert family == set(FAMILY_REFERENCE)
