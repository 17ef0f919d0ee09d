"""DAR: discriminatively aligned rationalization (Liu et al., ICDE 2024).

W. Liu et al. "Enhancing the Rationale-Input Alignment for Self-explaining
Rationalization." ICDE 2024.

A rationale should mean to the task what the full input means. DAR checks
that with an **auxiliary predictor pre-trained on the full text** and then
frozen: the selector is trained so that this fixed, full-text-calibrated
classifier also classifies the rationale correctly. A rationale that only
works for the (co-adapting) predictor — a degenerate, misaligned selection —
is penalised, because the frozen auxiliary predictor was never trained on it.

Schedule (one Lightning run):
1. the first ``auxiliary_epochs`` epochs train only the auxiliary predictor
   (its own encoder and classifier), CE on the full text; every validation
   epoch scores it on the full validation text;
2. when they end, its best validation state is restored and frozen for good
   (no gradients, eval mode, never in an optimiser step again);
3. from then on, RNP's loss plus 0.9·CE(auxiliary(Z), y) trains the selector
   and the predictor (gradients reach the selector *through* the frozen
   auxiliary predictor).
Checkpoint selection and early stopping ignore the pre-training epochs.

Outputs: ``logits`` (predictor on Z), ``auxiliary_logits`` (auxiliary on Z);
``auxiliary_full_logits`` during pre-training. Terms: ``task``,
``sparsity``, ``continuity``, ``auxiliary_task`` = CE(auxiliary_logits),
weight 0.9; ``auxiliary_losses.auxiliary_task`` is the pre-training loss.

Registered defaults (reference values): lr 1e-4, s = 0.15, λs = 11,
λc = 12, auxiliary weight 0.9, 10 pre-training epochs. λs, λc are
the values of the authors' public scripts as we recall them (not re-checked
offline); the reference pre-trains the full-text predictor in a separate run
and we are not sure for how many epochs, hence ``auxiliary_epochs`` (10).
``configs/experiment/quick_dar.yaml`` converges in a few CPU minutes on the
embedded synthetic corpus.

Departures from the reference code:
- pre-training is the first epochs of the same run (best state kept in
  memory and in checkpoints) rather than a separate run and checkpoint file;
- the frozen auxiliary predictor runs in eval mode (no dropout);
- straight-through hard Gumbel-softmax and deterministic evaluation, shared
  with every model here.
"""
from __future__ import annotations

from cinnamon.registry import RegistrationKey

from pyhighlights.models.mechanics import AuxiliaryPretraining
from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.liu_family import LiuFamilyConfig
from pyhighlights.models.rnp import RNP
from pyhighlights.registry import Param, registration_key as key


class DARConfig(LiuFamilyConfig):
    auxiliary_predictor: RegistrationKey = Param(key("predictor", "mlp"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity"), "auxiliary_task": key("loss", "cross_entropy")})
    auxiliary_losses: dict[str, RegistrationKey] = Param({"auxiliary_task": key("loss", "cross_entropy")})
    auxiliary_epochs: int = Param(10, ge=1, description="epochs in which only the auxiliary predictor trains")
    auxiliary_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                       description="auxiliary pre-training learning rate; null = lr")
    outputs = {"losses": SELECTION_OUTPUTS | {"auxiliary_logits"},
               "auxiliary_losses": frozenset({"auxiliary_full_logits", "labels"})}
    defaults = {"losses": {"auxiliary_task": {"weight": 0.9, "logits": "auxiliary_logits"}},
                "auxiliary_losses": {"auxiliary_task": {"logits": "auxiliary_full_logits"}}}


class DAR(AuxiliaryPretraining, RNP):
    def __init__(self, *, auxiliary_predictor, auxiliary_losses, auxiliary_epochs: int = 10,
                 auxiliary_lr: float | None = None, **rnp):
        super().__init__(**rnp)
        self.automatic_optimization = False
        self.auxiliary_encoder = self.make_backbone()
        self.auxiliary_predictor = self.build_part(
            "predictor", auxiliary_predictor, "model.auxiliary_predictor",
            input_size=self.auxiliary_encoder.output_size, num_classes=self.num_classes)
        self.auxiliary_lr = auxiliary_lr or self.lr
        self.init_auxiliary(auxiliary_epochs, auxiliary_losses)

    # --- parts ----------------------------------------------------------------------
    def auxiliary_modules(self):
        return [self.auxiliary_encoder, self.auxiliary_predictor]

    def rationaliser_modules(self):
        return [self.selector_encoder, self.selector, self.predictor_encoder, self.predictor]

    def configure_optimizers(self):
        return [self.make_optimizer(self.auxiliary_modules(), lr=self.auxiliary_lr),
                self.make_optimizer(self.rationaliser_modules())]

    def auxiliary_logits(self, batch, keep_words=None):
        states, pool_mask = self.encode_words(self.auxiliary_encoder, batch, keep_words)
        return self.auxiliary_predictor(self.pool(states, pool_mask))

    # --- steps ----------------------------------------------------------------------
    def forward(self, batch):
        selection = self.select(batch)
        logits = self.predict(batch, selection.mask)
        return self.outputs(batch, selection, logits, auxiliary_logits=self.auxiliary_logits(batch, selection.mask))

    def training_step(self, batch, batch_idx):
        auxiliary_opt, rationaliser_opt = self.optimizers()
        if self.pretraining:
            self.auxiliary_pretraining_step(auxiliary_opt, batch)
            return None
        outputs = self(batch)
        total, parts = self.loss(outputs)
        self.manual_step(rationaliser_opt, total, self.rationaliser_modules())
        self.log_train(total, parts, outputs, batch.size)
        return None

    def validation_step(self, batch, batch_idx):
        super().validation_step(batch, batch_idx)
        if self.pretraining:
            self.auxiliary_validation_update(batch)

    def on_validation_epoch_end(self):
        super().on_validation_epoch_end()
        self.auxiliary_validation_end()
