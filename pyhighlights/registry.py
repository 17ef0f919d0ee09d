"""The component registry: every component's kind, name, typed configuration and class.

A configuration is a cinnamon ``Configuration`` (types, bounds, conditions,
dependencies on other components as ``RegistrationKey`` fields) and is the
one schema: Hydra's config groups, validation and building all read it.
Defaults live in the configuration class. A subclass changes inherited
defaults, and the defaults of the parts it depends on, in one mapping::

    class DRConfig(RNPConfig):
        defaults = {"lr": 1e-4, "losses": {"sparsity": {"weight": 11.0}}}

and inherits everything it does not change. A part default applies to the
part chosen for that slot, for the fields that part has (a selector's
``dropout`` is dropped when a selector without dropout is chosen).

A kind of component is declared beside its base class, with :func:`kind`
(its name, the arguments its builder passes besides the configuration's
values, and the base's abstract methods as its interface), so a new kind
needs no edit here::

    @kind("predictor", runtime=("input_size", "num_classes"))
    class Predictor(nn.Module):
        @abstractmethod
        def forward(self, pooled): ...

Registering refuses, where the mistake is made (at import): a duplicate key,
an undeclared kind, a class that does not derive from its kind's base or
leaves one of its abstract methods unimplemented (or implements it with
another signature), a class whose ``__init__`` does not take the builder's
arguments, a model whose ``__init__`` restates defaults of its configuration,
and a default that names no field (in the configuration, or in the default
part of a slot).

The project's registration modules live in :mod:`pyhighlights.registrations`;
other packages add theirs through the entry-point group ``pyhighlights.registrations``
(see :mod:`pyhighlights.plugins`). :func:`load_registrations` imports both.
"""
from __future__ import annotations

import copy
import importlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import pydantic
from cinnamon.configuration import Configuration as CinnamonConfiguration
from cinnamon.configuration import ConfigurationMeta, Param
from cinnamon.registry import RegistrationKey
from cinnamon.utility.dependencies import DependencyShape, dependency_shape

from pyhighlights import plugins
from pyhighlights.kinds import Kind, RegistrationError, declared, kind
from pyhighlights.kinds import kinds as _declared_kinds

NAMESPACE = "pyhighlights"


def _inherited_field(bases: tuple[type, ...], name: str):
    for base in bases:
        fields = getattr(base, "model_fields", None)
        if fields and name in fields:
            return fields[name]
    return None


def _is_dependency(info) -> bool:
    return dependency_shape(field_name="", annotation=info.annotation, value=info.default) is not None


def _is_key_default(value: Any) -> bool:
    if isinstance(value, RegistrationKey):
        return True
    return isinstance(value, Mapping) and bool(value) and all(isinstance(v, RegistrationKey) for v in value.values())


class _DefaultsMeta(ConfigurationMeta):
    """Turns ``defaults`` entries for inherited plain fields into redeclared fields with the new default,
    so the class itself (pydantic, error messages, ``cls()``) knows the default."""

    def __new__(mcs, name, bases, namespace, **kwargs):
        if "child_defaults" in namespace:
            raise RegistrationError(f"{name}.child_defaults: write part defaults in `defaults` "
                                    f"(e.g. defaults = {{'losses': {{'sparsity': {{'weight': 2.0}}}}}})")
        own = namespace.get("defaults") or {}
        annotations = dict(namespace.get("__annotations__", {}))
        for field_name, value in own.items():
            inherited = _inherited_field(bases, field_name)
            if field_name in annotations:
                declared = namespace.get(field_name)
                if _is_key_default(getattr(declared, "default", declared)):
                    inherited = None  # a slot declared here: its part defaults are checked below
                else:
                    raise RegistrationError(f"{name}.defaults[{field_name!r}]: the field is declared in {name}; "
                                            f"give its default in its declaration")
            elif inherited is None:
                raise RegistrationError(f"{name}.defaults[{field_name!r}]: no such field")
            if inherited is None or _is_dependency(inherited):
                if not isinstance(value, Mapping):
                    raise RegistrationError(f"{name}.defaults[{field_name!r}]: a part's defaults are a mapping "
                                            f"of its fields")
                continue
            field = copy.copy(inherited)
            field.default = value
            field._attributes_set = {**inherited._attributes_set, "default": value}
            namespace[field_name] = field
            annotations[field_name] = inherited.annotation
        namespace["__annotations__"] = annotations
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        if cls.__module__ != __name__:
            try:
                cls.part_defaults()
            except ValueError as error:
                raise RegistrationError(f"{name}.defaults{error}") from None
        return cls


