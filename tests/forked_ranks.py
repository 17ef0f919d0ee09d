"""Start the processes of a small CPU process group (gloo) as forks of the test process.

``torch.multiprocessing.spawn`` starts each process as a fresh interpreter that imports torch, Lightning and
the models again (seconds of CPU per process, more than most of these tests' training). A fork inherits
them. What these tests check is the arithmetic between the processes (all-reduce, per-rank states), which
does not depend on how a process started; scripts/train.py's ``ddp_spawn``, where the start method is part
of what a user runs, is tested through the script (tests/cluster).
"""
from __future__ import annotations

import socket

import torch.multiprocessing as mp


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_method() -> str:
    """``fork``, unless this process has initialised CUDA (a GPU test ran before in it): a fork cannot inherit
    a CUDA context, so then the processes are spawned."""
    import torch

    return "spawn" if torch.cuda.is_initialized() else "fork"


def run_ranks(worker, args: tuple = (), nprocs: int = 2) -> None:
    """``worker(rank, *args)`` in ``nprocs`` forked processes; raises if any of them fails."""
    mp.start_processes(worker, args=args, nprocs=nprocs, join=True, start_method=start_method())
