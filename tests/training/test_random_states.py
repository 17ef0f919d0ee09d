"""Random states in checkpoints: every process of a 2-process (gloo) job gets its own back on resume."""
import os
import random

import numpy as np
import torch
import torch.distributed as dist
from forked_ranks import free_port, run_ranks

from pyhighlights.training import random_states


def draws() -> list[float]:
    return [*torch.rand(3).tolist(), *np.random.rand(3).tolist(), random.random()]


def seed_all(seed: int) -> None:
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def worker(rank: int, port: int, out: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    seed_all(0)  # the processes start alike (one seed) and then draw different amounts
    for _ in range(rank + 1):
        draws()
    saved = random_states.for_checkpoint()
    expected = draws()  # what an uninterrupted process draws next
    if rank == 0:
        torch.save({random_states.KEY: saved}, f"{out}/last.ckpt")  # rank 0 writes the checkpoint
    dist.barrier()
    seed_all(123)  # a resumed process: seeded afresh, then restored from the file rank 0 wrote
    checkpoint = torch.load(f"{out}/last.ckpt", weights_only=True)
    random_states.restore(random_states.own_state(checkpoint[random_states.KEY]))
    torch.save({"expected": expected, "resumed": draws(), "entries": len(saved["ranks"])}, f"{out}/rank{rank}.pt")
    dist.destroy_process_group()


def test_each_process_resumes_its_own_random_states(tmp_path):
    run_ranks(worker, (free_port(), str(tmp_path)))
    results = [torch.load(tmp_path / f"rank{r}.pt") for r in (0, 1)]
    for result in results:
        assert result["entries"] == 2
        assert result["resumed"] == result["expected"]
    assert results[0]["expected"] != results[1]["expected"]  # the states did differ: rank 0's would not do for rank 1


def test_one_process_and_older_checkpoints():
    seed_all(5)
    saved = random_states.for_checkpoint()
    expected = draws()
    for stored in (saved, saved["ranks"][0]):  # per-process entries, and the single state of older checkpoints
        seed_all(6)
        random_states.restore(random_states.own_state(stored))
        assert draws() == expected
    assert random_states.own_state(None) is None
