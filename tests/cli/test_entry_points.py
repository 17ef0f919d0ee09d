"""The console commands of pyproject.toml are the functions the scripts/ wrappers call."""
from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_each_command_runs_the_function_its_script_calls():
    commands = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert set(commands) == {"pyhighlights-train", "pyhighlights-evaluate", "pyhighlights-explain",
                             "pyhighlights-report", "pyhighlights-benchmark"}
    for command, target in commands.items():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), command
        script = (ROOT / "scripts" / f"{command.removeprefix('pyhighlights-')}.py").read_text()
        assert f"from {module} import {function}" in script, command
