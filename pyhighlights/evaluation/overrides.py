"""``key=value`` command-line arguments, Hydra style, for the evaluation scripts.

Values are read as YAML scalars (``true``, ``0.5``, ``null``, ``[1, 2]``), so
``overwrite=true`` is a bool and ``rate=0.15`` a float; anything else stays a
string. Dotted keys (``dataset.data_dir=...``) address one section.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import yaml


class ArgumentError(ValueError):
    """A malformed or unknown ``key=value`` argument."""


def parse_value(text: str) -> Any:
    try:
        return yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError:
        return text


def parse_overrides(arguments: Iterable[str], allowed: Iterable[str]) -> dict[str, Any]:
    """``["split=test", "dataset.aspect=1"]`` -> ``{"split": "test", "dataset.aspect": 1}``.

    A key is accepted when it equals one of ``allowed`` or starts with
    ``<allowed>.`` (a section such as ``dataset`` takes any dotted field; the
    fields are checked later against the registered configuration).
    """
    allowed = tuple(allowed)
    out: dict[str, Any] = {}
    for argument in arguments:
        key, sep, value = argument.partition("=")
        key = key.strip().lstrip("+")
        if not sep or not key:
            raise ArgumentError(f"{argument!r}: expected key=value")
        if not any(key == name or key.startswith(name + ".") for name in allowed):
            raise ArgumentError(f"{key}: unknown argument; expected one of {', '.join(allowed)}")
        if key in out:
            raise ArgumentError(f"{key}: given twice")
        out[key] = parse_value(value)
    return out


def section(overrides: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The fields given for section ``name``: ``{"dataset.aspect": 1}`` -> ``{"aspect": 1}``.

    ``name=<value>`` itself (``dataset=beer``) becomes ``{"name": <value>}``.
    Nested dots (``a.b.c=1``) become nested dicts.
    """
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        if key == name:
            out["name"] = value
        elif key.startswith(name + "."):
            *parents, leaf = key[len(name) + 1:].split(".")
            node = out
            for parent in parents:
                node = node.setdefault(parent, {})
            node[leaf] = value
    return out
