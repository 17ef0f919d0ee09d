"""The Lightning DataModule every SPP model trains on.

Documents are encoded to tensors once in :meth:`SPPDataModule.setup`; the
loaders then only pick indices and pad. Training batches are length-bucketed
and reshuffled each epoch; evaluation batches are sorted by length. Under DDP
the samplers shard by rank themselves (see :mod:`samplers`): create the
Trainer with ``use_distributed_sampler=False`` (it also works with the
default, because our samplers are ``DistributedSampler`` subclasses that
Lightning leaves alone).
"""
from __future__ import annotations

import lightning.pytorch as pl
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

from pyhighlights.data.batch import Corpus
from pyhighlights.data.collate import BatchCollator
from pyhighlights.data.encoding import DocumentEncoder, EncodedSplit, WordEncoder
from pyhighlights.data.samplers import BucketBatchSampler, EvalBatchSampler
from pyhighlights.data.vocabulary import Vocabulary

SPLITS = ("train", "validation", "test")


class ResumableTrainLoader(DataLoader):
    """A training loader whose position within the epoch travels in Lightning checkpoints.

    Lightning stores ``state_dict()`` of a loader that has one in every
    checkpoint and hands it back to ``load_state_dict`` on resume, so a run
    resumed from a mid-epoch checkpoint skips the batches it already trained on.
    """

    def __init__(self, *args, batches_done=lambda: 0, **kwargs):
        super().__init__(*args, **kwargs)
        self._batches_done = batches_done

    def state_dict(self) -> dict[str, int]:
        return {"epoch": int(self.sampler.epoch), "batches_done": int(self._batches_done())}

    def load_state_dict(self, state: dict[str, int]) -> None:
        self.sampler.resume_epoch(state["epoch"], state["batches_done"])


class SPPDataModule(pl.LightningDataModule):
    """Batches of :class:`~pyhighlights.data.batch.Batch` for a corpus.

    ``encoder`` defaults to word-level encoding through ``vocabulary`` (which
    may then be None if an encoder is given); a subword encoder with the same
    interface (see :mod:`encoding`) can replace it. ``chunk_batches`` is how
    many batches' worth of documents are sorted together when bucketing;
    ``pin_memory`` is passed to the DataLoaders (GPU training). ``bucket=False``
    draws random training batches; ``pad_to`` pads every batch (all splits) to
    that many tokens instead of its longest document.
    ``encoding_info[split]`` records documents, tokens and unknown words per
    split once set up.
    """

    def __init__(
        self,
        corpus: Corpus,
        vocabulary: Vocabulary | None,
        *,
        batch_size: int,
        eval_batch_size: int | None = None,
        bucket: bool = True,
        seed: int = 0,
        num_workers: int = 0,
        shuffle: bool = True,
        encoder: DocumentEncoder | None = None,
        chunk_batches: int = 50,
        pin_memory: bool = False,
        pad_to: int | None = None,
    ) -> None:
        super().__init__()
        self.corpus = corpus
        self.vocabulary = vocabulary
        if encoder is None:
            if vocabulary is None:
                raise ValueError("SPPDataModule needs a vocabulary or an encoder")
            encoder = WordEncoder(vocabulary)
        self.encoder = encoder
        self.batch_size = batch_size
        self.eval_batch_size = eval_batch_size or batch_size
        self.bucket = bucket
        self.seed = seed
        self.num_workers = num_workers
        self.shuffle = shuffle
        self.chunk_batches = chunk_batches
        self.pin_memory = pin_memory
        self.collate = BatchCollator(self.encoder.pad_id, pad_to)
        self.datasets: dict[str, EncodedSplit] = {}
        self.encoding_info: dict[str, dict] = {}

    def setup(self, stage: str | None = None) -> None:
        """Encode every split once (later calls are free)."""
        for split in SPLITS:
            if split not in self.datasets:
                self.datasets[split] = self._encode(split)

    def _encode(self, split: str) -> EncodedSplit:
        documents = self.corpus.split(split)
        # Word-level encoding counts unknown words; other encoders need not.
        vocabulary = self.encoder.vocabulary if isinstance(self.encoder, WordEncoder) else None
        if vocabulary is not None:
            vocabulary.reset_counts()
        dataset = EncodedSplit.from_documents(documents, self.encoder)
        self.encoding_info[split] = {"documents": len(documents)}
        if vocabulary is not None:
            self.encoding_info[split].update(vocabulary.oov_counts())
        return dataset

    def rank_and_world_size(self) -> tuple[int, int]:
        """From the attached Trainer, else from torch.distributed, else (0, 1)."""
        if self.trainer is not None:
            return self.trainer.global_rank, self.trainer.world_size
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
        return 0, 1

    def _loader(self, split: str, sampler: BucketBatchSampler | EvalBatchSampler, loader=DataLoader,
                **extra) -> DataLoader:
        return loader(
            self.datasets[split],
            sampler=sampler,
            batch_size=None,  # the sampler yields whole batches
            collate_fn=self.collate,
            num_workers=self.num_workers,
            persistent_workers=self.num_workers > 0,
            pin_memory=self.pin_memory,
            # Its own generator: creating an iterator then leaves the global
            # random state alone, so a resumed run draws the same noise.
            generator=torch.Generator().manual_seed(self.seed),
            **extra,
        )

    def train_dataloader(self) -> DataLoader:
        self.setup()
        rank, world_size = self.rank_and_world_size()
        sampler = BucketBatchSampler(
            self.datasets["train"].lengths(),
            self.batch_size,
            shuffle=self.shuffle,
            bucket=self.bucket,
            chunk_batches=self.chunk_batches,
            seed=self.seed,
            rank=rank,
            world_size=world_size,
        )
        if self.trainer is not None:
            # Lightning calls set_epoch too; this covers a loader made mid-run.
            sampler.set_epoch(self.trainer.current_epoch)
        return self._loader("train", sampler, ResumableTrainLoader, batches_done=self._batches_done)

    def _batches_done(self) -> int:
        """Batches of the current epoch this rank has trained on (read when a checkpoint is written)."""
        if self.trainer is None:
            return 0
        return self.trainer.fit_loop.epoch_loop.batch_progress.current.processed

    def _eval_dataloader(self, split: str) -> DataLoader:
        self.setup()
        rank, world_size = self.rank_and_world_size()
        sampler = EvalBatchSampler(
            self.datasets[split].lengths(), self.eval_batch_size, rank=rank, world_size=world_size
        )
        return self._loader(split, sampler)

    def val_dataloader(self) -> DataLoader:
        return self._eval_dataloader("validation")

    def test_dataloader(self) -> DataLoader:
        return self._eval_dataloader("test")

    def predict_dataloader(self) -> DataLoader:
        return self._eval_dataloader("test")
