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


def exit_finished() -> None:
    """End a command that finished its work without the interpreter's teardown.

    Once a run's files are written, tearing down the interpreter (freeing every module, tensor and
    configuration object one by one) took 1.5-3 s of a short run's exit. The exit handlers still run
    (logging's flush, an external logger's upload), then the process exits with status 0. Kept: the
    ordinary exit when another non-daemon thread is still running (it would be joined first), or when
    a profiler or tracer is attached (it writes its output after the script returns).
    """
    import atexit
    import threading

    if sys.getprofile() is not None or sys.gettrace() is not None:
        return
    if any(thread.is_alive() and not thread.daemon for thread in threading.enumerate()
           if thread is not threading.main_thread()):
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: nothing more can be said on it
            pass
    os._exit(0)
