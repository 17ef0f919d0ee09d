"""Start-up without torch: --help, --cfg job and a refused field name read the cached schemas only.

Each command runs in a fresh interpreter (not a fork of the test helper, which has imported everything)
with a schema cache written beforehand from this process's registry, and reports which heavy modules it
imported. Nothing here is timed: what makes start-up slow is importing torch and Lightning, so the tests
check that those imports do not happen.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyhighlights.config import catalogue

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "lightning", "torchmetrics", "pyhighlights.models.base", "cinnamon")

# Runs the train command in this interpreter with the given arguments, then writes what it imported.
PROBE = """
import json, sys
arguments, report, watched = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
sys.argv = ["train.py", *arguments]
code = 0
try:
    from pyhighlights.cli.train import main
    main()
except SystemExit as stop:
    code = stop.code
heavy = [name for name in watched if name in sys.modules]
open(report, "w").write(json.dumps({"code": code, "heavy": heavy}))
"""


@pytest.fixture(scope="module")
def seeded_cache(tmp_path_factory):
    """A schema cache written from the registry this process loaded (so no probe has to build it)."""
    from pyhighlights.registry import load_registrations

    load_registrations()
    directory = tmp_path_factory.mktemp("schema_cache")
    previous = os.environ.get("PYHIGHLIGHTS_CACHE")
    os.environ["PYHIGHLIGHTS_CACHE"] = str(directory)
    try:
        catalogue._write(catalogue.cache_file(), catalogue.catalogue().entries)  # live: the registry is loaded
    finally:
        os.environ.pop("PYHIGHLIGHTS_CACHE") if previous is None else os.environ.update(PYHIGHLIGHTS_CACHE=previous)
    return directory


def probe(cache: Path, tmp_path: Path, *arguments: str) -> tuple[dict, subprocess.CompletedProcess]:
    report = tmp_path / "report.json"
    env = {**os.environ, "PYHIGHLIGHTS_CACHE": str(cache), "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(arguments), str(report), json.dumps(HEAVY)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert report.exists(), done.stderr[-3000:]
    return json.loads(report.read_text()), done


@pytest.mark.parametrize("arguments, code", [
    (("--help",), 0),
    (("--cfg", "job", "model=grat"), 0),
    (("model.selector.temprature=0.5",), 2),
    (("model=nosuchmodel",), 2),
])
def test_these_commands_answer_without_importing_torch(seeded_cache, tmp_path, arguments, code):
    report, done = probe(seeded_cache, tmp_path, *arguments)
    assert report == {"code": code, "heavy": []}, done.stderr[-3000:]
    assert not (tmp_path / "outputs").exists()


def test_cfg_job_from_the_cache_is_the_config_the_registry_gives(seeded_cache, tmp_path):
    """The cached schemas compose to exactly what the live registry composes to (same YAML)."""
    from pyhighlights.config.compose import compose_config
    from omegaconf import OmegaConf

    report, done = probe(seeded_cache, tmp_path, "--cfg", "job", "model=grat", "model/guider=additive")
    assert report["heavy"] == []
    live = OmegaConf.to_yaml(compose_config(["model=grat", "model/guider=additive"]))
    assert done.stdout.strip() == live.strip()



@pytest.mark.parametrize("overrides, spec", [
    (("model.losses.sparsity.weight=-1",), ("model", {"name": "rnp", "losses": {"sparsity": {"weight": -1}}})),
    (("model.selector.dropout=1.5",), ("model", {"name": "rnp", "selector": {"dropout": 1.5}})),
    (("model=grat", "model.decay=-2"), ("model", {"name": "grat", "decay": -2})),
    (("model=mgr", "model.predictor_pool=all"), ("model", {"name": "mgr", "predictor_pool": "all"})),
    (("trainer.max_epochs=0",), None),
])
def test_cfg_job_refuses_what_training_refuses_with_the_same_line(seeded_cache, tmp_path, overrides, spec):
    """--cfg job checks the values it would print (from the cache, without torch); the message is the one
    training's validation gives for the same value."""
    from pyhighlights.config.resolve import ConfigError, validate

    report, done = probe(seeded_cache, tmp_path, "--cfg", "job", *overrides)
    assert report == {"code": 2, "heavy": []}, done.stderr[-3000:]
    assert done.stdout == ""  # nothing printed
    if spec is not None:
        with pytest.raises(ConfigError) as refused:
            validate(spec[0], spec[1], spec[0])
        assert done.stderr.strip().splitlines()[-1] == f"error: {refused.value}"
    else:
        assert done.stderr.strip().splitlines()[-1].startswith("error: trainer.max_epochs: Input should be greater")


def test_cfg_job_still_prints_a_config_with_good_values(seeded_cache, tmp_path):
    report, done = probe(seeded_cache, tmp_path, "--cfg", "job", "model.losses.sparsity.weight=0",
                         "model.selector.dropout=0.5")
    assert report == {"code": 0, "heavy": []}, done.stderr[-3000:]
    assert "dropout: 0.5" in done.stdout


def test_help_offers_the_slots_of_the_chosen_model_only(seeded_cache, tmp_path):
    report, done = probe(seeded_cache, tmp_path, "--help", "model=grat")
    assert report == {"code": 0, "heavy": []}, done.stderr[-3000:]
    assert "  model/guider: additive, reference\n" in done.stdout
    report, done = probe(seeded_cache, tmp_path, "--help")
    assert report == {"code": 0, "heavy": []} and "model/guider" not in done.stdout  # RNP has no guider
