"""Batch samplers: length-bucketed for training, length-sorted for evaluation.

Both yield whole batches (lists of dataset indices) and know their rank and
world size, so under DDP each process reads its own share without help.

They subclass :class:`torch.utils.data.DistributedSampler` although they
re-implement it entirely: Lightning only swaps in its own distributed sampler
when a loader's sampler is *not* a ``DistributedSampler``, so the subclass
keeps ours in place even with ``Trainer(use_distributed_sampler=True)``, the
default. Passing ``use_distributed_sampler=False`` is still the clearer choice.
Lightning calls ``set_epoch`` on the loader's sampler before every training
epoch, which reshuffles the buckets.

A run resumed from a mid-epoch checkpoint continues that epoch where it
stopped: :meth:`BucketBatchSampler.resume_epoch` makes the next pass over
that epoch skip the batches already trained on.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
from torch.utils.data import DistributedSampler


class BucketBatchSampler(DistributedSampler):
    """Training batches of similar length, reshuffled every epoch.

    Each epoch: shuffle the documents, cut them into chunks of
    ``chunk_batches`` batches, sort each chunk by length, cut it into batches,
    then shuffle the order of all batches. Every rank computes the same global
    list (it depends only on ``seed`` and the epoch) and takes batches
    ``rank, rank + world_size, ...``; the ``len % world_size`` batches left
    over are skipped that epoch, so all ranks run the same number of steps.
    With one process every document is in exactly one batch per epoch.
    """

    def __init__(
        self,
        lengths: Sequence[int],
        batch_size: int,
        *,
        shuffle: bool = True,
        bucket: bool = True,
        chunk_batches: int = 50,
        seed: int = 0,
        rank: int = 0,
        world_size: int = 1,
    ) -> None:
        if batch_size < 1 or chunk_batches < 1:
            raise ValueError(f"batch_size and chunk_batches must be >= 1, got {batch_size}, {chunk_batches}")
        super().__init__(
            lengths, num_replicas=world_size, rank=rank, shuffle=shuffle, seed=seed, drop_last=True
        )
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.batch_size = batch_size
        self.bucket = bucket
        self.chunk_batches = chunk_batches
        self._resume: tuple[int, int] | None = None
        if len(self) == 0 and len(self.lengths) > 0:
            raise ValueError(
                f"{self.num_batches} training batches cannot be shared by {world_size} processes; "
                "use a smaller batch size or fewer processes"
            )

    @property
    def num_batches(self) -> int:
        """Batches in the global list of an epoch, before sharing among ranks."""
        return math.ceil(len(self.lengths) / self.batch_size)

    def global_batches(self, epoch: int) -> list[list[int]]:
        rng = np.random.default_rng([self.seed, epoch])
        order = rng.permutation(len(self.lengths)) if self.shuffle else np.arange(len(self.lengths))
        if self.bucket:
            chunk = self.chunk_batches * self.batch_size
            parts = [order[start : start + chunk] for start in range(0, len(order), chunk)]
            if parts:
                order = np.concatenate([p[np.argsort(self.lengths[p], kind="stable")] for p in parts])
        batches = [order[i : i + self.batch_size].tolist() for i in range(0, len(order), self.batch_size)]
        if self.shuffle:
            batches = [batches[i] for i in rng.permutation(len(batches))]
        return batches

    def resume_epoch(self, epoch: int, batches_done: int) -> None:
        """The next pass over ``epoch`` starts after its first ``batches_done`` batches of this rank."""
        self._resume = (int(epoch), int(batches_done))

    def __iter__(self) -> Iterator[list[int]]:
        # A generator: the batch list is computed at the first batch, from the
        # epoch set by then (Lightning may create the iterator before set_epoch).
        usable = len(self) * self.num_replicas
        skip = 0
        if self._resume is not None and self._resume[0] == self.epoch:
            skip = self._resume[1]
        self._resume = None
        yield from self.global_batches(self.epoch)[self.rank : usable : self.num_replicas][skip:]

    def __len__(self) -> int:
        return self.num_batches // self.num_replicas


class EvalBatchSampler(DistributedSampler):
    """Evaluation batches: documents sorted by length, each scored exactly once.

    Rank r takes every ``world_size``-th document of the sorted order (so all
    ranks see similar lengths) and batches them; nothing is padded or
    repeated, so ranks may get one batch more or less than each other. Use
    metrics whose state is summed across ranks.
    """

    def __init__(
        self, lengths: Sequence[int], batch_size: int, *, rank: int = 0, world_size: int = 1
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        super().__init__(lengths, num_replicas=world_size, rank=rank, shuffle=False, drop_last=False)
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.batch_size = batch_size
        # Longest first: a batch that does not fit in memory fails at once.
        self.shard = np.argsort(-self.lengths, kind="stable")[rank::world_size].tolist()

    def __iter__(self) -> Iterator[list[int]]:
        return iter(self.shard[i : i + self.batch_size] for i in range(0, len(self.shard), self.batch_size))

    def __len__(self) -> int:
        return math.ceil(len(self.shard) / self.batch_size)
