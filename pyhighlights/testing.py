"""Helpers for tests and quick experiments: small corpora and fast overrides."""
from __future__ import annotations

from pathlib import Path


def write_tiny_beer(out_dir: Path) -> Path:
    """A small Lei-format corpus with short reviews: for plumbing tests, not for learning."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(out_dir, seed=3, n_train=400, n_heldout=60, n_test=60, min_length=30, max_length=60)


def write_learnable_beer(out_dir: Path) -> Path:
    """Short synthetic reviews (30-60 words), 688 balanced training documents, 200 annotated test reviews (166
    once the middle band is dropped; majority class 0.61, a random 20 % selection scores highlight F1 ~0.16):
    enough signal for a seeded learning test in seconds; the large test split keeps the scores' sampling
    noise well below the tests' margins (one test document is 0.006 of accuracy)."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(out_dir, seed=3, n_train=1000, n_heldout=60, n_test=200, min_length=30, max_length=60)


def write_short_learnable_beer(out_dir: Path) -> Path:
    """:func:`write_learnable_beer` with reviews of 20-40 words (704 balanced training documents, 164 annotated
    test reviews; majority class 0.58, a random 20 % selection scores highlight F1 ~0.16). A recurrent
    training step over it costs about three quarters of one over the 30-60-word corpus (measured: FR, batch
    64, 0.14 against 0.20 CPU-s), and in batches of 32 the SPP-family models' learning tests take 26-85 % of
    the optimiser steps they took on that corpus in batches of 16 (tests/family/test_family_learns.py)."""
    from pyhighlights.data.synthetic import write_synthetic_beer

    return write_synthetic_beer(out_dir, seed=3, n_train=1000, n_heldout=60, n_test=200, min_length=20, max_length=40)


def tiny_overrides(data_dir, *extra: str) -> list[str]:
    """Hydra overrides for a fast run on a corpus written by :func:`write_tiny_beer`."""
    return [
        "dataset=beer", f"dataset.data_dir={data_dir}", "backbone.hidden_size=16", "embeddings.dim=16",
        "trainer.batch_size=16", "trainer.max_epochs=1", "trainer.progress_bar=false", *extra,
    ]


# --- DDP equivalence tests: fixed equal-length batches per rank -------------------------
STEPS, PER_RANK, LENGTH, VOCAB = 3, 4, 12, 40


def equal_length_batch(generator, size: int, first_id: int, length: int = LENGTH, vocab: int = VOCAB):
    """Random documents of one length (no padding, so word means are example means)."""
    import torch

    from pyhighlights.data.batch import Batch

    ids = torch.randint(2, vocab, (size, length), generator=generator)
    ones = torch.ones(size, length, dtype=torch.long)
    return Batch(ids, ones, torch.arange(length).expand(size, length).clone(), ones,
                 torch.zeros(size, length, dtype=torch.long), torch.randint(0, 2, (size,), generator=generator),
                 torch.arange(first_id, first_id + size),
                 # environments for the models that need them (InvRat); no draw, so other models' batches are unchanged
                 environments=torch.arange(first_id, first_id + size) % 2)


def rank_batches(seed: int = 0, steps: int = STEPS, per_rank: int = PER_RANK) -> list:
    """``[rank][step]`` batches for a 2-process run."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    return [[equal_length_batch(generator, per_rank, 100 * step + 10 * rank) for step in range(steps)]
            for rank in range(2)]


def concat_batches(a, b):
    import torch

    from pyhighlights.data.batch import Batch

    # optional fields (highlight_spans) are None in these synthetic batches
    return Batch(**{f: None if getattr(a, f) is None else torch.cat([getattr(a, f), getattr(b, f)])
                    for f in Batch.__dataclass_fields__})


def _identity(batch):
    return batch


def fixed_rank_loader(trainer, seed: int):
    """Rank r of a 2-process run gets ``rank_batches(seed)[r]``; one process gets both, concatenated."""
    from torch.utils.data import DataLoader

    per_rank = rank_batches(seed)
    if trainer.world_size == 2:
        batches = per_rank[trainer.global_rank]
    else:
        batches = [concat_batches(a, b) for a, b in zip(*per_rank)]
    return DataLoader(batches, batch_size=None, collate_fn=_identity)


def scripted_validation(first_scored_epoch: int, logged_per_epoch: list[dict[str, float]]):
    """A LightningModule that trains nothing and logs ``logged_per_epoch[epoch]`` at validation.

    Checkpoint-selection and early-stopping callbacks are then tested on a hand-made sequence of
    validation values; ``first_scored_epoch`` marks the warm-up epochs those callbacks must ignore.
    """
    import lightning.pytorch as pl
    import torch

    class Scripted(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.first_scored_epoch = first_scored_epoch
            self.weight = torch.nn.Parameter(torch.zeros(1))

        def training_step(self, batch, batch_idx):
            return (self.weight * batch[0]).sum()

        def validation_step(self, batch, batch_idx):
            for name, value in logged_per_epoch[self.current_epoch].items():
                self.log(name, value)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.0)

        def train_dataloader(self):
            return [torch.ones(1)]

        def val_dataloader(self):
            return [torch.ones(1)]

    return Scripted()


def quiet_cpu_trainer(max_epochs: int = 1, **kwargs):
    """A CPU Trainer for tests: no logger, checkpoints, progress bar or validation; ``kwargs`` override."""
    import lightning.pytorch as pl

    settings = dict(max_epochs=max_epochs, accelerator="cpu", logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False, use_distributed_sampler=False,
                    limit_val_batches=0, num_sanity_val_steps=0)
    return pl.Trainer(**{**settings, **kwargs})
