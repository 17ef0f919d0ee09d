"""Gradient averaging: a few flattened all-reduce calls, exact averages, identity on one process."""
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from pyhighlights.training.distributed import average_gradients


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_params(rank: int) -> list[torch.nn.Parameter]:
    params = [torch.nn.Parameter(torch.zeros(shape)) for shape in [(3, 4), (5,), (2, 2, 2)]]
    for i, p in enumerate(params):
        p.grad = torch.full_like(p, float(10 * i + rank))  # rank 0: 10i, rank 1: 10i + 1
    params[1].grad = None if rank == 1 else params[1].grad  # a part without gradient on one rank
    return params


def worker(rank: int, port: int, out: str, bucket_bytes: int) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    params = make_params(rank)
    calls = average_gradients(params, bucket_bytes=bucket_bytes)
    torch.save({"calls": calls, "grads": [p.grad for p in params]}, f"{out}/rank{rank}.pt")
    dist.destroy_process_group()


def run(tmp_path, bucket_bytes):
    mp.spawn(worker, args=(free_port(), str(tmp_path), bucket_bytes), nprocs=2, join=True)
    return [torch.load(tmp_path / f"rank{r}.pt") for r in (0, 1)]


def test_one_flat_call_and_exact_average(tmp_path):
    results = run(tmp_path, bucket_bytes=1 << 20)
    for result in results:
        assert result["calls"] == 1  # three tensors, one all-reduce
        # averages: (0 + 1) / 2, (10 + 0) / 2 (rank 1 had no gradient: zeros), (20 + 21) / 2
        expected = [0.5, 5.0, 20.5]
        for grad, value in zip(result["grads"], expected):
            assert torch.all(grad == value)


def test_buckets_split_by_size(tmp_path):
    # tensors of 48, 20 and 32 bytes; 70-byte buckets: [48, 20] (68 bytes), then [32]
    results = run(tmp_path, bucket_bytes=70)
    assert results[0]["calls"] == 2 and results[1]["calls"] == 2


def test_single_process_is_identity():
    params = make_params(0)
    before = [p.grad.clone() for p in params]
    assert average_gradients(params) == 0
    assert all(torch.equal(p.grad, b) for p, b in zip(params, before))
