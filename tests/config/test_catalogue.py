"""The schema cache: keyed by the source code, rebuilt when missing or unreadable, the same data as the registry."""
from __future__ import annotations

import json

import pytest

from pyhighlights.config import catalogue
from pyhighlights.registry import entries, load_registrations


@pytest.fixture
def cache(tmp_path, monkeypatch):
    load_registrations()
    monkeypatch.setenv("PYHIGHLIGHTS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(catalogue, "_registry_loaded", lambda: False)  # as in a fresh command-line process
    return tmp_path / "cache"


def test_the_cached_catalogue_holds_every_registered_entry(cache):
    built = catalogue.catalogue()  # no cache yet: built from the registry and written
    assert catalogue.cache_file().is_file()
    catalogue._CACHED.clear()  # as a new process would
    again = catalogue.catalogue()  # read back from the file
    assert again.entries == built.entries
    assert again.keys() == {(item.kind, item.name) for item in entries()}
    grat = again.entry("model", "grat")
    assert grat["slots"]["guider"] == ["guider", "reference"] and grat["schema"]["name"] == "grat"
    assert again.entry("trainer", "default")["open_keys"] is True


def test_an_unreadable_cache_file_is_rebuilt(cache):
    path = catalogue.cache_file()
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    catalogue._CACHED.clear()
    assert catalogue.catalogue().entry("model", "rnp")["name"] == "rnp"
    assert json.loads(path.read_text())["format"] == catalogue.FORMAT


def test_the_cache_key_changes_with_any_source_file(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(catalogue, "_package_dirs", lambda: [package])
    digests = []
    for text in ("x = 1\n", "x = 2\n"):
        (package / "sub" / "a.py").write_text(text)
        catalogue.source_digest.cache_clear()
        digests.append(catalogue.source_digest())
    (package / "b.py").write_text("")
    catalogue.source_digest.cache_clear()
    digests.append(catalogue.source_digest())
    catalogue.source_digest.cache_clear()
    assert len(set(digests)) == 3
