"""Fixtures of the transformer tests: a tiny BERT directory and its tokenizer.

A module with its own name rather than conftest.py (several test folders
have one, and ``import conftest`` must stay unambiguous); tests import the
fixtures they use.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tiny_bert import write_tiny_bert


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("models") / "tiny-bert")


@pytest.fixture(scope="session")
def tiny_tokenizer(tiny_bert: Path):
    from pyhighlights.data.subword import load_tokenizer

    return load_tokenizer(tiny_bert)
