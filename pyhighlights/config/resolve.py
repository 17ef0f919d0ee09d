"""Validate a Hydra node against a registered cinnamon configuration, then build.

A node is a plain mapping ``{"name": <component name>, <param>: <value>, ...}``;
a dependency field (a ``RegistrationKey`` in the configuration) is a nested
node, or a mapping of nested nodes for a ``dict[str, RegistrationKey]`` field.
A configuration's part defaults (its ``defaults`` for a slot, see
:mod:`pyhighlights.registry`) fill the fields of the part in that slot that
the node leaves out. Validation returns the same shape with every parameter
filled in and checked: plain numbers and strings, never registration keys, so
a spec can be pickled to a spawned process or written to a manifest as it is.
The wiring is checked too: every loss term reads outputs the model produces,
and every field naming loss terms names terms the model has.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import pydantic
from cinnamon.registry import RegistrationKey
from cinnamon.utility.dependencies import DependencyShape

from pyhighlights import registry
from pyhighlights.config.errors import ConfigError, describe_errors

Spec = dict[str, Any]


def _shape(config, field_name: str) -> DependencyShape | None:
    return config.dependency_shape(field_name=field_name, field=config.fields[field_name])


_BOUNDS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}


def _describe_field(config, field_name: str) -> str:
    return describe_field(config.fields[field_name])


def describe_field(info) -> str:
    """What a field allows, for error messages: its type, bounds and default."""
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
    preset = type(config).part_defaults() if hasattr(type(config), "part_defaults") else {}
    for field_name in config.fields:
        shape = _shape(config, field_name)
        default = getattr(config, field_name)
        given = node.get(field_name)
        if shape is None:
            if field_name in node:
                scalars[field_name] = given
            continue
        if shape is DependencyShape.SCALAR:
            children[field_name] = _validate_child(default, preset.get(field_name, {}), given,
                                                   f"{path}.{field_name}")
        elif shape is DependencyShape.DICT:
            children[field_name] = _validate_children(default, preset, field_name, given, f"{path}.{field_name}")
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
    check_wiring(type(config), spec, path)
    return spec


#: The input fields of the divergence terms before their inputs were roles: the configurations recorded by runs
#: of earlier versions still name them, and those runs must stay resumable and evaluable.
FORMER_ROLE_FIELDS = {"logits": "p", "reference": "q"}


def _former_role_fields(configuration: type, node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with a divergence term's former ``logits``/``reference`` fields read as its roles ``p``/``q``."""
    roles = set(getattr(configuration, "roles", ()))
    if not {"p", "q"} <= roles or set(FORMER_ROLE_FIELDS) & set(configuration.model_fields):
        return node
    renamed = {FORMER_ROLE_FIELDS.get(field, field): value for field, value in node.items()}
    return renamed if len(renamed) == len(node) else node  # both spellings given: the unknown field is refused


def _validate_child(default: RegistrationKey | None, preset: Mapping[str, Any], given: Any, path: str) -> Spec | None:
    """The part in one slot: the given node over the slot's part defaults (those fields the chosen part has)."""
    if default is None and given is None:
        return None
    kind = default.name if default is not None else None
    if kind is None:
        raise ConfigError(f"{path}: cannot tell which kind of component this is")
    node = dict(given or {})
    if default is not None:
        node.setdefault("name", next(iter(default.tags)))
    try:
        configuration = registry.entry(kind, str(node["name"])).configuration
    except KeyError as error:
        raise ConfigError(f"{path}.name: {error.args[0]}") from None
    fields = configuration.model_fields
    if kind == "loss":  # before the slot's bindings are laid under it: a recorded term names both inputs
        node = _former_role_fields(configuration, node)
        if default is not None:
            _check_bound_roles(default, preset, configuration, str(node["name"]), path)
    return validate(kind, {**{k: v for k, v in preset.items() if k in fields}, **node}, path)


def _check_bound_roles(default: RegistrationKey, preset: Mapping[str, Any], configuration: type, name: str,
                       path: str) -> None:
    """A term put in a slot takes every input role the model binds there (a divergence slot binds ``p`` and
    ``q``): a term without them would silently drop the slot's wiring."""
    slot_roles = getattr(registry.entry(*registry.part_of(default)).configuration, "roles", ())
    bound = [role for role in slot_roles if role in preset]
    missing = [role for role in bound if role not in getattr(configuration, "roles", ())]
    if missing:
        wiring = ", ".join(f"{role}={preset[role]}" for role in bound)
        raise ConfigError(f"{path}: loss {name!r} has no input role {missing[0]!r}, which this slot binds "
                          f"({wiring}); choose a term with the roles {', '.join(bound)}")


def _validate_children(default: Mapping[str, RegistrationKey], preset: Mapping[str, Mapping[str, Any]],
                       field_name: str, given: Any, path: str) -> Spec:
    given = dict(given or {})
    unknown = sorted(set(given) - set(default))
    if unknown:
        raise ConfigError(f"{path}.{unknown[0]}: unknown entry; entries: {', '.join(sorted(default))}")
    return {label: _validate_child(key, preset.get(f"{field_name}.{label}", {}), given.get(label), f"{path}.{label}")
            for label, key in default.items()}