class Configuration(CinnamonConfiguration, metaclass=_DefaultsMeta):
    """A component's typed parameters (cinnamon), with inheritable defaults.

    ``defaults``: this class's changes to inherited defaults; for a dependency
    field, the defaults of the part in that slot (``{"selector": {"dropout": 0.2}}``;
    ``{"losses": {"task": {"weight": 0.9}}}`` for a mapping of parts).
    """

    defaults: ClassVar[Mapping[str, Any]] = {}

    @classmethod
    def part_defaults(cls) -> dict[str, dict[str, Any]]:
        """Slot -> defaults of the part in it, merged along the class hierarchy.

        A slot is a dependency field (``selector``) or a field and label
        (``losses.sparsity``). Inherited entries for labels the class removed
        are dropped; its own must name a field and label it has.
        """
        merged: dict[str, dict[str, Any]] = {}
        for klass in reversed(cls.__mro__):
            own = klass.__dict__.get("defaults") or {}
            for field_name, value in own.items():
                info = cls.model_fields.get(field_name)
                if info is None or not _is_dependency(info):
                    continue
                if isinstance(info.default, Mapping):
                    for label, part in value.items():
                        if label not in info.default:
                            if klass is cls:
                                raise ValueError(f"[{field_name!r}][{label!r}]: no such entry; entries: "
                                                 f"{', '.join(info.default)}")
                            continue
                        merged.setdefault(f"{field_name}.{label}", {}).update(dict(part))
                else:
                    merged.setdefault(field_name, {}).update(dict(value))
        for path in list(merged):
            if path.split(".")[0] not in cls.model_fields:
                del merged[path]
        return merged

    @classmethod
    def slots(cls) -> dict[str, RegistrationKey | None]:
        """Slot path (``selector``, ``losses.task``) -> the key of the part it holds by default."""
        out: dict[str, RegistrationKey | None] = {}
        for field_name, info in cls.model_fields.items():
            shape = dependency_shape(field_name=field_name, annotation=info.annotation, value=info.default)
            if shape is DependencyShape.SCALAR:
                out[field_name] = info.default
            elif shape is DependencyShape.DICT:
                out.update({f"{field_name}.{label}": key for label, key in info.default.items()})
            elif shape is not None:
                raise RegistrationError(f"{cls.__name__}.{field_name}: list dependencies are not supported")
        return out


class ParameterHolder:
    """Base of components that are their validated parameters (sources, settings):
    every parameter becomes an attribute, and ``values`` keeps them all."""

    def __init__(self, **values: Any):
        self.values = values
        for name, value in values.items():
            setattr(self, name, value)


@dataclass(frozen=True)
class Entry:
    kind: str
    name: str
    configuration: type[CinnamonConfiguration]
    component: type

    @property
    def key(self) -> RegistrationKey:
        return registration_key(self.kind, self.name)

    @property
    def component_path(self) -> str:
        return f"{self.component.__module__}.{self.component.__qualname__}"


_ENTRIES: dict[tuple[str, str], Entry] = {}
#: Entries whose part defaults name parts registered later (checked when the registrations are loaded).
_PENDING: list[Entry] = []


def registration_key(kind: str, name: str) -> RegistrationKey:
    """The cinnamon key of a component: name = kind, one tag = the component name."""
    return RegistrationKey(name=kind, tags={name}, namespace=NAMESPACE)


def part_of(key: RegistrationKey) -> tuple[str, str]:
    """(kind, name) of a registration key."""
    return key.name, next(iter(key.tags))


def register(kind: str, name: str, configuration: type[CinnamonConfiguration], component: type) -> type:
    """Register ``component`` under ``kind``/``name`` with its typed ``configuration``.

    The kind is declared on its base class (:func:`pyhighlights.kinds.kind`); the component is checked
    against it here (base class, abstract methods, builder arguments; see :meth:`Kind.check`).
    """
    declaration = declared(kind)
    if (kind, name) in _ENTRIES:
        previous = _ENTRIES[(kind, name)]
        raise RegistrationError(f"{kind} {name!r} is already registered by {previous.component_path}")
    if not (isinstance(configuration, type) and issubclass(configuration, CinnamonConfiguration)):
        raise RegistrationError(f"{kind} {name!r}: configuration {configuration!r} is not a cinnamon Configuration")
    slots = {slot.split(".")[0] for slot in configuration.slots()} if issubclass(configuration, Configuration) \
        else set()
    item = Entry(kind, name, configuration, component)
    _check_wiring_declarations(item)
    declaration.check(name, component, fields=set(configuration.model_fields) - slots, slots=slots)
    if _LOADED:
        _check_part_defaults(item)
    else:
        _PENDING.append(item)
    _ENTRIES[(kind, name)] = item
    return component


