"""G-RAT under 2-process CPU DDP (gloo) equals single-process training on the global batch.

The comparison needs a loss that is a mean over examples: every document has
the same length (word means = example means), the sparsity target is 1 (so
|rate - s| = 1 - rate is linear), and every source of noise is off (dropout,
guider noise; the Gumbel sample is replaced by the deterministic mask inside
each process by a callback).
"""
from __future__ import annotations

import lightning.pytorch as pl
import pytest
import torch
from pyhighlights.testing import tiny_overrides
from torch.utils.data import DataLoader

from pyhighlights.components import selectors
from pyhighlights.config.compose import compose_config
from pyhighlights.data.batch import Batch
from pyhighlights.training.run import Experiment, resolve_specs

STEPS, PER_RANK, LENGTH, VOCAB = 3, 4, 12, 40


def make_batch(generator: torch.Generator, size: int, first_id: int) -> Batch:
    ids = torch.randint(2, VOCAB, (size, LENGTH), generator=generator)
    ones = torch.ones(size, LENGTH, dtype=torch.long)
    return Batch(ids, ones, torch.arange(LENGTH).expand(size, LENGTH).clone(), ones,
                 torch.zeros(size, LENGTH, dtype=torch.long), torch.randint(0, 2, (size,), generator=generator),
                 torch.arange(first_id, first_id + size))


def rank_batches() -> list[list[Batch]]:
    generator = torch.Generator().manual_seed(0)
    return [[make_batch(generator, PER_RANK, 100 * step + 10 * rank) for step in range(STEPS)] for rank in range(2)]


def cat(a: Batch, b: Batch) -> Batch:
    return Batch(*(torch.cat([getattr(a, f), getattr(b, f)]) for f in Batch.__dataclass_fields__))


class FixedBatches(pl.LightningDataModule):
    """Rank r of a 2-process run gets rank_batches()[r]; one process gets both, concatenated."""

    def train_dataloader(self):
        per_rank = rank_batches()
        if self.trainer.world_size == 2:
            batches = per_rank[self.trainer.global_rank]
        else:
            batches = [cat(a, b) for a, b in zip(*per_rank)]
        return DataLoader(batches, batch_size=None, collate_fn=lambda x: x)


class Deterministic(pl.Callback):
    """Runs in every process: no Gumbel noise; saves each rank's final state."""

    def __init__(self, out_dir):
        self.out_dir = out_dir

    def setup(self, trainer, pl_module, stage):
        selectors.hard_gumbel_mask = lambda logits, temperature: selectors.deterministic_mask(logits)

    def on_train_end(self, trainer, pl_module):
        torch.save({k: v.detach().clone() for k, v in pl_module.state_dict().items()},
                   self.out_dir / f"rank{trainer.global_rank}_of{trainer.world_size}.pt")


def train(model, out_dir, **strategy):
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, use_distributed_sampler=False,
                         limit_val_batches=0, num_sanity_val_steps=0, callbacks=[Deterministic(out_dir)], **strategy)
    trainer.fit(model, datamodule=FixedBatches())


def test_ddp_equals_single_process(tiny_beer_dir, tmp_path):
    original = selectors.hard_gumbel_mask
    cfg = compose_config(tiny_overrides(
        tiny_beer_dir, "model=grat", "model.pretrain_epochs=0", "model.lr=0.001", "model.decay=0.2",
        "backbone.dropout=0", "model.predictor.dropout=0", "model.guider.dropout=0", "model.guider.noise_sigma=0",
        "model.losses.sparsity.target=1.0"))
    experiment = Experiment(resolve_specs(cfg))
    try:
        pl.seed_everything(0)
        train(experiment.model(), tmp_path, devices=2, strategy="ddp_spawn")
        pl.seed_everything(0)
        train(experiment.model(), tmp_path, devices=1)
    finally:
        selectors.hard_gumbel_mask = original
    rank0, rank1 = (torch.load(tmp_path / f"rank{r}_of2.pt") for r in (0, 1))
    single = torch.load(tmp_path / "rank0_of1.pt")
    assert int(rank0["rationaliser_steps"]) == int(single["rationaliser_steps"]) == STEPS
    initial = experiment.model().state_dict()
    moved = 0
    for name, value in single.items():
        assert torch.equal(rank0[name], rank1[name]), f"{name} differs between ranks"
        assert torch.allclose(rank0[name].float(), value.float(), atol=2e-5), f"{name}: DDP != single process"
        moved += not torch.equal(value, initial[name])
    assert moved > 10  # the comparison is about parameters that actually trained