def check_wiring(configuration: type, spec: Spec, path: str) -> None:
    """Loss terms read only outputs the model produces; term-naming fields name terms the model has."""
    for loss_set, produced in getattr(configuration, "outputs", {}).items():
        for label, term in spec[loss_set].items():
            check_term(produced, term, spec["name"], f"{path}.{loss_set}.{label}")
    for field_name, loss_set in getattr(configuration, "term_fields", {}).items():
        value = spec[field_name]
        for name in [value] if isinstance(value, str) else value:
            if name not in spec[loss_set]:
                raise ConfigError(f"{path}.{field_name}: {name!r} is not a loss term of {path}.{loss_set}; "
                                  f"terms: {', '.join(spec[loss_set])}")


def check_term(produced: frozenset[str], term: Spec, model: str, path: str) -> None:
    """A validated loss term reads, in each of its roles, an output in ``produced`` (what ``model`` gives
    its field)."""
    outputs = ", ".join(sorted(produced))
    term_config = registry.entry("loss", term["name"]).configuration
    for role in getattr(term_config, "roles", ()):
        if term[role] in produced:
            continue
        where = f"{path}.{role}"
        # a role left at its own name is one the slot does not bind: say how to bind it
        hint = (f" (loss {term['name']!r} reads its {role!r} input from the output named here: "
                f"{where}=<output>)" if term[role] == role else "")
        raise ConfigError(f"{where}: {term[role]!r} is not an output of {model}{hint}; outputs: {outputs}")


def fitting_options(kind: str, name: str, slot: str) -> list[str]:
    """The parts that fit ``slot`` of component ``name`` as they come (their defaults over the slot's part
    defaults): of the slot's kind, and, in a field of loss terms, reading only what the component produces
    there, and taking every input role the slot binds. What ``--help`` offers for the slot."""
    configuration = registry.entry(kind, name).configuration
    key = configuration.slots()[slot]
    if key is None:
        return []
    field, _, label = slot.partition(".")
    produced = getattr(configuration, "outputs", {}).get(field)
    preset = configuration.part_defaults().get(slot, {})
    out = []
    for option in registry.available(key.name):
        try:
            part = _validate_child(key, preset, {"name": option}, f"{kind}.{slot}")
            if produced is not None:
                check_term(produced, part, name, f"{kind}.{slot}")
        except ConfigError:
            continue
        out.append(option)
    return out


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
    errors = error.errors()
    named = {str(item["loc"][0]) for item in errors if item["loc"] and item["loc"][0] in config.fields}
    return describe_errors(errors, path, {name: _describe_field(config, name) for name in named})


class Slots:
    """The validated parts of a component's dependency fields, built on request by field name.

    The field fixes the part's kind (its default key) and its path in the config, so a model writes
    ``self.build_slot("predictor", input_size=..., num_classes=...)`` and a field of loss terms builds to
    ``{label: term}``.
    """

    def __init__(self, configuration: type, specs: Mapping[str, Any], path: str):
        self.configuration, self.specs, self.path = configuration, dict(specs), path

    def __contains__(self, field: str) -> bool:
        return field in self.specs

    def spec(self, field: str) -> Any:
        """The validated spec of one slot (a mapping of specs for a field of several parts)."""
        try:
            return self.specs[field]
        except KeyError:
            raise KeyError(f"{self.path}.{field}: not a slot of {self.configuration.__name__}; slots: "
                           f"{', '.join(self.specs) or 'none'}") from None

    def build(self, field: str, **runtime: Any) -> Any:
        """The part in ``field`` (None for an empty slot), or ``{label: part}`` for a field of several."""
        spec, default = self.spec(field), self.configuration.model_fields[field].default
        if isinstance(default, RegistrationKey):
            return None if spec is None else build(default.name, spec, f"{self.path}.{field}", **runtime)
        return {label: build(default[label].name, part, f"{self.path}.{field}.{label}", **runtime)
                for label, part in spec.items() if part is not None}


def build(kind: str, spec: Mapping[str, Any], path: str | None = None, **runtime: Any) -> Any:
    """Validate ``spec`` and instantiate its component with its values and ``runtime``.

    The parts of its dependency fields stay specs for the component to build: a configured kind (models)
    receives them as one :class:`Slots`, another kind as one spec per field.
    """
    path = path or kind
    checked = validate(kind, spec, path)
    entry = registry.entry(kind, checked.pop("name"))
    if registry.declared(kind).configured:
        fields = {slot.split(".")[0] for slot in entry.configuration.slots()}
        slots = Slots(entry.configuration, {field: checked.pop(field) for field in fields}, path)
        return entry.component(**checked, slots=slots, **runtime)
    return entry.component(**checked, **runtime)


def schema(kind: str, name: str) -> Spec:
    """The full default spec of a registered component, for Hydra's ConfigStore."""
    return validate(kind, {"name": name}, kind)