def _check_part_defaults(item: Entry) -> None:
    """Every part default names a field of the slot's default part and is a valid value for it."""
    configuration = item.configuration
    if not issubclass(configuration, Configuration):
        return
    slots = configuration.slots()
    for slot, values in configuration.part_defaults().items():
        key = slots[slot]
        where = f"{item.kind} {item.name!r}: {configuration.__name__}.defaults for {slot}"
        if key is None:
            raise RegistrationError(f"{where}: the slot holds no part by default")
        kind, name = part_of(key)
        part = _ENTRIES.get((kind, name))
        if part is None:
            raise RegistrationError(f"{where}: no {kind} named {name!r} is registered")
        fields = part.configuration.model_fields
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise RegistrationError(f"{where}: {unknown[0]!r} is not a field of {kind} {name!r}; "
                                    f"fields: {', '.join(fields)}")
        try:
            part.configuration.default().model_copy(update=values)
        except pydantic.ValidationError as error:
            raise RegistrationError(f"{where}: {error.errors()[0]['msg']} "
                                    f"({'.'.join(map(str, error.errors()[0]['loc']))})") from None


def _check_wiring_declarations(item: Entry) -> None:
    """A configuration with loss terms says what its terms may read, and its term-naming fields exist."""
    configuration = item.configuration
    fields = configuration.model_fields
    loss_sets = {name for name, info in fields.items()
                 if isinstance(info.default, Mapping) and _is_dependency(info)
                 and all(key.name == "loss" for key in info.default.values())}
    outputs = getattr(configuration, "outputs", {})
    missing = sorted(loss_sets - set(outputs))
    if missing:
        raise RegistrationError(f"{item.kind} {item.name!r}: {configuration.__name__}.outputs must say which "
                                f"outputs the terms of {missing[0]!r} may read")
    for name in outputs:
        if name not in loss_sets:
            raise RegistrationError(f"{item.kind} {item.name!r}: {configuration.__name__}.outputs[{name!r}] is not "
                                    f"a field of loss terms; loss fields: {', '.join(sorted(loss_sets)) or 'none'}")
    for name, loss_set in getattr(configuration, "term_fields", {}).items():
        if name not in fields or loss_set not in loss_sets:
            raise RegistrationError(f"{item.kind} {item.name!r}: {configuration.__name__}.term_fields[{name!r}] "
                                    f"must map a field to a field of loss terms ({', '.join(sorted(loss_sets))})")


_LOADED = False
#: The error that stopped the first load (a broken plugin): every later call raises it again.
_FAILED: BaseException | None = None


def load_registrations() -> None:
    """Import the project's registration modules, then every plugin's (once; later calls are free), then
    check the part defaults that name parts registered in a later module."""
    global _LOADED, _FAILED
    if _LOADED:
        return
    if _FAILED is not None:
        raise _FAILED
    for module in plugins.builtin_modules():
        importlib.import_module(module)
    for point in plugins.plugin_entry_points():
        try:
            plugins.load(point)
        except plugins.PluginError as error:
            _FAILED = error
            raise
    _LOADED = True
    while _PENDING:
        _check_part_defaults(_PENDING.pop(0))


def entry(kind: str, name: str) -> Entry:
    load_registrations()
    try:
        return _ENTRIES[(kind, name)]
    except KeyError:
        raise KeyError(f"no {kind} named {name!r}; available: {', '.join(available(kind)) or 'none'}") from None


def kinds() -> dict[str, Kind]:
    """Every declared kind (after loading the registrations, which import the base classes)."""
    load_registrations()
    return _declared_kinds()


def available(kind: str) -> list[str]:
    load_registrations()
    return sorted(name for k, name in _ENTRIES if k == kind)


def entries(kind: str | None = None) -> list[Entry]:
    load_registrations()
    return [item for item in _ENTRIES.values() if kind is None or item.kind == kind]


def default_configuration(kind: str, name: str) -> CinnamonConfiguration:
    """A fresh default configuration of a registered component (conditions included)."""
    return entry(kind, name).configuration.default()


def Real(default: float, *, description: str | None = None, **bounds: float) -> Any:
    """A finite float parameter (NaN and infinities refused) with optional bounds."""
    if not math.isfinite(default):
        raise ValueError("a Real parameter needs a finite default")
    return Param(default, description=description, allow_inf_nan=False, **bounds)


__all__ = [
    "NAMESPACE",
    "Configuration",
    "Param",
    "Real",
    "ParameterHolder",
    "RegistrationError",
    "Kind",
    "kind",
    "kinds",
    "declared",
    "register",
    "load_registrations",
    "default_configuration",
    "entry",
    "entries",
    "available",
    "registration_key",
    "part_of",
]
