from __future__ import annotations

import pickle
import random
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from pyhighlights.data.batch import Batch, Corpus, Document
from pyhighlights.data.collate import BatchCollator
from pyhighlights.data.datamodule import SPPDataModule
from pyhighlights.data.samplers import BucketBatchSampler, EvalBatchSampler
from pyhighlights.data.vocabulary import PAD_ID, Vocabulary


def random_corpus(n_train: int = 500, n_eval: int = 37, seed: int = 0) -> Corpus:
    rng = random.Random(seed)

    def docs(n: int, annotated: bool) -> list[Document]:
        out = []
        for i in range(n):
            tokens = [rng.choice("abcdefgh") for _ in range(rng.randint(3, 120))]
            highlights = [rng.randint(0, 1) for _ in tokens] if annotated else None
            out.append(Document(str(i), tokens, rng.randint(0, 1), highlights))
        return out

    return Corpus("random", docs(n_train, False), docs(n_eval, False), docs(n_eval, True), ["n", "p"])


def module(corpus: Corpus, **options) -> SPPDataModule:
    datamodule = SPPDataModule(corpus, Vocabulary.from_documents(corpus.train), **options)
    datamodule.setup("fit")
    return datamodule


def test_train_epoch_covers_every_document_once_in_length_buckets() -> None:
    corpus = random_corpus()
    datamodule = module(corpus, batch_size=16)
    seen = []
    spreads = []
    for batch in datamodule.train_dataloader():
        seen.extend(batch.sample_ids.tolist())
        lengths = batch.word_mask.sum(1)
        spreads.append((lengths.max() - lengths.min()).item())
        assert batch.input_ids.shape[1] == lengths.max()  # padded to its own longest only
    assert sorted(seen) == list(range(len(corpus.train)))
    unbucketed = []
    for batch in module(corpus, batch_size=16, bucket=False).train_dataloader():
        lengths = batch.word_mask.sum(1)
        unbucketed.append((lengths.max() - lengths.min()).item())
    # Lengths are uniform on 3..120: random batches span ~100, buckets a few tokens.
    assert np.mean(spreads) < 10 < 80 < np.mean(unbucketed)


def test_epochs_reshuffle_deterministically() -> None:
    lengths = [random.Random(i).randint(1, 50) for i in range(300)]
    sampler = BucketBatchSampler(lengths, 8, seed=3)
    first = list(sampler)
    assert list(sampler) == first
    sampler.set_epoch(1)
    second = list(sampler)
    assert second != first and sorted(map(sorted, second)) != sorted(map(sorted, first))
    assert list(BucketBatchSampler(lengths, 8, seed=4)) != first
    unshuffled = BucketBatchSampler(lengths, 8, shuffle=False, bucket=False)
    assert [i for b in unshuffled for i in b] == list(range(300))


