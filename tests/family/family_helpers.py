"""Helpers of the SPP-family tests: building a model from overrides, short trainers, snapshots."""
from __future__ import annotations

import lightning.pytorch as pl
import torch
from learning_stop import thresholds, train_until_learned

from pyhighlights.components import selectors
from pyhighlights.config.compose import compose_config
from pyhighlights.testing import quiet_cpu_trainer
from pyhighlights.training.run import Experiment, resolve_specs


def overrides(data_dir, model: str, *extra: str) -> list[str]:
    return ["dataset=beer", f"dataset.data_dir={data_dir}", f"model={model}", "backbone.hidden_size=16",
            "embeddings.dim=16", "trainer.batch_size=16", "trainer.max_epochs=1", "trainer.progress_bar=false",
            *extra]


# Each batch padded to its longest document, not to the Liu et al. loaders' 256 tokens (the family's default): for
# tests of a step's mechanics, where the padding width is not the question, a fraction of the recurrent work.
SHORT_PADDING = "model.pad_to=null"


def experiment(data_dir, model: str, *extra: str) -> Experiment:
    return Experiment(resolve_specs(compose_config(overrides(data_dir, model, *extra))))


def trained_test_metrics(exp: Experiment, seed: int, epochs: int) -> dict[str, float]:
    """The test metrics of ``exp``'s model trained from ``seed`` for ``epochs`` (what the learning tests score)."""
    pl.seed_everything(seed, verbose=False)
    model = exp.model()
    datamodule = exp.datamodule(seed)
    fit = quiet_cpu_trainer(epochs)
    fit.fit(model, datamodule=datamodule)
    return fit.test(model, datamodule=datamodule, verbose=False)[0]


def learned_test_scores(exp: Experiment, seed: int, max_epochs: int, min_accuracy: float,
                        min_f1: float) -> list[dict[str, float]]:
    """The test metrics after each epoch of ``exp``'s model trained from ``seed``, stopping after the first epoch
    whose test accuracy and highlight F1 reach their minimums (or after ``max_epochs``); the last entry is the
    score a learning test asserts."""
    pl.seed_everything(seed, verbose=False)
    model = exp.model()
    datamodule = exp.datamodule(seed)
    return train_until_learned(model, datamodule, max_epochs, thresholds(min_accuracy, min_f1))


def trainer(max_epochs: int = 1, **kwargs) -> pl.Trainer:
    """One training batch per epoch unless ``limit_train_batches`` says otherwise."""
    return quiet_cpu_trainer(max_epochs, **{"limit_train_batches": 1, **kwargs})


def snapshot(modules) -> list[torch.Tensor]:
    return [p.detach().clone() for m in modules for p in m.parameters()]


def same(a, b) -> bool:
    return len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b))


def first_batch(exp: Experiment, seed: int = 0):
    datamodule = exp.datamodule(seed)
    datamodule.setup("fit")
    return next(iter(datamodule.train_dataloader()))


class Recorder(pl.Callback):
    """Keeps the batch and the global RNG state at the start of every training batch."""

    def __init__(self):
        self.batches, self.rng = [], []

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.batches.append(batch)
        self.rng.append(torch.get_rng_state())


def soft_keep(logits, temperature):
    """A noiseless, differentiable stand-in for the hard Gumbel sample: p(keep) itself."""
    return torch.softmax(logits, dim=-1)[..., 1]


def straight_through_deterministic(logits, temperature):
    """The deterministic mask in the forward pass, p(keep)'s gradient in the backward pass."""
    p = torch.softmax(logits, dim=-1)[..., 1]
    # (p - p.detach()) is exactly 0 in value, so the mask is exactly 0/1 and |m_t - m_{t-1}| is exactly 0
    # between equal neighbours (hard + p - p would leave rounding noise, and abs'(noise) = +-1).
    return selectors.deterministic_mask(logits) + (p - p.detach())


def adam_first_step(before: torch.Tensor, grad: torch.Tensor, lr: float, eps: float = 1e-8) -> torch.Tensor:
    """Adam's first update from zero state: theta - lr * g / (|g| + eps) (bias corrections cancel)."""
    return before - lr * grad / (grad.abs() + eps)
