"""Paths of the hand-written corpus fixtures and helpers to write broken copies (test helpers)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HOTEL = FIXTURES / "hotel"
MOVIES = FIXTURES / "movies"
HATEXPLAIN = FIXTURES / "hatexplain"


def copy_fixture(source: Path, tmp_path: Path) -> Path:
    """A writable copy of a fixture directory."""
    target = tmp_path / source.name
    shutil.copytree(source, target)
    return target


def append_line(path: Path, line: str) -> int:
    """Append ``line``; return its 1-based line number."""
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text += "\n"
    path.write_text(text + line + "\n", encoding="utf-8")
    return text.count("\n") + 1


def rewrite_json(path: Path, change) -> None:
    """Load a JSON file, apply ``change`` to it, write it back indented (as the release is)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")
