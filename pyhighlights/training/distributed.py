"""Gradient averaging for manual optimisation steps that train part of a model.

Under DDP each backward runs with the wrapper's own synchronisation blocked
(it expects every parameter in every backward); the gradients of the part
that was trained are then averaged across processes here, flattened into a
few buckets so a step costs a few all-reduce calls, not one per tensor.
"""
from __future__ import annotations

from collections.abc import Iterable

import torch
import torch.distributed as dist

BUCKET_BYTES = 32 * 1024 * 1024


def _buckets(tensors: list[torch.Tensor], limit: int) -> list[list[torch.Tensor]]:
    buckets: list[list[torch.Tensor]] = []
    current: list[torch.Tensor] = []
    size = 0
    for tensor in tensors:
        nbytes = tensor.numel() * tensor.element_size()
        if current and (size + nbytes > limit or tensor.dtype != current[0].dtype or tensor.device != current[0].device):
            buckets.append(current)
            current, size = [], 0
        current.append(tensor)
        size += nbytes
    if current:
        buckets.append(current)
    return buckets


def average_gradients(parameters: Iterable[torch.nn.Parameter], bucket_bytes: int = BUCKET_BYTES) -> int:
    """All-reduce-average the gradients of ``parameters``; return the number of all-reduce calls.

    A parameter without a gradient on this rank contributes zeros, so every
    rank issues the same calls in the same order. On one process nothing happens.
    """
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return 0
    world = dist.get_world_size()
    params = [p for p in parameters if p.requires_grad]
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    calls = 0
    for bucket in _buckets([p.grad for p in params], bucket_bytes):
        flat = torch.cat([g.reshape(-1) for g in bucket])
        dist.all_reduce(flat, op=dist.ReduceOp.SUM)
        flat.div_(world)
        calls += 1
        offset = 0
        for grad in bucket:
            n = grad.numel()
            grad.copy_(flat[offset:offset + n].view_as(grad))
            offset += n
    return calls
