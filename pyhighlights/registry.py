"""Component registry: every component kind, name, typed configuration and class.

Registering a component declares its configuration (a cinnamon
``Configuration``: types, bounds, defaults, conditions) in the same call, the
fairseq pattern. Duplicate names and classes that do not derive from their
kind's base class are refused at import time, where the mistake is made.

The registration modules live in the top-level ``registrations`` package;
:func:`load_registrations` imports them and :func:`build_registry` hands the
configurations to cinnamon's ``Registry`` so ``Registry.retrieve_configuration``
and friends work on them. (cinnamon's own discovery only scans folders named
``configurations/``, so we import ours explicitly.)
"""
from __future__ import annotations

import importlib
import math
import pkgutil
from dataclasses import dataclass
from typing import Any

from cinnamon.configuration import Configuration, Param
from cinnamon.registry import Registry, RegistrationKey

NAMESPACE = "pyhighlights"

#: kind -> dotted path of the base class every component of that kind derives from.
KIND_BASES: dict[str, str] = {
    "backbone": "pyhighlights.components.backbones.base.Backbone",
    "embeddings": "pyhighlights.components.embeddings.EmbeddingSource",
    "selector": "pyhighlights.components.selectors.Selector",
    "predictor": "pyhighlights.components.predictors.Predictor",
    "guider": "pyhighlights.components.guiders.Guider",
    "loss": "pyhighlights.components.losses.LossTerm",
    "model": "pyhighlights.models.base.SPPModel",
    "dataset": "pyhighlights.data.sources.CorpusSource",
    "trainer": "pyhighlights.training.settings.TrainerSettings",
}


class ParameterHolder:
    """Base of components that are their validated parameters (sources, settings):
    every parameter becomes an attribute, and ``values`` keeps them all."""

    def __init__(self, **values: Any):
        self.values = values
        for name, value in values.items():
            setattr(self, name, value)


class RegistrationError(TypeError):
    """A component was registered twice, under an unknown kind, or with a wrong base."""


@dataclass(frozen=True)
class Entry:
    kind: str
    name: str
    configuration: type[Configuration]
    component: type

    @property
    def key(self) -> RegistrationKey:
        return registration_key(self.kind, self.name)

    @property
    def component_path(self) -> str:
        return f"{self.component.__module__}.{self.component.__qualname__}"


_ENTRIES: dict[tuple[str, str], Entry] = {}


def registration_key(kind: str, name: str) -> RegistrationKey:
    """The cinnamon key of a component: name = kind, one tag = the component name."""
    return RegistrationKey(name=kind, tags={name}, namespace=NAMESPACE)


def _import(dotted: str) -> Any:
    module, _, attribute = dotted.rpartition(".")
    return getattr(importlib.import_module(module), attribute)


def register(kind: str, name: str, configuration: type[Configuration], component: type) -> type:
    """Register ``component`` under ``kind``/``name`` with its typed ``configuration``."""
    if kind not in KIND_BASES:
        raise RegistrationError(f"unknown component kind {kind!r}; kinds: {sorted(KIND_BASES)}")
    if (kind, name) in _ENTRIES:
        previous = _ENTRIES[(kind, name)]
        raise RegistrationError(
            f"{kind} {name!r} is already registered by {previous.component_path}"
        )
    base = _import(KIND_BASES[kind])
    if not (isinstance(component, type) and issubclass(component, base)):
        raise RegistrationError(
            f"{kind} {name!r}: {component!r} does not derive from {base.__qualname__}"
        )
    if not (isinstance(configuration, type) and issubclass(configuration, Configuration)):
        raise RegistrationError(
            f"{kind} {name!r}: configuration {configuration!r} is not a cinnamon Configuration"
        )
    _ENTRIES[(kind, name)] = Entry(kind, name, configuration, component)
    return component


_LOADED = False


def load_registrations() -> None:
    """Import every module of the ``registrations`` package (once; later calls are free)."""
    global _LOADED
    if _LOADED:
        return
    package = importlib.import_module("registrations")
    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"registrations.{info.name}")
    _LOADED = True


def entry(kind: str, name: str) -> Entry:
    load_registrations()
    try:
        return _ENTRIES[(kind, name)]
    except KeyError:
        raise KeyError(
            f"no {kind} named {name!r}; available: {', '.join(available(kind)) or 'none'}"
        ) from None


def available(kind: str) -> list[str]:
    load_registrations()
    return sorted(name for k, name in _ENTRIES if k == kind)


def entries() -> list[Entry]:
    load_registrations()
    return list(_ENTRIES.values())


def build_registry() -> None:
    """Register every entry's default configuration with cinnamon and resolve the graph."""
    load_registrations()
    Registry.initialize()
    Registry.update_namespaces(namespaces=[NAMESPACE], module_mapping={})
    for item in _ENTRIES.values():
        Registry.register_configuration(
            config=item.configuration.default(), key=item.key, component=item.component_path
        )
    _, invalid = Registry.dag_resolution()
    if invalid:
        details = "; ".join(f"{key}: {key.metadata}" for key in invalid)
        raise RegistrationError(f"invalid registered configurations: {details}")


def default_configuration(kind: str, name: str) -> Configuration:
    """The registered default configuration, through cinnamon's registry."""
    if not Registry.expanded:
        build_registry()
    config = Registry.retrieve_configuration(registration_key=registration_key(kind, name))
    return config.model_copy(deep=True)


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
    "register",
    "load_registrations",
    "build_registry",
    "default_configuration",
    "entry",
    "entries",
    "available",
    "registration_key",
]
