"""Every process's random states, saved in checkpoints and restored on resume.

Lightning does not store random states, yet Gumbel noise and dropout draw
from them. Under DDP each process has its own: the processes start from the
same seed, but they draw different amounts (their batches are padded to
different widths), so after the first step their states differ. A checkpoint
therefore holds one entry per process (gathered to rank 0, which writes the
file), and each process of a resumed run restores its own entry.

States are plain types and tensors, so a checkpoint still loads with
``torch.load(..., weights_only=True)``.
"""
from __future__ import annotations

import random
from typing import Any

import numpy as np
import torch
import torch.distributed as dist

#: Checkpoint key: ``{"ranks": [state of rank 0, state of rank 1, ...]}``.
KEY = "pyhighlights_rng"


def capture() -> dict[str, Any]:
    """This process's Python, NumPy, torch CPU and (when initialised) CUDA random states."""
    name, keys, position, has_gauss, cached = np.random.get_state()
    state = {"torch": torch.get_rng_state(),
             "numpy": [name, keys.tolist(), int(position), int(has_gauss), float(cached)],
             "python": random.getstate()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    name, keys, position, has_gauss, cached = state["numpy"]
    np.random.set_state((name, np.asarray(keys, dtype=np.uint32), position, has_gauss, cached))
    random.setstate(state["python"])
    if state.get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _distributed() -> bool:
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def for_checkpoint() -> dict[str, Any]:
    """Every process's states, gathered: a collective, so every process must call it (as every
    process calls ``Trainer.save_checkpoint``)."""
    state = capture()
    if not _distributed():
        return {"ranks": [state]}
    gathered: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, state)
    return {"ranks": gathered}


def own_state(saved: dict[str, Any] | None) -> dict[str, Any] | None:
    """This process's entry of a checkpoint's states (None when the checkpoint has none).

    A checkpoint written by fewer processes than now read it gives the extra
    processes rank 0's states; one written before states were kept per process
    holds a single state, shared by all.
    """
    if saved is None:
        return None
    if "ranks" not in saved:
        return saved
    rank = dist.get_rank() if _distributed() else 0
    ranks = saved["ranks"]
    return ranks[rank] if rank < len(ranks) else ranks[0]
