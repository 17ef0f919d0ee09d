"""The ``logger`` and ``callbacks`` sections: Lightning loggers and callbacks chosen by class.

Each section maps a label to ``{_target_: <class path>, <argument>: <value>, ...}``
(pyhighlights/configs/logger/, pyhighlights/configs/callbacks/, or ``+callbacks.<label>._target_=...``).
Classes and argument names are checked when the run's configuration is
validated, before anything is built; an optional package a logger needs is
named with the extra that installs it. Every logger writes under
``<run dir>/<label>/``; ``metrics.csv`` is written in any case (plots and
resume read it).
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pyhighlights.config.resolve import ConfigError

TARGET = "_target_"

#: Logger class -> (modules of which one must be importable, the pyhighlights extra that installs one).
OPTIONAL_PACKAGES = {
    "TensorBoardLogger": (("tensorboard", "tensorboardX"), "tensorboard"),
    "MLFlowLogger": (("mlflow",), "mlflow"),
    "WandbLogger": (("wandb",), "wandb"),
}


def _base(section: str) -> type:
    import lightning.pytorch as pl
    from lightning.pytorch.loggers import Logger

    return Logger if section == "logger" else pl.Callback


def _load_class(path: str, where: str) -> type:
    module, _, name = str(path).rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        raise ConfigError(f"{where}: cannot import {path!r}; expected a class path such as "
                          "lightning.pytorch.callbacks.LearningRateMonitor") from None


def validate_section(section: str, node: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Check every entry of the ``logger`` or ``callbacks`` section; return it as plain dicts."""
    checked = {}
    for label, entry in dict(node or {}).items():
        where = f"{section}.{label}"
        if not isinstance(entry, Mapping) or TARGET not in entry:
            raise ConfigError(f"{where}: expected a mapping with {TARGET}: <class path> and its arguments; "
                              f"got {entry!r}")
        entry = dict(entry)
        cls = _load_class(entry[TARGET], f"{where}.{TARGET}")
        if not (isinstance(cls, type) and issubclass(cls, _base(section))):
            raise ConfigError(f"{where}.{TARGET}: {entry[TARGET]} is not a {_base(section).__name__} subclass")
        owned = ("save_dir", *_location(cls, Path("."))) if section == "logger" else ()
        _check_arguments(cls, entry, where, owned=owned)
        _check_installed(cls, where)
        checked[str(label)] = entry
    return checked


def _check_arguments(cls: type, entry: dict[str, Any], where: str, owned: tuple[str, ...]) -> None:
    parameters = inspect.signature(cls.__init__).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    names = [name for name in parameters if name != "self" and parameters[name].kind not in
             (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)]
    for key in entry:
        if key == TARGET:
            continue
        if key in owned:
            raise ConfigError(f"{where}.{key}: set by the run itself (each logger writes under <run dir>/<label>/)")
        if key not in names and not takes_any:
            raise ConfigError(f"{where}.{key}: not an argument of {cls.__name__}; arguments: "
                              f"{', '.join(n for n in names if n not in owned)}")


def _check_installed(cls: type, where: str) -> None:
    modules, extra = OPTIONAL_PACKAGES.get(cls.__name__, ((), None))
    if modules and not any(importlib.util.find_spec(module) for module in modules):
        raise ConfigError(f"{where}: {cls.__name__} needs the {modules[0]} package; "
                          f"pip install 'pyhighlights[{extra}]'")


def _location(cls: type, directory: Path) -> dict[str, str]:
    """The arguments that put a logger's files in ``directory``."""
    if cls.__name__ == "MLFlowLogger":
        # A local SQLite store: MLflow's file store keeps each metric in a file named after it, so
        # val/loss and val/loss/task cannot both exist there (and MLflow 3 retires that store).
        return {"tracking_uri": f"sqlite:///{directory.resolve() / 'mlflow.db'}",
                "artifact_location": str(directory.resolve() / "artifacts")}
    return {"save_dir": str(directory)}


def build_loggers(spec: Mapping[str, Mapping[str, Any]], run_dir: Path) -> list:
    """The chosen loggers, each writing under ``run_dir/<label>/``."""
    loggers = []
    for label, entry in spec.items():
        cls = _load_class(entry[TARGET], f"logger.{label}")
        directory = Path(run_dir) / label
        directory.mkdir(parents=True, exist_ok=True)
        loggers.append(cls(**_location(cls, directory), **{k: v for k, v in entry.items() if k != TARGET}))
    return loggers


def build_callbacks(spec: Mapping[str, Mapping[str, Any]]) -> list:
    return [_load_class(entry[TARGET], f"callbacks.{label}")(**{k: v for k, v in entry.items() if k != TARGET})
            for label, entry in spec.items()]
