"""DR: decoupled rationalization with asymmetric learning rates (Liu et al., KDD 2023).

W. Liu et al. "Decoupled Rationalization with Asymmetric Learning Rates:
A Flexible Lipschitz Restraint." KDD 2023.

RNP's parts and loss, but the predictor learns more slowly than the selector:
at every step its learning rate is the selector's times
max(selection rate of the batch, ``min_factor``). A predictor that adapts
quickly to whatever the selector currently keeps lets a poor selection look
good (degeneration); slowing it down in proportion to how little it sees
restrains its Lipschitz constant, which is the paper's argument.

The batch selection rate is the *global* batch's (selected real words over
real words, summed over all DDP processes in one all-reduce), so every
replica uses the same learning rate and stays identical; on one process it
is the batch's own rate. Both parts' encoder parameters keep ``encoder_lr``
scaled in the same proportion.

Registered defaults (reference values): lr 1e-4, s = 0.15, λs = 11, λc = 12,
``min_factor`` 0.05. lr, the rule and 0.05 follow the paper; λs, λc are the
values of the authors' public scripts as we recall them (not re-checked
offline). ``configs/experiment/quick_dr.yaml`` converges in a few CPU minutes
on the embedded synthetic corpus.

Departures from the reference code:
- straight-through hard Gumbel-softmax and deterministic evaluation (shared
  with every model here);
- one Adam with a selector part and a predictor part whose learning rates are
  set before each step (the reference scales the predictor's optimiser the
  same way); the rate is measured on the Gumbel sample the loss used;
- manual optimisation (a DDP-safe step, see :meth:`SPPModel.manual_step`),
  so the rate is set before the step is taken, explicitly.
"""
from __future__ import annotations

from pyhighlights.models.mechanics import global_selection_rate, part_optimizer, scale_part_lr
from pyhighlights.models.liu_family import LiuFamilyConfig
from pyhighlights.models.rnp import RNP
from pyhighlights.registry import Real


class DRConfig(LiuFamilyConfig):
    min_factor: float = Real(0.05, gt=0.0, le=1.0,
                             description="the predictor's lr factor is max(batch selection rate, min_factor)")


class DR(RNP):
    def __init__(self, *, min_factor: float = 0.05, **rnp):
        super().__init__(**rnp)
        self.automatic_optimization = False
        self.min_factor = min_factor

    def parts(self):
        return {"selector": [self.selector_encoder, self.selector],
                "predictor": [self.predictor_encoder, self.predictor]}

    def configure_optimizers(self):
        return part_optimizer(self, self.parts(), {"selector": self.lr, "predictor": self.lr})

    def predictor_factor(self, outputs) -> float:
        """max(global batch selection rate, min_factor)."""
        return max(global_selection_rate(outputs["mask"], outputs["word_mask"]), self.min_factor)

    def training_step(self, batch, batch_idx):
        optimizer = self.optimizers()
        outputs = self(batch)
        total, parts = self.loss(outputs)
        factor = self.predictor_factor(outputs)
        scale_part_lr(optimizer, "predictor", factor)
        self.manual_step(optimizer, total, [m for modules in self.parts().values() for m in modules])
        self.log_train(total, parts, outputs, batch.size)
        self.log("train/predictor_lr_factor", factor, batch_size=batch.size)
        return None
