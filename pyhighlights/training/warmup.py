"""Refuse a schedule in which a model's rationaliser never trains.

A model whose first epochs train only an auxiliary part (G-RAT's guider)
names the field that counts them in its configuration (``warmup_field``).
If that many epochs fill the whole run, the rationaliser would never take a
step and the run would report an untrained selector. Early stopping cannot end
a run inside those epochs (its patience counts from the first scored epoch,
see :class:`~pyhighlights.training.callbacks.WarmupAwareEarlyStopping`), so the
number of epochs is what decides.

Likewise a sparsity constraint whose multiplier warms up for as many epochs
as the term trains in would never move its multiplier.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyhighlights import registry
from pyhighlights.config.resolve import ConfigError


def check_warmup(model: Mapping[str, Any], trainer: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigError` naming both fields when warm-up epochs >= ``trainer.max_epochs``."""
    configuration = registry.entry("model", model["name"]).configuration
    field = getattr(configuration, "warmup_field", None)
    check_constraint_warmup(model, trainer["max_epochs"] - (model[field] if field else 0))
    if not field:
        return
    warmup, epochs = model[field], trainer["max_epochs"]
    if warmup >= epochs:
        raise ConfigError(f"model.{field}={warmup} >= trainer.max_epochs={epochs}: {model['name']} trains only its "
                          f"warm-up part during the first model.{field} epochs, so its rationaliser would never "
                          f"train; set trainer.max_epochs above model.{field}")


def check_constraint_warmup(model: Mapping[str, Any], trained_epochs: int) -> None:
    """Raise :class:`ConfigError` when the sparsity constraint's warm-up lasts every epoch its term trains in."""
    sparsity = (model.get("losses") or {}).get("sparsity") or {}
    if sparsity.get("mode") != "constraint":
        return
    warmup = sparsity.get("multiplier_warmup_epochs", 0)
    if warmup and warmup >= trained_epochs:
        raise ConfigError(f"model.losses.sparsity.multiplier_warmup_epochs={warmup} >= the {trained_epochs} epochs the "
                          f"sparsity term trains in: the constraint's multiplier would never move; set "
                          f"model.losses.sparsity.multiplier_warmup_epochs below {trained_epochs} (0: no warm-up) "
                          f"or train longer")
