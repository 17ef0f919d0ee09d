"""Refuse a schedule in which a model's rationaliser never trains.

A model whose first epochs train only an auxiliary part (G-RAT's guider)
names the field that counts them in its configuration (``warmup_field``).
If that many epochs fill the whole run, the rationaliser would never take a
step and the run would report an untrained selector. Early stopping cannot end
a run inside those epochs (its patience counts from the first scored epoch,
see :class:`~pyhighlights.training.callbacks.WarmupAwareEarlyStopping`), so the
number of epochs is what decides.
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
    if not field:
        return
    warmup, epochs = model[field], trainer["max_epochs"]
    if warmup >= epochs:
        raise ConfigError(f"model.{field}={warmup} >= trainer.max_epochs={epochs}: {model['name']} trains only its "
                          f"warm-up part during the first model.{field} epochs, so its rationaliser would never "
                          f"train; set trainer.max_epochs above model.{field}")
