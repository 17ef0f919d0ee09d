"""G-RAT under 2-process CPU DDP (gloo) equals single-process training on the global batch.

The comparison needs a loss that is a mean over examples: every document has
the same length (word means = example means), the sparsity target is 1 (so
|rate - s| = 1 - rate is linear), and every source of noise is off (dropout,
guider noise; the Gumbel sample is replaced by the deterministic mask inside
each process by a callback).
"""
from __future__ import annotations

import lightning.pytorch as pl
import torch
from forked_ranks import start_method

from pyhighlights.components import selectors
from pyhighlights.config.compose import compose_config
from pyhighlights.testing import STEPS, fixed_rank_loader, tiny_overrides
from pyhighlights.training.run import Experiment, resolve_specs

class FixedBatches(pl.LightningDataModule):
    def train_dataloader(self):
        return fixed_rank_loader(self.trainer, seed=0)


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


# A bias added to every score before a softmax has an exactly zero gradient (softmax is shift-invariant);
# what autograd returns for it is rounding noise, which Adam scales up to steps of about the learning rate
# with a sign that depends on summation order. Their values say nothing about DDP's averaging.
SOFTMAX_SHIFTS = {"guider.scorer.2.bias", "guider.pool_scorer.3.bias"}


def test_ddp_equals_single_process(tiny_beer_dir, tmp_path):
    original = selectors.hard_gumbel_mask
    cfg = compose_config(tiny_overrides(
        tiny_beer_dir, "model=grat", "model.pretrain_epochs=0", "model.lr=0.001", "model.decay=0.2",
        "backbone.dropout=0", "model.selector.dropout=0", "model.predictor.dropout=0", "model.guider.dropout=0",
        "model.guider.noise_sigma=0",
        "model.losses.sparsity.target=1.0"))
    experiment = Experiment(resolve_specs(cfg))
    try:
        pl.seed_everything(0)
        # forked processes: they inherit the imports a spawned one would repeat (how they start is not the question)
        train(experiment.model(), tmp_path, devices=2, strategy=f"ddp_{start_method()}")
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
        if name in SOFTMAX_SHIFTS:
            continue
        assert torch.allclose(rank0[name].float(), value.float(), atol=2e-5), f"{name}: DDP != single process"
        moved += not torch.equal(value, initial[name])
    assert moved > 10  # the comparison is about parameters that actually trained
