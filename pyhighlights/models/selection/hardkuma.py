"""HardKuma: latent rationales with differentiable binary gates (Bastings, Aziz and Titov, ACL 2019, *Interpretable
Neural Predictions with Differentiable Binary Variables*). Reference code: github.com/bastings/interpretable_predictions
(commit fef6183), its ``latent_rationale/`` Beer model.

Selector encoder -> a HardKuma gate per word (:mod:`pyhighlights.components.hardkuma`: a rectified, stretched
Kumaraswamy, sampled by reparameterisation, so the task loss trains the selector by plain backpropagation) ->
predictor encoder over the words scaled by their gates -> class logits. Loss: CE + lambda0 c0 + lambda1 c1, c0 the
expected selection rate minus its target, c1 the expected transition rate minus its target, each multiplier moved
by dual ascent on a moving average of its constraint (:mod:`pyhighlights.components.hardkuma_losses`).

Defaults: the reference's Beer settings. ``beer/util.py get_args``: Adam lr 4e-4, weight decay 2e-6, gradient
norm clipped at 5, dropout 0.2 (embeddings and before the output layer), lambda_init 1e-5, lambda_min 1e-12,
lambda_max 5, lagrange_lr 0.05, lagrange_alpha 0.5, an exponential learning-rate decay of 0.97 per epoch floored at
min_lr 5e-5 (``beer/train.py``); the README's Beer command: ``--dependent-z --selection 0.13 --lasso 0.02``.
``experiment=hardkuma_beer_appearance`` adds what is not the model's: batch 256, 100 epochs, 200 hidden units per
direction, frozen 200d embeddings, the 256-word cut. ``nn/kuma_gate.py``: support (-0.1, 1.1),
softplus shapes clamped to [1e-6, 100]. ``common/latent.py DependentLatentModel``: the gate of word t reads the
encoder state and a 30-unit RCNN state over the previous gates; evaluation takes the most likely of {0, 1,
continuous} (the Kumaraswamy mean for the last).

Departures, each a named option or a part in a slot: the task loss is cross-entropy over the corpus's classes
(the reference regresses the aspect score with MSE on a sigmoid output); the encoders are ``backbone=`` (the
reference's are bidirectional RCNNs; ``backbone.hidden_size`` is the total of both directions, so the reference's
200 per direction is 400 here), and the predictor max-pools the kept words' states into ``model/predictor``
(the reference classifies from the RCNN's final states, skipping words whose gate is 0); the multipliers move on
training steps only (``losses.*.update=every_call``: also while evaluating, as the reference does); the reference
keeps the checkpoint of the lowest dev loss after epoch 5 (``trainer.monitor=val/loss``, ``trainer.mode=min``).
"""
from __future__ import annotations

from cinnamon.registry import RegistrationKey

from pyhighlights.components.hardkuma_losses import LagrangianTerm
from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.mechanics import epoch_decay
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, Real, registration_key as key

class HardKumaConfig(RNPConfig):
    selector: RegistrationKey = Param(key("selector", "hardkuma"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "hardkuma_l0"),
         "continuity": key("loss", "hardkuma_transitions")})
    lr_decay: float = Real(0.97, gt=0.0, le=1.0, description="learning rate x this per epoch (beer/train.py "
                                                            "ExponentialLR); 1 = constant")
    min_lr: float = Real(5e-5, ge=0.0, description="the decayed learning rate's floor (--min_lr)")
    outputs = {"losses": SELECTION_OUTPUTS}
    defaults = {"lr": 4e-4, "weight_decay": 2e-6, "grad_clip": 5.0, "encoder_dropout": 0.2,
                "losses": {"sparsity": {"target": 0.13}, "continuity": {"target": 0.02}}}


class HardKuma(RNP):
    """RNP's two encoders with a HardKuma selector and Lagrangian constraints; one Adam, automatic optimisation."""

    def __init__(self, *, lr_decay: float, min_lr: float, **common):
        super().__init__(**common)
        self.lr_decay, self.min_lr = lr_decay, min_lr

    def constraint_terms(self) -> dict[str, LagrangianTerm]:
        return {name: term for name, term in self.losses.terms.items() if isinstance(term, LagrangianTerm)}

    def configure_optimizers(self):
        return epoch_decay(self.make_optimizer([self]), self.lr_decay, self.min_lr)

    def log_train(self, total, parts, outputs, batch_size) -> None:
        super().log_train(total, parts, outputs, batch_size)
        for name, term in self.constraint_terms().items():
            if term.mode == "constraint":
                self.log(f"train/multiplier/{name}", float(term.multiplier), batch_size=batch_size)
            if term.last_value is not None:
                self.log(f"train/expected/{name}", float(term.last_value), batch_size=batch_size)

