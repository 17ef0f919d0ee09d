"""The family under 2-process CPU DDP (gloo): replicas stay identical and equal one process on the global batch.

One pair of processes, forks of the test process, trains every model in turn
(the process group is set up once; Lightning sees an externally launched job),
so the test pays for process start-up once. Each model's comparison needs a loss that is a mean
over examples and no randomness: every document has the same length, the
sparsity target is 1 with a small weight and the learning rate is small
(|rate - 1| is linear in the mask only while no process selects every word:
at rate 1 the kink would make a process's gradient differ from its share of
the global one), dropout is off, and
the Gumbel sample is replaced by the deterministic mask with p(keep)'s
straight-through gradient (so the selectors still learn), and Adam's epsilon
is raised to 1e-4: Adam's first steps move a parameter by about lr whatever
the size of its gradient, so a gradient that is zero up to rounding (FR's
shared encoder receives two contributions that can cancel) would otherwise
turn summation-order noise into ±lr differences.
"""
from __future__ import annotations

import os

import lightning.pytorch as pl
import pytest
import torch
from family_helpers import overrides, straight_through_deterministic
from forked_ranks import free_port, run_ranks

from pyhighlights.components import policy, selectors
from pyhighlights.config.compose import compose_config
from pyhighlights.testing import fixed_rank_loader
from pyhighlights.training.run import Experiment, resolve_specs

COMMON = ("backbone.dropout=0", "model.predictor.dropout=0", "model.selector.dropout=0",
          "model.losses.sparsity.target=1.0", "model.losses.sparsity.weight=1", "model.lr=0.001")
MODELS = {
    "fr": [],
    "dr": [],
    "mgr": ["model.num_generators=2"],
    "mcd": [],
    "mrd": [],
    "dar": ["model.auxiliary_epochs=1", "model.auxiliary_predictor.dropout=0"],
    "n2r": [],
    "a2r": [],
    "three_player": [],
    "three_player_introspective": [],
    "three_player_pathwise": [],
    "nir": [],
    # torch's Adam (the one patched above); h(t) = t: ReLU of a batch-mean gap is taken per process under DDP
    "invrat": ["model.adam=torch", "model.schedule=[1,1,1]", "model.losses.invariance.penalty=identity"],
    # torch's Adam; no CMD: its moments are each process's batch statistics (DDP matches each share's own)
    "dmr": ["model.adam=torch", "model.auxiliary_epochs=1", "model.losses.feature_match.weight=0"],
    "car": ["model.adam=torch"],
    # a temperature at which the SparseMAP solution mixes several structures, so the selector's gradient is not 0
    "spectra": ["model.selector.temperature=1"],
}
# 3PLAYER has no sparsity term (its reward counts kept words): the others' settings without it
OWN_COMMON = {name: ("backbone.dropout=0", "model.selector.dropout=0", "model.lr=0.001")
              for name in ("three_player", "three_player_introspective")}
# SPECTRA: no sparsity term (its budget bounds the kept words), no selector dropout, its own encoder dropout
OWN_COMMON["spectra"] = ("backbone.dropout=0", "model.encoder_dropout=0", "model.predictor.dropout=0",
                         "model.lr=0.001")
EPOCHS = {"dar": 2, "dmr": 2}  # one pre-training epoch, one rationaliser (game) epoch


class FixedBatches(pl.LightningDataModule):
    def train_dataloader(self):
        return fixed_rank_loader(self.trainer, seed=0)

    def val_dataloader(self):
        return fixed_rank_loader(self.trainer, seed=1)


def specs(data_dir: str) -> dict:
    return {name: resolve_specs(compose_config(overrides(data_dir, name, *OWN_COMMON.get(name, COMMON), *extra)))
            for name, extra in MODELS.items()}


def train(name, run_specs, **strategy) -> dict[str, torch.Tensor]:
    pl.seed_everything(0, verbose=False)
    model = Experiment(run_specs).model()
    trainer = pl.Trainer(max_epochs=EPOCHS.get(name, 1), accelerator="cpu", logger=False,
                         enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                         use_distributed_sampler=False, num_sanity_val_steps=0,
                         limit_val_batches=1 if name == "dar" else 0, **strategy)
    trainer.fit(model, datamodule=FixedBatches())
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


saved_policy_mask = policy.policy_mask


class TolerantAdam(torch.optim.Adam):
    def __init__(self, params, **kwargs):
        super().__init__(params, **{**kwargs, "eps": 1e-4})


def deterministic() -> tuple:
    """Patch (in this process) the Gumbel sample and Adam; return what to restore."""
    saved = (selectors.hard_gumbel_mask, torch.optim.Adam, policy.policy_mask)
    selectors.hard_gumbel_mask = straight_through_deterministic
    torch.optim.Adam = TolerantAdam
    policy.policy_mask = policy_mode  # 3PLAYER's policy: its most probable choice instead of a draw
    return saved


def policy_mode(log_probs, training):
    return saved_policy_mask(log_probs, False)


def restore(saved: tuple) -> None:
    selectors.hard_gumbel_mask, torch.optim.Adam, policy.policy_mask = saved


def worker(rank: int, port: int, out: str, all_specs: dict) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="2", RANK=str(rank),
                      LOCAL_RANK=str(rank), NODE_RANK="0", OMP_NUM_THREADS="1")
    torch.set_num_threads(1)
    deterministic()
    for name, run_specs in all_specs.items():
        state = train(name, run_specs, devices=2, strategy="ddp")
        torch.save(state, f"{out}/{name}_rank{rank}.pt")


@pytest.fixture(scope="module")
def ddp_states(family_tiny_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("family_ddp")
    all_specs = specs(str(family_tiny_dir))
    run_ranks(worker, (free_port(), str(out), all_specs))
    saved = deterministic()
    try:
        single = {name: train(name, run_specs, devices=1) for name, run_specs in all_specs.items()}
        initial = {}
        for name, run_specs in all_specs.items():
            pl.seed_everything(0, verbose=False)
            initial[name] = Experiment(run_specs).model().state_dict()
    finally:
        restore(saved)
    return {name: ([torch.load(out / f"{name}_rank{r}.pt") for r in (0, 1)], single[name], initial[name])
            for name in MODELS}


@pytest.mark.parametrize("name", list(MODELS))
def test_ddp_equals_single_process(ddp_states, name):
    (rank0, rank1), single, initial = ddp_states[name]
    moved = 0
    for key, value in single.items():
        assert torch.equal(rank0[key], rank1[key]), f"{name} {key}: the replicas differ"
        assert torch.allclose(rank0[key].float(), value.float(), atol=2e-5), f"{name} {key}: DDP != one process"
        moved += not torch.equal(value, initial[key])
    assert moved > 10, f"{name}: too few tensors trained for the comparison to mean anything"
    if name == "dar":
        assert bool(rank0["auxiliary_frozen"])
