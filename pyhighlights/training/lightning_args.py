"""``trainer.<name>=...``: our trainer settings, and any other ``lightning.Trainer`` argument passed through.

The trainer section holds two kinds of keys: the registered trainer settings
(pyhighlights/training/settings.py: batch size, checkpoint selection, threads,
and the Trainer arguments we bound-check, such as ``max_epochs``), and every
other argument of ``lightning.Trainer``, read from its signature so a newer
Lightning brings its new arguments. A name that is neither is refused before
anything is built. Arguments through which the framework writes the run
directory are refused with the setting that replaces them.
"""
from __future__ import annotations

import difflib
import inspect
from collections.abc import Mapping
from typing import Any

from pyhighlights import registry
from pyhighlights.config.resolve import ConfigError, Spec, validate

#: Trainer arguments the run sets itself -> what to use instead.
OWNED = {
    "default_root_dir": "the run directory is hydra.run.dir",
    "logger": "choose loggers with logger=csv|tensorboard|mlflow|wandb (pyhighlights/configs/logger/)",
    "callbacks": "add callbacks with callbacks=<preset> or +callbacks.<label>._target_=<class> (pyhighlights/configs/callbacks/)",
    "enable_checkpointing": "use trainer.save_checkpoints",
    "enable_progress_bar": "use trainer.progress_bar",
    "use_distributed_sampler": "the DataModule shards its length buckets across processes itself",
    "barebones": "the run directory needs the logger and the checkpoints barebones turns off",
}

#: Passed-through arguments Lightning refuses for models that step their optimisers themselves, and that we
#: cannot apply for them either.
AUTOMATIC_ONLY = ("accumulate_grad_batches",)
#: Passed-through arguments those models apply themselves, through Lightning's clipping in each of their steps.
MANUAL_CLIPPING = ("gradient_clip_val", "gradient_clip_algorithm")


def trainer_arguments() -> list[str]:
    import lightning.pytorch as pl

    return [name for name in inspect.signature(pl.Trainer.__init__).parameters if name != "self"]


def settings_fields() -> list[str]:
    return sorted(registry.default_configuration("trainer", "default").fields)


def split(node: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(our settings, passed-through Trainer arguments) of a trainer section; an unknown or owned name raises."""
    ours, lightning = {}, {}
    fields, arguments = set(settings_fields()) | {"name"}, trainer_arguments()
    for key, value in node.items():
        if key in fields:
            ours[key] = value
        elif key in OWNED:
            raise ConfigError(f"trainer.{key}: set by the run itself; {OWNED[key]}")
        elif key in arguments:
            lightning[key] = value
        else:
            close = difflib.get_close_matches(key, sorted(fields - {"name"}) + arguments, n=1)
            hint = f"did you mean trainer.{close[0]}? " if close else ""
            valid = sorted(set(arguments) - set(OWNED) - fields)
            raise ConfigError(f"trainer.{key}: neither a pyhighlights trainer setting nor a lightning.Trainer "
                              f"argument; {hint}settings: {', '.join(sorted(fields - {'name'}))}; "
                              f"other Trainer arguments: {', '.join(valid)}")
    return ours, lightning


def trainer_spec(node: Mapping[str, Any] | None) -> Spec:
    """The validated trainer section: every setting filled in, the passed-through arguments after them."""
    ours, lightning = split(dict(node or {}))
    return {**validate("trainer", ours, "trainer"), **lightning}


def trainer_settings(spec: Mapping[str, Any]):
    """The built trainer settings; ``settings.lightning`` holds the passed-through arguments."""
    from pyhighlights.config.resolve import build

    ours, lightning = split(spec)
    settings = build("trainer", ours)
    settings.lightning = lightning
    return settings


def check_clipping(model: Mapping[str, Any], trainer: Mapping[str, Any]) -> None:
    """One gradient clipping threshold: the model's registered ``grad_clip`` or the Trainer's arguments."""
    given = [key for key in MANUAL_CLIPPING if trainer.get(key) is not None]
    if model.get("grad_clip", 0) and given:
        raise ConfigError(f"trainer.{given[0]} and model.grad_clip={model['grad_clip']}: two gradient clipping "
                          "settings; set model.grad_clip=0 to clip with the Trainer's arguments, or drop "
                          f"trainer.{given[0]}")


def check_fits_model(lightning: Mapping[str, Any], model_name: str, build_model) -> None:
    """Refuse, before the run directory is claimed, arguments Lightning refuses for this model.

    ``build_model`` is only called when such an argument is given.
    """
    given = [name for name in AUTOMATIC_ONLY if lightning.get(name, 1) != 1]
    if given and not build_model().automatic_optimization:
        raise ConfigError(f"trainer.{given[0]}={lightning[given[0]]}: {model_name} steps its optimisers itself, "
                          "which Lightning's gradient accumulation does not support")


def arguments_for(model, lightning: Mapping[str, Any]) -> dict[str, Any]:
    """The passed-through arguments for ``model``'s Trainer.

    Lightning refuses clipping arguments with manual optimisation; such a model
    gets them instead and clips through Lightning in its own steps, after the
    precision plugin has unscaled the gradients (models/base.py).
    """
    arguments = dict(lightning)
    if not model.automatic_optimization:
        model.manual_clipping = tuple(arguments.pop(name, None) for name in MANUAL_CLIPPING)
    return arguments
