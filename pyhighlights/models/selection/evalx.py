"""EVAL-X's evaluator, and a selector trained against it frozen (Jethani et al., AISTATS 2021).

N. Jethani, M. Sudarshan, Y. Aphinyanaphongs and R. Ranganath. "Have We Learned to Explain?: How
Interpretability Methods Can Learn to Encode Predictions in their Interpretations." AISTATS 2021.
Reference code: github.com/rajesh-lab/realx (``realx.py``, ``sample.py``; TensorFlow 2.2 / Keras).

A selector and a predictor trained together can *encode* the label in the mask: the selector chooses which
words to keep by the class it has already decided, and the predictor learns to read the choice (where the
kept words are, how many) instead of what they say. The paper's remedy is a predictor that never sees a
learned mask: it is trained on masks drawn uniformly at random, so it approximates p(y | x_S) for *any*
subset S, and a selector can only raise its accuracy by keeping words that carry the label.

Two phases (:meth:`EVALX.phases`; two optimisers, manual optimisation):

1. epochs [0, ``pretrain_epochs``): the **evaluator** (the predictor's encoder and head) alone, on the
   training documents with each real word kept independently with probability ``keep_probability``
   (``sample.py`` Random_Bernoulli_Sampler: keep where u > 0.5, u ~ U(0, 1); ``realx.py`` build_predictor /
   build_evalx multiply the input by the mask), cross-entropy on the label;
2. from ``pretrain_epochs`` on: the **selector** alone, against the evaluator frozen (no gradient to it, its
   optimiser does not step; gradients reach the selector *through* it): task + sparsity + continuity on
   the selector's sample (``realx.py`` SELECTOR.train_step steps the selector's variables only).

The same evaluator, trained on a run's corpus and applied to that run's rationales, is EVAL-X, the
paper's encoding check (:mod:`pyhighlights.evaluation.evalx`, ``scripts/evaluate.py RUN evalx=...``); a
run of this model is also an evaluator ready for it (``evalx=<this run>``).

Defaults: the reference's mechanism (keep probability 0.5, one learning rate for both parts, the
evaluator trained to the end of its phase and then never again, the frozen evaluator still in training
mode as the reference's ``training=True`` calls), with RNP's loss terms, learning rate and schedule for
this corpus (``pretrain_epochs`` 2: the paper's only shared example, MNIST in ``example.ipynb``, runs 500
epochs of each phase at lr 1e-4 in batches of 1000, a setting for that data set).

Departures, each a named option or a stated difference:
- the selector's gradient: the framework's straight-through Gumbel sample (``model.selector``); the
  reference uses REBAR (``sample.py`` REBAR_Bernoulli_Sampler, tau 0.1) with a REINFORCE-style reward;
- its sparsity term: ``|rate - s|`` with a target s (the family's); the reference's ``-lamda * mean(p)``
  (lamda 5 for MNIST) is ``losses.sparsity.target=0 losses.sparsity.weight=5`` on the sample's rate;
- ``losses.continuity.weight=0``: the reference has no continuity term (pixels, not words);
- ``evaluator_mode=eval``: the frozen evaluator read in eval mode (no dropout) during the selector phase.
"""
from __future__ import annotations

from typing import ClassVar, Literal

import torch
from cinnamon.registry import RegistrationKey
from torch import nn

from pyhighlights.components.losses import LossSet
from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.phases import Phase, PhasedTraining
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, Real, registration_key as key


def random_keep_mask(word_mask: torch.Tensor, keep_probability: float,
                     generator: torch.Generator | None = None) -> torch.Tensor:
    """Each real word kept independently with probability ``keep_probability`` (0/1, float); padding 0.

    With 0.5 every subset of a document's n words has probability 2^-n: the uniform distribution over
    subsets the paper trains its evaluator on.
    """
    draws = torch.rand(word_mask.shape, generator=generator, device=word_mask.device)
    return (draws < keep_probability).to(torch.float32) * word_mask.to(torch.float32)


class EVALXConfig(RNPConfig):
    #: A model field counting epochs in which the selector does not train (checked against trainer.max_epochs).
    warmup_field: ClassVar[str] = "pretrain_epochs"
    evaluator_losses: dict[str, RegistrationKey] = Param({"evaluator_task": key("loss", "cross_entropy")})
    pretrain_epochs: int = Param(2, ge=1, description="epochs in which only the evaluator trains, on random "
                                                      "masks; it is frozen afterwards (reference: two fits)")
    keep_probability: float = Real(0.5, gt=0.0, le=1.0, description="probability that a word is kept in the "
                                   "evaluator's random masks (reference: sample.py u > 0.5)")
    evaluator_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                       description="learning rate of the evaluator; null = lr (reference: one)")
    evaluator_mode: Literal["train", "eval"] = Param(
        "train", description="mode of the frozen evaluator in the selector phase: train (dropout on, the "
                             "reference's training=True) or eval")
    outputs = {"losses": SELECTION_OUTPUTS, "evaluator_losses": frozenset({"logits", "labels"})}


class EVALX(PhasedTraining, RNP):
    warm_up_description: ClassVar[str] = "only the evaluator trains, on random masks"
    warm_up_loss: ClassVar[str] = "train/evaluator_loss"

    def __init__(self, *, pretrain_epochs: int, keep_probability: float, evaluator_lr: float | None,
                 evaluator_mode: str, **rnp):
        super().__init__(**rnp)
        self.evaluator_losses = LossSet(self.build_slot("evaluator_losses"))
        self.pretrain_epochs, self.keep_probability = pretrain_epochs, keep_probability
        self.evaluator_lr = evaluator_lr or self.lr
        self.evaluator_mode = evaluator_mode
        self.first_scored_epoch = pretrain_epochs

    # --- parts, optimisers, phases --------------------------------------------------
    def evaluator_modules(self) -> list[nn.Module]:
        return [self.predictor_encoder, self.predictor_norm, self.predictor]

    def selector_modules(self) -> list[nn.Module]:
        return [self.selector_encoder, self.selector_norm, self.selector]

    def parts(self):
        return {"evaluator": self.evaluator_modules(), "selector": self.selector_modules()}

    def optimisers(self):
        return {"evaluator": self.make_optimizer(self.evaluator_modules(), lr=self.evaluator_lr),
                "selector": self.make_optimizer(self.selector_modules())}

    def phases(self):
        return [
            Phase("evaluator", trains=("evaluator",), optimisers=("evaluator",), outputs=self.evaluator_outputs,
                  losses="evaluator_losses", stop_epoch=self.pretrain_epochs, logged="train/evaluator_loss",
                  progress_bar=True, reported=False),
            Phase("selector", trains=("selector",), optimisers=("selector",), outputs=self.selector_outputs,
                  frozen=("evaluator",), start_epoch=self.pretrain_epochs),
        ]

    # --- what each phase reads ------------------------------------------------------
    def evaluator_outputs(self, step):
        batch = step.batch
        keep = random_keep_mask(batch.word_mask, self.keep_probability)
        return {"logits": self.predict(batch, keep), "labels": batch.labels}

    def selector_outputs(self, step):
        if self.evaluator_mode == "train":
            return self(step.batch)
        modules = self.evaluator_modules()
        modes = [m.training for m in modules]
        for m in modules:
            m.eval()
        try:
            return self(step.batch)
        finally:
            for m, mode in zip(modules, modes):
                m.train(mode)
