"""The G-RAT schedule: refused when the rationaliser would never train; chosen by corpus, and logged."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from forked_scripts import run_script

from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import ConfigError
from pyhighlights.training.run import resolve_specs, run
from pyhighlights.training.warmup import check_warmup

ROOT = Path(__file__).resolve().parents[2]


def specs(*overrides):
    return resolve_specs(compose_config(list(overrides)))


@pytest.mark.parametrize("pretrain, epochs", [(10, 2), (10, 10), (3, 3), (0, 1)])
def test_warmup_filling_the_run_is_refused_and_names_both_fields(pretrain, epochs):
    s = specs("model=grat", f"model.pretrain_epochs={pretrain}", f"trainer.max_epochs={epochs}")
    if pretrain >= epochs:
        with pytest.raises(ConfigError, match=r"model\.pretrain_epochs=.*trainer\.max_epochs="):
            check_warmup(s.model, s.trainer)
    else:
        check_warmup(s.model, s.trainer)


def test_models_without_warmup_are_not_checked():
    s = specs("model=rnp", "trainer.max_epochs=1")
    check_warmup(s.model, s.trainer)


def test_refused_before_anything_is_built(tmp_path):
    cfg = compose_config(["model=grat", "trainer.max_epochs=2"])
    with pytest.raises(ConfigError):
        run(cfg, tmp_path / "run")
    assert not (tmp_path / "run").exists()  # no run directory claimed, no corpus loaded


def test_cli_exits_2_with_one_line(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HYDRA_FULL_ERROR": "0"}
    result = run_script("train.py", "model=grat", "trainer.max_epochs=2", f"hydra.run.dir={tmp_path / 'run'}",
                        env=env, cwd=ROOT, timeout=300)
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "model.pretrain_epochs" in errors[0] and "trainer.max_epochs" in errors[0]


def test_schedule_follows_the_corpus():
    quick = specs("model=grat")  # the embedded corpus
    assert (quick.model["pretrain_epochs"], quick.trainer["max_epochs"], quick.trainer["batch_size"]) == (2, 9, 32)
    beer = specs("model=grat", "dataset=beer", "dataset.aspect=palate")  # script/beer/guide/a2.sh
    assert (beer.model["pretrain_epochs"], beer.trainer["max_epochs"], beer.trainer["batch_size"]) == (10, 100, 64)
    hotel = specs("model=grat", "dataset=hotel", "dataset.aspect=cleanliness")  # script/hotel/guide/a2.sh
    assert (hotel.trainer["max_epochs"], hotel.model["lr"], hotel.trainer["selection"]) == (75, 1e-4, "accuracy_in_band")
    other = specs("model=grat", "dataset=movies")  # run_guide.py defaults
    assert (other.model["pretrain_epochs"], other.trainer["max_epochs"], other.trainer["batch_size"]) == (10, 300, 256)
    # The command line still wins over a preset.
    assert specs("model=grat", "trainer.max_epochs=12").trainer["max_epochs"] == 12


def test_schedule_note_says_which_and_why():
    assert "embedded synthetic corpus" in compose_config(["model=grat"]).schedule
    note = compose_config(["model=grat", "dataset=hotel", "dataset.aspect=service"]).schedule
    assert "Hotel aspect service" in note and "100 epochs" in note


def test_schedule_note_gives_the_numbers_the_run_uses():
    note = compose_config(["model=grat", "model.pretrain_epochs=1", "trainer.max_epochs=5"]).schedule
    assert "5 epochs, guider alone for the first 1," in note
    assert "guider alone for the first 2," in compose_config(["model=grat"]).schedule
    assert "guider alone for the first 4" in compose_config(["model=grat", "dataset=beer", "dataset.aspect=aroma",
                                                              "model.pretrain_epochs=4"]).schedule
