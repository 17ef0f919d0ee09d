"""Plugins: a package that declares a ``pyhighlights.registrations`` entry point adds its parts to the CLI.

Installing a package with pip only puts its modules and a ``<name>-<version>.dist-info`` folder (holding
``entry_points.txt``) on the path; the tests write that folder themselves, next to
tests/fixtures/example_plugin on ``PYTHONPATH``, which is what an installed copy looks like to
``importlib.metadata`` without the minutes of building and installing it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from importlib.metadata import distributions
from pathlib import Path

import pytest
from plugin_helpers import train_with_plugin, write_dist_info

from pyhighlights import plugins, registry
from pyhighlights.testing import tiny_overrides

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests" / "fixtures" / "example_plugin"


def script(tmp_path: Path, site: Path, *arguments: str, cache: Path) -> subprocess.CompletedProcess:
    """``python scripts/train.py *arguments`` with the plugin installed as far as Python can tell."""
    return train_with_plugin(tmp_path, [str(site), str(EXAMPLE)], *arguments, cache=cache)


def test_the_example_plugin_model_is_offered_composed_and_trained(tmp_path, tiny_beer_dir):
    # A schema cache as a run without the plugin leaves it: installing the plugin must not reuse it.
    from pyhighlights.config import catalogue

    registry.load_registrations()
    cache = tmp_path / "cache"
    os.environ["PYHIGHLIGHTS_CACHE"] = str(cache)
    try:
        catalogue._write(catalogue.cache_file(), catalogue.catalogue().entries)
    finally:
        del os.environ["PYHIGHLIGHTS_CACHE"]
    assert "example_plugin_model" not in json.dumps(catalogue.catalogue().entries)
    site = tmp_path / "site"
    write_dist_info(site, "pyhighlights-example-plugin", "0.1.0", {"example_plugin": "example_plugin.registrations"})

    shown = script(tmp_path, site, "--help", cache=cache)
    assert shown.returncode == 0, shown.stderr[-3000:]
    models = next(line for line in shown.stdout.splitlines() if line.strip().startswith("model:"))
    assert "example_plugin_model" in models and "rnp" in models
    assert len(list(cache.glob("schemas-*.json"))) == 2  # the plugin's schemas are a new file, not the old one

    run_dir = tmp_path / "run"
    trained = script(tmp_path, site, *tiny_overrides(tiny_beer_dir), "model=example_plugin_model",
                     f"hydra.run.dir={run_dir}", cache=cache)
    assert trained.returncode == 0, trained.stderr[-3000:]
    parameters = json.loads((run_dir / "manifest.json").read_text())["parameters"]
    assert parameters["model"]["name"] == "example_plugin_model"
    assert parameters["model"]["losses"]["sparsity"]["weight"] == 4.0  # the plugin's default, not RNP's 2.0
    assert json.loads((run_dir / "status.json").read_text())["state"] == "finished"
    assert "test/accuracy" in json.loads((run_dir / "results.json").read_text())["summary"]


def _entry_point(site: Path, name: str):
    (point,) = [point for dist in distributions(path=[str(site)]) for point in dist.entry_points if point.name == name]
    return point


@pytest.mark.parametrize("source, reason", [
    ("import example_plugin_missing_dependency\n",
     "ModuleNotFoundError: No module named 'example_plugin_missing_dependency'"),
    ("from pyhighlights.models.rnp import RNP, RNPConfig\nfrom pyhighlights.registry import register\n"
     "register('model', 'rnp', RNPConfig, RNP)\n",
     "RegistrationError: model 'rnp' is already registered by pyhighlights.models.rnp.RNP"),
])
def test_a_broken_plugin_is_refused_naming_its_entry_point_and_distribution(tmp_path, monkeypatch, source, reason):
    registry.load_registrations()
    site = tmp_path / "site"
    write_dist_info(site, "broken-plugin", "2.3", {"broken": "broken_plugin_registrations"})
    (site / "broken_plugin_registrations.py").write_text(source)
    monkeypatch.syspath_prepend(str(site))
    before = {(item.kind, item.name) for item in registry.entries()}
    with pytest.raises(plugins.PluginError) as refused:
        plugins.load(_entry_point(site, "broken"))
    assert str(refused.value) == (f"plugin entry point broken = 'broken_plugin_registrations' of broken-plugin 2.3 "
                                  f"(group {plugins.GROUP}): {reason}")
    assert {(item.kind, item.name) for item in registry.entries()} == before


def test_the_command_line_says_which_plugin_broke_in_one_line(tmp_path):
    site = tmp_path / "site"
    write_dist_info(site, "broken-plugin", "2.3", {"broken": "broken_plugin_registrations"})
    (site / "broken_plugin_registrations.py").write_text("import example_plugin_missing_dependency\n")
    done = script(tmp_path, site, "--help", cache=tmp_path / "cache")
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: plugin entry point broken = 'broken_plugin_registrations' of broken-plugin "
                                   f"2.3 (group {plugins.GROUP}): ModuleNotFoundError: No module named "
                                   "'example_plugin_missing_dependency'"), done.stderr[-3000:]


def test_the_project_s_own_entry_point_is_not_loaded_twice(tmp_path, monkeypatch):
    """An installed copy declares pyhighlights.registrations as an entry point too; it is imported directly,
    so a source checkout without (current) metadata has it as well, and it is not a plugin."""
    site = tmp_path / "site"
    write_dist_info(site, "pyhighlights", "0.1.0", {"pyhighlights": plugins.BUILTIN})
    write_dist_info(site, "pyhighlights-example-plugin", "0.1.0", {"example_plugin": "example_plugin.registrations"})
    monkeypatch.syspath_prepend(str(site))
    assert [point.value for point in plugins.plugin_entry_points()] == ["example_plugin.registrations"]
    assert "pyhighlights.registrations.models" in plugins.builtin_modules()


def test_the_schema_cache_key_follows_a_plugin_s_version_and_sources(tmp_path, monkeypatch):
    from pyhighlights.config import catalogue

    def key(site: Path) -> str:
        catalogue.source_digest.cache_clear()
        with monkeypatch.context() as patch:
            patch.syspath_prepend(str(site))
            return catalogue.source_digest()

    site = tmp_path / "site"
    site.mkdir()
    try:
        keys = [key(site)]
        for version, body in (("0.1.0", "X = 1\n"), ("0.2.0", "X = 1\n"), ("0.2.0", "X = 2\n")):
            shutil.rmtree(site)  # one place, as an upgrade in place leaves it
            write_dist_info(site, "digest-plugin", version, {"digest": "digest_plugin.registrations"})
            (site / "digest_plugin").mkdir()
            (site / "digest_plugin" / "registrations.py").write_text(body)
            keys.append(key(site))
        keys.append(key(site))
        assert len(set(keys[:4])) == 4 and keys[4] == keys[3], keys  # installed, upgraded, edited; then stable
    finally:
        catalogue.source_digest.cache_clear()
