"""Validate a Hydra node against a registered cinnamon configuration, then build.

A node is a plain mapping ``{"name": <component name>, <param>: <value>, ...}``;
a dependency field (a ``RegistrationKey`` in the configuration) is a nested
node, or a mapping of nested nodes for a ``dict[str, RegistrationKey]`` field.
A configuration may set its children's defaults with a class attribute
``child_defaults = {"losses.sparsity": {"weight": 10.0}}`` (field, or
field.label for a dict field), so a model states its reference values once.
Validation returns the same shape with every parameter filled in and checked:
plain numbers and strings, never registration keys, so a spec can be pickled
to a spawned process or written to a manifest as it is.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import pydantic
from cinnamon.registry import RegistrationKey
from cinnamon.utility.dependencies import DependencyShape

from pyhighlights import registry

Spec = dict[str, Any]


class ConfigError(ValueError):
    """An override or configuration that names a bad field or value."""


def _shape(config, field_name: str) -> DependencyShape | None:
    return config.dependency_shape(field_name=field_name, field=config.fields[field_name])


_BOUNDS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}


def _describe_field(config, field_name: str) -> str:
    info = config.fields[field_name]
    annotation = info.annotation
    parts = [getattr(annotation, "__name__", str(annotation).replace("typing.", ""))]
    for constraint in info.metadata:
        for attribute, symbol in _BOUNDS.items():
            if getattr(constraint, attribute, None) is not None:
                parts.append(f"{symbol} {getattr(constraint, attribute)}")
        if getattr(constraint, "pattern", None):
            parts.append(f"matching {constraint.pattern}")
        if getattr(constraint, "allow_inf_nan", None) is False:
            parts.append("finite")
    parts.append(f"default {info.default!r}")
    return ", ".join(parts)


def validate(kind: str, node: Mapping[str, Any] | None, path: str) -> Spec:
    """Check ``node`` against the registered configuration of ``kind``; return the full spec."""
    node = dict(node or {})
    name = node.pop("name", None)
    if name is None:
        raise ConfigError(f"{path}.name: missing; available {kind}s: {', '.join(registry.available(kind))}")
    try:
        entry = registry.entry(kind, str(name))
    except KeyError as error:
        raise ConfigError(f"{path}.name: {error.args[0]}") from None
    config = registry.default_configuration(kind, entry.name)

    unknown = sorted(set(node) - set(config.fields))
    if unknown:
        raise ConfigError(
            f"{path}.{unknown[0]}: unknown field of {kind} {entry.name!r}; "
            f"fields: {', '.join(sorted(config.fields))}"
        )

    children: Spec = {}
    scalars: dict[str, Any] = {}
    for field_name in config.fields:
        shape = _shape(config, field_name)
        default = getattr(config, field_name)
        given = node.get(field_name)
        if shape is None:
            if field_name in node:
                scalars[field_name] = given
            continue
        preset = getattr(type(config), "child_defaults", {})
        if shape is DependencyShape.SCALAR:
            merged = {**preset.get(field_name, {}), **dict(given or {})}
            children[field_name] = _validate_child(default, merged, f"{path}.{field_name}")
        elif shape is DependencyShape.DICT:
            given = dict(given or {})
            merged = {label: {**preset.get(f"{field_name}.{label}", {}), **dict(given.get(label) or {})}
                      for label in set(default) | set(given)}
            children[field_name] = _validate_children(default, merged, f"{path}.{field_name}")
        else:
            raise ConfigError(f"{path}.{field_name}: list dependencies are not supported")

    try:
        # model_copy(update=...) re-validates and keeps the default's conditions;
        # pydantic warns while serialising a bad value before rejecting it.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            checked = config.model_copy(update={**scalars, **_keys_of(children, config)}, deep=True)
    except pydantic.ValidationError as error:
        raise ConfigError(_format_pydantic(error, path, config)) from None
    result = checked.validate_conditions(strict=False)
    if not result.passed:
        raise ConfigError(f"{path}: {result.error_message}")

    spec: Spec = {"name": entry.name}
    for field_name in config.fields:
        spec[field_name] = children[field_name] if field_name in children else getattr(checked, field_name)
    return spec


def _validate_child(default: RegistrationKey | None, given: Any, path: str) -> Spec | None:
    if default is None and given is None:
        return None
    kind = default.name if default is not None else None
    node = dict(given or {})
    if default is not None:
        node.setdefault("name", next(iter(default.tags)))
    if kind is None:
        raise ConfigError(f"{path}: cannot tell which kind of component this is")
    return validate(kind, node, path)


def _validate_children(default: Mapping[str, RegistrationKey], given: Any, path: str) -> Spec:
    given = dict(given or {})
    unknown = sorted(set(given) - set(default))
    if unknown:
        raise ConfigError(f"{path}.{unknown[0]}: unknown entry; entries: {', '.join(sorted(default))}")
    return {label: _validate_child(key, given.get(label), f"{path}.{label}") for label, key in default.items()}


def _keys_of(children: Spec, config) -> dict[str, Any]:
    """Registration keys standing for validated children, so the configuration type-checks."""
    out: dict[str, Any] = {}
    for field_name, child in children.items():
        if child is None:
            out[field_name] = None
        elif "name" in child and isinstance(getattr(config, field_name), RegistrationKey):
            out[field_name] = registry.registration_key(getattr(config, field_name).name, child["name"])
        else:
            out[field_name] = {
                label: registry.registration_key(getattr(config, field_name)[label].name, sub["name"])
                for label, sub in child.items()
            }
    return out


def _format_pydantic(error: pydantic.ValidationError, path: str, config) -> str:
    lines = []
    for item in error.errors():
        field_name = ".".join(str(part) for part in item["loc"])
        allowed = _describe_field(config, item["loc"][0]) if item["loc"] and item["loc"][0] in config.fields else ""
        lines.append(f"{path}.{field_name}: {item['msg']} (got {item.get('input')!r}; allowed: {allowed})")
    return "; ".join(lines)


def build(kind: str, spec: Mapping[str, Any], path: str | None = None, **runtime: Any) -> Any:
    """Validate ``spec`` and instantiate its component; children stay specs for the component to build."""
    checked = validate(kind, spec, path or kind)
    entry = registry.entry(kind, checked.pop("name"))
    return entry.component(**checked, **runtime)


def schema(kind: str, name: str) -> Spec:
    """The full default spec of a registered component, for Hydra's ConfigStore."""
    return validate(kind, {"name": name}, kind)
