"""Shared start-up of the command-line scripts."""
from __future__ import annotations

import logging
import os
import sys

from pyhighlights.config.files import CONFIG_DIR  # noqa: F401 - the scripts' Hydra config_path


def prepare() -> None:
    """Register the schemas with Hydra and set sane CPU defaults before torch spins threads."""
    # One thread per process unless the user said otherwise (see TrainerConfig.num_threads).
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    logging.getLogger("lightning.pytorch.utilities.rank_zero").setLevel(logging.WARNING)
    quiet_known_warnings()
    register_resolvers()
    from pyhighlights.config.hydra_schema import register_schemas
    from pyhighlights.plugins import PluginError

    try:
        register_schemas()
    except PluginError as error:  # an installed package's registrations: say which, without our traceback
        fail(error)


def register_resolvers() -> None:
    """``${if_null:a,b}``: b when a is null (pyhighlights/configs/train.yaml: the run directory of ``resume=``)."""
    from omegaconf import OmegaConf

    if not OmegaConf.has_resolver("if_null"):
        OmegaConf.register_new_resolver("if_null", lambda value, default: default if value is None else value)


def fail(error: BaseException) -> None:
    """Exit non-zero with a one-line message (no traceback) for a user mistake."""
    print(f"error: {error}", file=sys.stderr)
    sys.exit(2)


def quiet_known_warnings() -> None:
    """Silence warnings that say nothing to a user of this tool."""
    import warnings

    # The run directory holds manifest.json before the CSV logger starts; nothing is deleted.
    warnings.filterwarnings("ignore", message="Experiment logs directory .* exists and is not empty")
    # A resumed run writes into its own checkpoints/ again.
    warnings.filterwarnings("ignore", message="Checkpoint directory .* exists and is not empty")
    warnings.filterwarnings("ignore", message=".*isinstance.treespec, LeafSpec.*")
    warnings.filterwarnings("ignore", message="The number of training batches .* is smaller than the logging")
    # Logged by Lightning at every checkpoint it saves; our checkpoints hold more than weights on purpose.
    checkpoints = logging.getLogger("lightning.pytorch.trainer.connectors.checkpoint_connector")
    if not any(isinstance(f, _WeightsOnlyNote) for f in checkpoints.filters):
        checkpoints.addFilter(_WeightsOnlyNote())


class _WeightsOnlyNote(logging.Filter):
    """Drops Lightning's "`weights_only` was not set, defaulting to `False`" note, and only that."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("`weights_only` was not set")


register_resolvers()  # also in processes that only unpickle a job (Hydra launchers)
