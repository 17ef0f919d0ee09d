"""DAR: discriminatively aligned rationalization (Liu et al., ICDE 2024).

W. Liu et al. "Enhancing the Rationale-Input Alignment for Self-explaining
Rationalization." ICDE 2024. Reference code: github.com/jugechengzi/dar.

A rationale should mean to the task what the full input means. DAR checks
that with an **auxiliary predictor (the teacher) pre-trained on the full
text** and then frozen: the selector is trained so that this fixed,
full-text-calibrated classifier also classifies the rationale correctly.

Schedule (one Lightning run; ``teacher_beer.py`` pre_tea, then train_share):
1. the first ``auxiliary_epochs`` epochs train only the teacher (its own
   encoder, LayerNorm and classifier), CE on the full text; every validation
   epoch scores it on the full validation text;
2. then its best state (by ``auxiliary_selection``) is restored and frozen
   (no gradients, never in an optimiser step again);
3. from then on 0.9·CE + λs·sparsity + λc·continuity + 0.9·CE(teacher(Z), y)
   trains the selector and the predictor (gradients reach the selector
   *through* the frozen teacher).
Checkpoint selection and early stopping ignore the pre-training epochs.

Outputs: ``logits`` (predictor on Z), ``auxiliary_logits`` (teacher on Z);
``auxiliary_full_logits`` during pre-training. Terms: ``task``,
``sparsity``, ``continuity``, ``auxiliary_task``;
``auxiliary_losses.auxiliary_task`` is the pre-training loss.

Reference parity (``teacher_beer.py`` argparse defaults; ``model.py``
Teacher and GenEncNoShareModel with ``lay=True``; ``train_util.py``):
lr 1e-4, s 0.1, λs 12, λc 10, ``--cls_lambda`` and ``--tea_lambda`` 0.9;
teacher pre-trained ``--pre_epoch`` 20 epochs (the README's run uses 100:
``experiment=dar_beer_appearance``), the epoch with the best dev **F1**
(class 1) kept, then used in **train mode** (``.train()``: its dropout stays
on); LayerNorms on the selector path, the predictor path and the teacher
(``layer_norm: both``); every predictor max-pools over every real word; a
Gumbel sample at evaluation.

Departures, each a named option: ``losses.sparsity.padding=excluded``,
``losses.continuity.padding=excluded`` (real words only; the reference counts
the padded width, ``metric.py``); ``auxiliary_selection=accuracy``;
``auxiliary_mode=eval`` (no dropout in the frozen teacher);
``encoder_dropout=null`` (the backbone's dropout on embeddings and
states); ``selector.evaluation=threshold``; ``predictor_pool=kept``. Always:
pre-training is the first epochs of the same run (the best state kept in
memory and in checkpoints) rather than a separate run and file.
"""
from __future__ import annotations

from typing import Literal

from cinnamon.registry import RegistrationKey
from torch import nn

from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.liu_family.shared import LiuFamilyConfig, liu_losses
from pyhighlights.models.mechanics import AuxiliaryPretraining
from pyhighlights.models.phases import Phase, PhasedTraining
from pyhighlights.models.rnp import RNP
from pyhighlights.registry import Param, registration_key as key


class DARConfig(LiuFamilyConfig):
    auxiliary_predictor: RegistrationKey = Param(key("predictor", "mlp"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity"), "auxiliary_task": key("loss", "cross_entropy")})
    auxiliary_losses: dict[str, RegistrationKey] = Param({"auxiliary_task": key("loss", "cross_entropy")})
    auxiliary_epochs: int = Param(20, ge=1, description="epochs in which only the auxiliary predictor trains")
    auxiliary_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                       description="auxiliary pre-training learning rate; null = lr")
    auxiliary_selection: Literal["f1", "accuracy"] = Param(
        "f1", description="how the best pre-training epoch is chosen on the full validation text")
    auxiliary_mode: Literal["train", "eval"] = Param(
        "train", description="mode of the frozen auxiliary predictor while the rationaliser trains")
    auxiliary_layer_norm: bool = Param(True, description="LayerNorm on the auxiliary encoder's states")
    outputs = {"losses": SELECTION_OUTPUTS | {"auxiliary_logits"},
               "auxiliary_losses": frozenset({"auxiliary_full_logits", "labels"})}
    defaults = {"layer_norm": "both",
                "losses": {**liu_losses(target=0.1, sparsity=12.0, continuity=10.0),
                           "auxiliary_task": {"weight": 0.9, "logits": "auxiliary_logits"}},
                "auxiliary_losses": {"auxiliary_task": {"logits": "auxiliary_full_logits"}}}


class DAR(PhasedTraining, AuxiliaryPretraining, RNP):
    def __init__(self, *, auxiliary_epochs: int, auxiliary_lr: float | None, auxiliary_selection: str,
                 auxiliary_mode: str, auxiliary_layer_norm: bool, **rnp):
        super().__init__(**rnp)
        self.auxiliary_encoder = self.make_backbone()
        size = self.auxiliary_encoder.output_size
        self.auxiliary_norm = nn.LayerNorm(size) if auxiliary_layer_norm else nn.Identity()
        self.auxiliary_predictor = self.build_slot("auxiliary_predictor", input_size=size,
                                                   num_classes=self.num_classes)
        self.auxiliary_lr = auxiliary_lr or self.lr
        self.init_auxiliary(auxiliary_epochs, self.build_slot("auxiliary_losses"), selection=auxiliary_selection,
                            frozen_mode=auxiliary_mode)

    # --- parts ----------------------------------------------------------------------
    def auxiliary_modules(self):
        return [self.auxiliary_encoder, self.auxiliary_norm, self.auxiliary_predictor]

    def rationaliser_modules(self):
        return [self.selector_encoder, self.selector_norm, self.selector,
                self.predictor_encoder, self.predictor_norm, self.predictor]

    def parts(self):
        return {"auxiliary": self.auxiliary_modules(), "rationaliser": self.rationaliser_modules()}

    def optimisers(self):
        return {"auxiliary": self.make_optimizer(self.auxiliary_modules(), lr=self.auxiliary_lr),
                "rationaliser": self.make_optimizer(self.rationaliser_modules())}

    def phases(self):
        return [
            # the teacher alone on the full text while it pre-trains
            Phase("auxiliary", trains=("auxiliary",), optimisers=("auxiliary",), outputs=self.auxiliary_outputs,
                  losses="auxiliary_losses", when=lambda: self.pretraining, logged="train/auxiliary_loss",
                  progress_bar=True, reported=False),
            # then the rationaliser, its gradient reaching the selector through the frozen teacher
            Phase("rationaliser", trains=("rationaliser",), optimisers=("rationaliser",),
                  outputs=lambda step: self(step.batch), when=lambda: not self.pretraining),
        ]

    def auxiliary_logits(self, batch, keep_words=None):
        states, pool_mask = self.encode_words(self.auxiliary_encoder, batch, keep_words, norm=self.auxiliary_norm)
        return self.auxiliary_predictor(self.pool(states, pool_mask))

    # --- steps ----------------------------------------------------------------------
    def forward(self, batch):
        selection = self.select(batch)
        logits = self.predict(batch, selection.mask)
        return self.outputs(batch, selection, logits, auxiliary_logits=self.auxiliary_logits(batch, selection.mask))
