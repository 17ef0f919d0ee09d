"""The registered dataset sources: validation, building, manifest files, Hydra config files."""
from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir

from corpora_fixtures import HATEXPLAIN, HOTEL, MOVIES
from pyhighlights.cli.common import CONFIG_DIR
from pyhighlights.config.hydra_schema import register_schemas
from pyhighlights.config.resolve import ConfigError, build, validate


@pytest.mark.parametrize("name, data_dir, train", [("hotel", HOTEL, 16), ("movies", MOVIES, 6),
                                                   ("hatexplain", HATEXPLAIN, 4)])
def test_sources_load_their_fixture(name: str, data_dir, train: int) -> None:
    source = build("dataset", {"name": name, "data_dir": str(data_dir)})
    corpus = source.load()
    assert len(corpus.train) == train
    assert "leakage" in corpus.info and isinstance(corpus.info["leakage"]["removed_shared"], bool)
    read = {str(p) for p in corpus.info["files"].values()}
    listed = {str(p) for p in source.files()}
    assert read <= listed


def test_hotel_files_are_only_the_aspect_read() -> None:
    files = build("dataset", {"name": "hotel", "data_dir": str(HOTEL), "aspect": "service"}).files()
    assert sorted(p.name for p in files) == ["hotel_Service.dev", "hotel_Service.train", "hotel_Service.train"]


def test_leakage_defaults_are_stated() -> None:
    defaults = {name: validate("dataset", {"name": name}, "dataset")["remove_leakage"]
                for name in ("hotel", "beer_r2a", "hatexplain", "movies", "beer")}
    assert defaults == {"hotel": True, "beer_r2a": True, "hatexplain": True, "movies": False, "beer": False}


def test_missing_data_dir_and_bad_aspect_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="dataset.data_dir: required for dataset=movies"):
        build("dataset", {"name": "movies"}).load()
    with pytest.raises(ConfigError, match="dataset.aspect: unknown hotel aspect 'rooms'"):
        build("dataset", {"name": "hotel", "data_dir": str(HOTEL), "aspect": "rooms"}).load()


def test_hydra_overrides_reach_the_hotel_source() -> None:
    register_schemas()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        for aspect, expected in (("cleanliness", "hotel/Cleanliness"), ("1", "hotel/Service")):
            cfg = compose(config_name="train", overrides=["dataset=hotel", f"dataset.data_dir={HOTEL}",
                                                          f"dataset.aspect={aspect}"])
            spec = validate("dataset", dict(cfg.dataset), "dataset")
            assert build("dataset", spec).load().name == expected
        for name in ("movies", "hatexplain", "beer_r2a"):
            assert compose(config_name="train", overrides=[f"dataset={name}"]).dataset.name == name


EXPERIMENT = """# @package _global_
defaults:
  - override /dataset: hotel
  - override /model: grat
dataset:
  aspect: {aspect}
model:
  lr: 2.0e-4
trainer:
  max_epochs: 300
"""


def _hotel_experiment_specs(config_dir, name: str):
    from pyhighlights.training.run import resolve_specs

    register_schemas()
    with initialize_config_dir(config_dir=str(config_dir), version_base="1.3"):
        cfg = compose(config_name="train", overrides=[f"experiment={name}", f"dataset.data_dir={HOTEL}"])
    return resolve_specs(cfg)


@pytest.mark.parametrize("aspect, expected", [(0, "hotel/Location"), ("service", "hotel/Service"),
                                              ("Cleanliness", "hotel/Cleanliness")])
def test_an_experiment_that_sets_dataset_hotel_and_its_aspect(tmp_path, aspect, expected) -> None:
    """The shape of the G-RAT hotel experiment configs: dataset=hotel, an aspect by index or name."""
    import shutil

    config_dir = tmp_path / "configs"
    shutil.copytree(CONFIG_DIR, config_dir)
    (config_dir / "experiment" / "hotel_probe.yaml").write_text(EXPERIMENT.format(aspect=aspect))
    specs = _hotel_experiment_specs(config_dir, "hotel_probe")
    assert specs.model["name"] == "grat" and specs.trainer["max_epochs"] == 300
    assert build("dataset", specs.dataset).load().name == expected


@pytest.mark.parametrize("name", sorted(p.stem for p in (CONFIG_DIR / "experiment").glob("grat_hotel_*.yaml")))
def test_grat_hotel_experiments_load_hotel_format_data(name: str) -> None:
    specs = _hotel_experiment_specs(CONFIG_DIR, name)
    assert specs.dataset["name"] == "hotel" and specs.model["name"] == "grat"
    assert build("dataset", specs.dataset).load().name.startswith("hotel/")


def test_beer_in_the_r2a_layout(tmp_path) -> None:
    header, rows = "label\ttext", ["1\tsmells of citrus", "0\tsmells of cardboard", "1\tfloral nose"]
    (tmp_path / "annotations").mkdir()
    (tmp_path / "beer_Aroma.train").write_text("\n".join([header, *rows]) + "\n")
    (tmp_path / "beer_Aroma.dev").write_text("\n".join([header, "0\tno nose", "1\tpine nose"]) + "\n")
    (tmp_path / "annotations" / "beer_Aroma.train").write_text("label\ttext\trationale\n1\tcitrus nose\t1 1\n")
    corpus = build("dataset", {"name": "beer_r2a", "data_dir": str(tmp_path), "aspect": "aroma"}).load()
    assert corpus.name == "beer_r2a/Aroma" and corpus.test[0].highlights == [1, 1]
    assert corpus.info["splits"]["train"]["label_counts"] == [1, 1]  # balanced by default
    with pytest.raises(ConfigError, match="unknown R2A beer aspect 'taste'"):
        build("dataset", {"name": "beer_r2a", "data_dir": str(tmp_path), "aspect": "taste"}).load()
