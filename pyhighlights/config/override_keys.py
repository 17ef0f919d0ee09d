"""Refuse an override of a field that does not exist, in one line naming the fields that do.

Hydra refuses ``model.selector.temprature=0.5`` with "Could not override ...
Key 'temprature' is not in struct" and a hint about stack traces. Before
Hydra runs, we compose the config from the group choices alone (from the
cached schemas, without torch) and look up the key of every field override
in it; the first missing one is refused naming the fields of its parent and
the closest of them, when one is close.
"""
from __future__ import annotations

import contextlib
import difflib
import io
from collections.abc import Sequence

from omegaconf import DictConfig, OmegaConf

from pyhighlights.config.errors import ConfigError
from pyhighlights.config.files import CONFIG_DIR


def _is_group(key: str, groups: dict[str, str]) -> bool:
    return key in groups or "/" in key or key.split(".")[0] == "hydra" or (CONFIG_DIR / key).is_dir()


def _unknown_key(cfg: DictConfig, key: str, groups: dict[str, str]) -> str | None:
    """The message for ``key`` when ``cfg`` has no such field (None when it has, or accepts any key there)."""
    node, path = cfg, []
    for part in key.split("."):
        if not isinstance(node, DictConfig) or not OmegaConf.is_struct(node):
            return None  # a list, a value, or an open section (the trainer takes any Lightning argument)
        if part not in node:
            where = ".".join(path)
            kind = groups.get(where.replace(".", "/")) if where else None
            fields = sorted(str(name) for name in node.keys() if not (kind and name == "name"))
            owner = (f"{kind} {node['name']!r}" if kind and "name" in node else where) if where else "the config"
            close = difflib.get_close_matches(part, fields, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            return f"{key}: unknown field of {owner}; fields: {', '.join(fields)}{hint}"
        node, path = node._get_node(part), [*path, part]  # the node itself: no interpolation resolved
    return None


def check_override_keys(arguments: Sequence[str]) -> None:
    """Raise :class:`ConfigError` for the first override (``key=value``, no ``+``) of a missing field.

    ``arguments`` are a command line for Hydra (flags included); a command line
    Hydra itself will refuse for another reason is left to Hydra.
    """
    from hydra._internal.utils import get_args_parser
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    from pyhighlights.config.compose import compose_config
    from pyhighlights.config.hydra_schema import part_groups

    try:
        with contextlib.redirect_stderr(io.StringIO()):  # Hydra reports a bad command line itself
            args = get_args_parser().parse_args(list(arguments))
        parsed = OverridesParser.create().parse_overrides(args.overrides)
    except (SystemExit, HydraException):
        return
    if args.config_name or args.config_path or args.config_dir:
        return  # another primary config: not ours to check
    groups = part_groups()
    plain = [o for o in parsed if o.type.name == "CHANGE" and o.package is None
             and not o.key_or_group.startswith("hydra.") and not _is_group(o.key_or_group, groups)]
    if not plain or any(o.is_sweep_override() and o not in plain for o in parsed):
        return  # a sweep over groups: the fields depend on the job
    try:
        cfg = compose_config([o.input_line for o in parsed if o not in plain])
    except HydraException:
        return  # refused without the field overrides too: Hydra says why
    for override in plain:
        message = _unknown_key(cfg, override.key_or_group, groups)
        if message:
            raise ConfigError(message)