@pytest.mark.parametrize("n_docs, batch_size", [(500, 16), (100, 7), (33, 4)])
def test_ddp_train_shards_are_disjoint_and_equal(n_docs: int, batch_size: int) -> None:
    lengths = [random.Random(i).randint(1, 50) for i in range(n_docs)]
    for epoch in (0, 5):
        shards = []
        for rank in (0, 1):
            sampler = BucketBatchSampler(lengths, batch_size, seed=9, rank=rank, world_size=2)
            sampler.set_epoch(epoch)
            shards.append(list(sampler))
            assert len(shards[-1]) == len(sampler)
        assert len(shards[0]) == len(shards[1]) == -(-n_docs // batch_size) // 2
        docs = [[i for batch in shard for i in batch] for shard in shards]
        assert not set(docs[0]) & set(docs[1])
        single = BucketBatchSampler(lengths, batch_size, seed=9)
        single.set_epoch(epoch)
        # The two ranks split the single-process epoch's batches between them.
        assert sorted(shards[0] + shards[1]) == sorted(list(single)[: 2 * len(shards[0])])


def test_ddp_eval_shards_score_every_document_once() -> None:
    lengths = [random.Random(i).randint(1, 50) for i in range(101)]
    seen = []
    for rank in range(3):
        sampler = EvalBatchSampler(lengths, 8, rank=rank, world_size=3)
        batches = list(sampler)
        assert len(batches) == len(sampler)
        seen.extend(i for batch in batches for i in batch)
        flat = [lengths[i] for batch in batches for i in batch]
        assert flat == sorted(flat, reverse=True)  # sorted by length
    assert sorted(seen) == list(range(101))


def test_datamodule_reads_rank_and_epoch_from_trainer() -> None:
    corpus = random_corpus(n_train=200)
    datamodule = module(corpus, batch_size=10, seed=2)
    datamodule.trainer = SimpleNamespace(global_rank=1, world_size=2, current_epoch=4)
    ids = [batch.sample_ids.tolist() for batch in datamodule.train_dataloader()]
    expected = BucketBatchSampler(datamodule.datasets["train"].lengths(), 10, seed=2, rank=1, world_size=2)
    expected.set_epoch(4)
    assert ids == list(expected)
    eval_ids = [i for batch in datamodule.val_dataloader() for i in batch.sample_ids.tolist()]
    assert len(eval_ids) == len(corpus.validation) // 2  # 37 documents: rank 1 gets 18


def test_batch_fields() -> None:
    corpus = random_corpus(n_train=20, n_eval=9)
    datamodule = module(corpus, batch_size=4, eval_batch_size=5)
    for split, loader in (("train", datamodule.train_dataloader()), ("test", datamodule.test_dataloader())):
        for batch in loader:
            assert isinstance(batch, Batch) and batch.is_word_level
            assert batch.input_ids.dtype == torch.long
            for row, sample in enumerate(batch.sample_ids.tolist()):
                document = corpus.split(split)[sample]
                n = len(document.tokens)
                assert batch.labels[row] == document.label
                assert batch.word_mask[row].tolist() == [1] * n + [0] * (batch.word_mask.shape[1] - n)
                assert batch.attention_mask[row].tolist() == batch.word_mask[row].tolist()
                assert batch.word_ids[row, :n].tolist() == list(range(n))
                assert torch.all(batch.word_ids[row, n:] == -1)
                assert torch.all(batch.input_ids[row, n:] == PAD_ID)
                expected = document.highlights if document.highlights is not None else [-1] * n
                assert batch.highlights[row, :n].tolist() == expected
                assert torch.all(batch.highlights[row, n:] == -1)
                assert datamodule.vocabulary.decode(batch.input_ids[row, :n].tolist()) == document.tokens
    assert datamodule.encoding_info["train"]["oov_tokens"] == 0
    assert datamodule.encoding_info["test"]["documents"] == 9


def test_datamodule_and_collate_pickle() -> None:
    datamodule = module(random_corpus(n_train=30), batch_size=8)
    clone = pickle.loads(pickle.dumps(datamodule))
    first = next(iter(clone.train_dataloader()))
    assert torch.equal(first.input_ids, next(iter(datamodule.train_dataloader())).input_ids)
    assert pickle.loads(pickle.dumps(BatchCollator(0))).pad_id == 0


def test_sampler_rejects_more_ranks_than_batches() -> None:
    with pytest.raises(ValueError, match="cannot be shared by 4 processes"):
        BucketBatchSampler([5, 5, 5], 2, rank=0, world_size=4)


def test_lightning_fit_calls_set_epoch_and_keeps_sampler() -> None:
    import lightning.pytorch as pl

    corpus = random_corpus(n_train=40, n_eval=6)
    datamodule = module(corpus, batch_size=8)

    class Probe(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Embedding(len(datamodule.vocabulary), 2)
            self.epochs: list[list[int]] = []

        def on_train_epoch_start(self) -> None:
            self.epochs.append([])

        def training_step(self, batch: Batch, index: int) -> torch.Tensor:
            self.epochs[-1].extend(batch.sample_ids.tolist())
            logits = self.layer(batch.input_ids).mean(1)
            return torch.nn.functional.cross_entropy(logits, batch.labels)

        def validation_step(self, batch: Batch, index: int) -> None:
            pass

        def configure_optimizers(self) -> torch.optim.Optimizer:
            return torch.optim.SGD(self.parameters(), lr=0.1)

    probe = Probe()
    trainer = pl.Trainer(
        max_epochs=2, logger=False, enable_checkpointing=False, enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(probe, datamodule)
    assert isinstance(trainer.train_dataloader.sampler, BucketBatchSampler)
    assert [sorted(e) for e in probe.epochs] == [list(range(40))] * 2
    assert probe.epochs[0] != probe.epochs[1]  # set_epoch reshuffled


def test_fixed_width_pads_every_split_to_it() -> None:
    """``pad_to``: every batch of every split as wide as the Liu et al. loaders make it, padding after the words."""
    corpus = random_corpus(n_train=40, n_eval=9)
    datamodule = module(corpus, batch_size=8, pad_to=128, bucket=False)
    loaders = [datamodule.train_dataloader(), datamodule.val_dataloader(), datamodule.test_dataloader()]
    for batch in (b for loader in loaders for b in loader):
        assert batch.input_ids.shape[1] == batch.word_mask.shape[1] == batch.highlights.shape[1] == 128
        lengths = batch.attention_mask.sum(1)
        assert torch.equal(batch.word_mask.sum(1), lengths)
        for row, n in enumerate(lengths.tolist()):
            assert (batch.input_ids[row, n:] == PAD_ID).all() and (batch.word_ids[row, n:] == -1).all()


def test_a_document_longer_than_the_fixed_width_is_refused() -> None:
    corpus = random_corpus(n_train=40, n_eval=9)  # documents of up to 120 words
    with pytest.raises(ValueError, match="more than model.pad_to=16.*dataset.max_length"):
        list(module(corpus, batch_size=8, pad_to=16).train_dataloader())
