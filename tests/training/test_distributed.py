"""Gradient averaging: a few flattened all-reduce calls, exact averages, identity on one process."""
import os

import pytest
import torch
import torch.distributed as dist
from forked_ranks import free_port, run_ranks

from pyhighlights.training.distributed import average_gradients


def make_params(rank: int) -> list[torch.nn.Parameter]:
    params = [torch.nn.Parameter(torch.zeros(shape)) for shape in [(3, 4), (5,), (2, 2, 2)]]
    for i, p in enumerate(params):
        p.grad = torch.full_like(p, float(10 * i + rank))  # rank 0: 10i, rank 1: 10i + 1
    params[1].grad = None if rank == 1 else params[1].grad  # a part without gradient on one rank
    return params


ONE_BUCKET, SMALL_BUCKETS = 1 << 20, 70


def worker(rank: int, port: int, out: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    results = {}
    for bucket_bytes in (ONE_BUCKET, SMALL_BUCKETS):
        params = make_params(rank)
        calls = average_gradients(params, bucket_bytes=bucket_bytes)
        results[bucket_bytes] = {"calls": calls, "grads": [p.grad for p in params]}
    torch.save(results, f"{out}/rank{rank}.pt")
    dist.destroy_process_group()


@pytest.fixture(scope="module")
def averaged(tmp_path_factory) -> list[dict]:
    """Per rank: bucket size -> all-reduce calls and averaged gradients (one 2-process start for both sizes)."""
    out = tmp_path_factory.mktemp("distributed")
    run_ranks(worker, (free_port(), str(out)))
    return [torch.load(out / f"rank{r}.pt") for r in (0, 1)]


def test_one_flat_call_and_exact_average(averaged):
    for result in (rank[ONE_BUCKET] for rank in averaged):
        assert result["calls"] == 1  # three tensors, one all-reduce
        # averages: (0 + 1) / 2, (10 + 0) / 2 (rank 1 had no gradient: zeros), (20 + 21) / 2
        expected = [0.5, 5.0, 20.5]
        for grad, value in zip(result["grads"], expected):
            assert torch.all(grad == value)


def test_buckets_split_by_size(averaged):
    # tensors of 48, 20 and 32 bytes; 70-byte buckets: [48, 20] (68 bytes), then [32]
    assert [rank[SMALL_BUCKETS]["calls"] for rank in averaged] == [2, 2]
    for rank in averaged:  # the same exact averages as with one bucket
        assert all(torch.equal(a, b) for a, b in zip(rank[SMALL_BUCKETS]["grads"], rank[ONE_BUCKET]["grads"]))


def test_single_process_is_identity():
    params = make_params(0)
    before = [p.grad.clone() for p in params]
    assert average_gradients(params) == 0
    assert all(torch.equal(p.grad, b) for p, b in zip(params, before))
