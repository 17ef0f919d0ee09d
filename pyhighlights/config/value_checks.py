"""Check a composed config's values from the cached schemas, without the registry (``--cfg job``).

Training validates every part against its cinnamon configuration; ``--cfg job``
must refuse what training refuses, but reads only the cached schemas (no torch,
no cinnamon). The catalogue caches, for every plain field of every part, its
type and pydantic constraints as data (:func:`field_checks`); here each part is
rebuilt as a plain pydantic model of those fields and the composed config is
checked part by part, in the order training validates them (a part's slots
before its own fields), so the first bad value gives the one-line message
training gives. Conditions across fields and the loss wiring are left to
training, which checks them before anything is built.
"""
from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Literal

from pyhighlights.config.errors import ConfigError, describe_errors

#: The pydantic constraints a field may carry (``Param(ge=..., allow_inf_nan=False, pattern=...)``).
CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern", "allow_inf_nan",
               "strict")
_NAMES = {"float": float, "int": int, "str": str, "bool": bool, "None": None, "list": list, "dict": dict,
          "tuple": tuple, "Literal": Literal}


def annotation_text(annotation: Any) -> str | None:
    """An annotation as text :func:`annotation_of` reads back; None for one it cannot (a class of ours)."""
    if annotation is type(None):
        return "None"
    if annotation in (float, int, str, bool):
        return annotation.__name__
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return f"Literal[{', '.join(repr(arg) for arg in args)}]"
    if origin in (typing.Union, types.UnionType):
        texts = [annotation_text(arg) for arg in args]
        return None if None in texts else " | ".join(texts)
    if origin in (list, dict, tuple):
        texts = [annotation_text(arg) for arg in args]
        return None if None in texts else f"{origin.__name__}[{', '.join(texts)}]"
    return None


def annotation_of(text: str) -> Any:
    return eval(text, {"__builtins__": {}}, _NAMES)  # noqa: S307 - our own cache, written by annotation_text


def field_checks(info) -> dict[str, Any] | None:
    """A pydantic field's type and constraints as JSON data (None: not checkable from the cache)."""
    text = annotation_text(info.annotation)
    if text is None:
        return None
    constraints: dict[str, Any] = {}
    for item in info.metadata:
        values = dataclasses.asdict(item) if dataclasses.is_dataclass(item) else dict(getattr(item, "__dict__", {}))
        constraints.update({key: value for key, value in values.items() if key in CONSTRAINTS and value is not None})
    return {"annotation": text, "constraints": constraints}


@lru_cache(maxsize=None)
def _model(fields: tuple[tuple[str, str, tuple[tuple[str, Any], ...]], ...]):
    import pydantic

    definitions = {name: (typing.Annotated[annotation_of(text), pydantic.Field(**dict(constraints))], None)
                   for name, text, constraints in fields}
    return pydantic.create_model("CachedChecks", **definitions)


def check_part(entry: Mapping[str, Any], node: Mapping[str, Any], path: str) -> None:
    """Raise :class:`ConfigError` for the plain fields of ``node`` that ``entry``'s cached checks refuse."""
    import pydantic

    checks = entry.get("checks", {})
    given = {name: node[name] for name in checks if name in node}
    if not given:
        return
    key = tuple((name, checks[name]["annotation"], tuple(sorted(checks[name]["constraints"].items())))
                for name in given)
    try:
        _model(key)(**given)
    except pydantic.ValidationError as error:
        errors = error.errors()
        allowed = {name: checks[name]["allowed"] for name in checks}
        raise ConfigError(describe_errors(errors, path, allowed)) from None


def check_node(known, kind: str, node: Any, path: str) -> None:
    """Check one part and, first, the parts in its slots (as training validates them)."""
    if not isinstance(node, Mapping) or "name" not in node:
        return
    try:
        entry = known.entry(kind, str(node["name"]))
    except KeyError:
        return  # training names the unknown part
    nested: dict[str, dict[str, Any]] = {}
    for slot, key in entry["slots"].items():
        field, _, label = slot.partition(".")
        nested.setdefault(field, {})[label] = key
    for field in entry["fields"]:
        for label, key in nested.get(field, {}).items():
            child = node.get(field)
            if label:
                child = child.get(label) if isinstance(child, Mapping) else None
            if key is not None and child is not None:
                child_kind = key[0]
                check_node(known, child_kind, child, f"{path}.{field}.{label}" if label else f"{path}.{field}")
    check_part(entry, node, path)


def check_values(config: Mapping[str, Any], sections: tuple[str, ...]) -> None:
    """Check every section of a composed config (a plain container, interpolations resolved)."""
    from pyhighlights.config.catalogue import catalogue

    known = catalogue()
    for section in sections:
        check_node(known, section, config.get(section), section)


#: The sections a composed training config holds parts in (training validates them all).
SECTIONS = ("dataset", "model", "backbone", "embeddings", "trainer")


def check_printed_config(arguments: list[str]) -> None:
    """For ``--cfg job`` (and ``--cfg all``): refuse a value training would refuse, before Hydra prints it.

    ``arguments``: the command line for Hydra. Without ``--cfg``, or with a sweep, nothing is checked here.
    """
    import contextlib
    import io

    from hydra._internal.utils import get_args_parser
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from pyhighlights.config.compose import compose_config

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            args = get_args_parser().parse_args(list(arguments))
        parsed = OverridesParser.create().parse_overrides(args.overrides)
    except (SystemExit, HydraException):
        return
    if args.cfg not in ("job", "all") or args.config_name or args.config_path or args.config_dir \
            or any(o.is_sweep_override() for o in parsed):
        return
    try:
        config = OmegaConf.to_container(compose_config(args.overrides), resolve=True)
    except (HydraException, OmegaConfBaseException):
        return  # Hydra says why when it composes
    check_values(config, SECTIONS)
