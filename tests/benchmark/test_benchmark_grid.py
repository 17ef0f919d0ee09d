"""The suites' grids: models × aspects × levels × seeds, the overrides of each cell, and bad suites refused."""
from __future__ import annotations

import pytest

from pyhighlights.benchmark.grid import SPARSITY_TARGET, build_grid, rationalization_models, suite_from_config
from pyhighlights.cli.benchmark import main, split_arguments
from pyhighlights.config.errors import ConfigError


def suite(name: str):
    from pyhighlights.cli.common import prepare
    from pyhighlights.config.compose import compose_config

    prepare()
    return suite_from_config(compose_config([f"suite={name}"], config_name="benchmark").suite)


def target_of(cell) -> float | None:
    found = [o.split("=", 1)[1] for o in cell.overrides if o.startswith(f"{SPARSITY_TARGET}=")]
    return float(found[0]) if found else None


def test_default_models_are_the_registered_models_with_a_sparsity_loss():
    models = rationalization_models()
    assert {"rnp", "fr", "dr", "grat", "mgr", "mcd", "mrd", "dar"} <= set(models)
    assert "classifier" not in models and "random" not in models


def test_correlated_beer_grid_uses_the_levels_and_the_authors_targets_where_they_give_them():
    cells = build_grid(suite("beer_correlated"))
    models = rationalization_models()
    # models × aspects × levels, then the three aspects' classifiers for the post-hoc rows
    assert len(cells) == len(models) * 3 * 3 + 3 and all(c.seeds == [0, 1, 2, 3, 4] for c in cells)
    by_name = {c.name: c for c in cells}
    classifier = by_name["classifier/palate"]
    assert target_of(classifier) is None and "dataset.aspect=palate" in classifier.overrides
    assert classifier.explanations == [{"method": m, "level": lv, "rate": r} for lv, r in
                                       (("S10", 0.1), ("S20", 0.2), ("S30", 0.3))
                                       for m in ("integrated_gradients", "lime")]
    mgr = by_name["mgr/appearance/S10"]
    # the published setting for the aspect, at the level's target from the MGR readme (0.083 for S~10)
    assert mgr.experiment == "mgr_beer_correlated_appearance" and target_of(mgr) == 0.083
    assert target_of(by_name["mgr/appearance/S30"]) == 0.273 and target_of(by_name["mcd/appearance/S20"]) == 0.175
    aroma = by_name["mgr/aroma/S20"]
    assert aroma.experiment is None and target_of(aroma) == 0.2  # no published setting: registered defaults
    assert "dataset.variant=correlated" in mgr.overrides and "dataset.aspect=appearance" in mgr.overrides
    assert mgr.overrides[-1] == "seeds=[0,1,2,3,4]"


def test_beer_keeps_a_published_settings_own_target_and_narrows_to_the_models_asked_for():
    cells = build_grid(suite("beer"), models=["fr", "rnp"], seeds=[3], overrides=["trainer.max_epochs=2"],
                       posthoc=[])
    assert [c.name for c in cells] == ["fr/appearance/S18.5", "fr/aroma/S15.6", "fr/palate/S12.4",
                                       "rnp/appearance/S18.5", "rnp/aroma/S15.6", "rnp/palate/S12.4"]
    fr, rnp = cells[1], cells[4]
    assert fr.experiment == "fr_beer_aroma" and target_of(fr) is None  # the authors' own 0.123 stays
    assert rnp.experiment is None and target_of(rnp) == 0.156
    # the user's overrides come after the suite's and the published setting's, the seeds last
    assert fr.overrides[-2:] == ["trainer.max_epochs=2", "seeds=[3]"]


def test_bad_grids_and_suites_are_refused_with_the_field_named():
    with pytest.raises(ConfigError, match="aspects: \\['taste'\\] not in suite beer"):
        build_grid(suite("beer"), aspects=["taste"])
    with pytest.raises(ConfigError, match="models: unknown \\['nope'\\]"):
        build_grid(suite("beer"), models=["nope"])
    with pytest.raises(ConfigError, match="seeds: expected distinct"):
        build_grid(suite("beer"), seeds=[1, 1])
    with pytest.raises(ConfigError, match="posthoc: unknown \\['shap'\\]"):
        build_grid(suite("beer"), posthoc=["shap"])
    base = {"name": "x", "dataset": "beer", "aspects": {"aroma": [{"label": "S10", "target": 0.1}]}}
    with pytest.raises(ConfigError, match="suite x .*: levels: unknown field"):
        suite_from_config({**base, "levels": []})
    with pytest.raises(ConfigError, match="aspects.aroma: level .*target must be in \\(0, 1\\)"):
        suite_from_config({**base, "aspects": {"aroma": [{"label": "S10", "target": 10}]}})
    with pytest.raises(ConfigError, match="published_target: expected keep or level"):
        suite_from_config({**base, "published_target": "mine"})


def test_arguments_are_split_into_the_grid_the_cells_and_the_launcher():
    grid, cells, launcher, launcher_overrides, flags = split_arguments(
        ["suite=beer", "models=[fr]", "data_dir=/d", "embeddings.path=g.txt", "hydra/launcher=slurm",
         "hydra.launcher.partition=gpu", "--list"])
    assert grid == ["suite=beer", "models=[fr]"] and cells == ["dataset.data_dir=/d", "embeddings.path=g.txt"]
    assert launcher == "slurm" and launcher_overrides == ["hydra.launcher.partition=gpu"] and flags == {"--list"}


def test_list_prints_every_cell_and_its_command(capsys, tmp_path):
    assert main(["suite=beer_correlated", "models=[mgr,fr]", "posthoc=[lime]", f"out={tmp_path}",
                 "data_dir=/data/beer", "--list"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == f"21 cells, 105 runs (cells × seeds) below {tmp_path}"
    commands = [line.strip() for line in text.splitlines() if line.startswith("    python scripts/train.py")]
    assert len(commands) == 21 and not list(tmp_path.iterdir())  # nothing trained, nothing written
    explained = [line.strip() for line in text.splitlines() if line.startswith("    python scripts/explain.py")]
    assert len(explained) == 9 and explained[0] == (
        f"python scripts/explain.py {tmp_path}/classifier/appearance method=lime rate=0.1 tag=S10 "
        "infidelity_samples=0 sensitivity_samples=0")
    assert commands[0] == ("python scripts/train.py model=mgr experiment=mgr_beer_correlated_appearance dataset=beer "
                           "dataset.variant=correlated dataset.max_length=256 dataset.aspect=appearance "
                           f"{SPARSITY_TARGET}=0.083 dataset.data_dir=/data/beer 'seeds=[0,1,2,3,4]' "
                           f"hydra.run.dir={tmp_path}/mgr/appearance/S10")


def test_unknown_option_is_refused(capsys):
    assert main(["--nope"]) == 2
    assert "--nope" in capsys.readouterr().err
