"""A test hook: SIGKILL this process at a named event of a run's life.

``PYHIGHLIGHTS_FAULT_AT=<event>[:<n>]`` kills the process the ``n``-th time
(1 by default) it reaches ``event``; counts are per process, so under
``ddp_spawn`` each spawned process counts its own. Unset (the normal case), the
hook does nothing. A SIGKILL gives the code no chance to clean up, which is what
a preempted or out-of-memory-killed job experiences; reaching the event through
a named point, rather than after a guessed delay, makes every kill repeatable.
"""
from __future__ import annotations

import os
import signal
import sys
from collections import Counter

VARIABLE = "PYHIGHLIGHTS_FAULT_AT"

#: The events, in the order a run meets them.
EVENTS = {
    "claimed": "the run directory is claimed and its manifest written; nothing trained yet",
    "search_generation": "a GenSPP search generation's checkpoint is in place; the next generation has not begun",
    "epoch_start": "an epoch begins (after the previous epoch's snapshot)",
    "train_batch": "before a training batch",
    "checkpoint_write": "the resume snapshot is written to its temporary file, not yet renamed into place",
    "epoch_end": "an epoch's snapshot is in place; the next epoch has not begun",
    "test_batch": "before a test batch",
    "predictions": "predictions.jsonl is written; results.json not yet",
    "results": "results.json holds the seed; its plots and the final status are not written yet",
    "plots": "one training plot is written, the others not yet",
}

_reached: Counter[str] = Counter()


def _wanted() -> tuple[str, int] | None:
    spec = os.environ.get(VARIABLE)
    if not spec:
        return None
    event, _, count = spec.partition(":")
    if event not in EVENTS or not (count or "1").isdigit() or int(count or 1) < 1:
        raise ValueError(f"{VARIABLE}={spec}: expected <event>[:<n>] with n >= 1 and an event among "
                         f"{', '.join(EVENTS)}")
    return event, int(count or 1)


def fault_point(event: str) -> None:
    """Kill this process here if ``PYHIGHLIGHTS_FAULT_AT`` names this event and occurrence."""
    wanted = _wanted()
    if wanted is None or wanted[0] != event:
        return
    _reached[event] += 1
    if _reached[event] == wanted[1]:
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
