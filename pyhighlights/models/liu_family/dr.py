"""DR: decoupled rationalization with asymmetric learning rates (Liu et al., KDD 2023).

W. Liu et al. "Decoupled Rationalization with Asymmetric Learning Rates:
A Flexible Lipschitz Restraint." KDD 2023.
Reference code: github.com/jugechengzi/Rationalization-DR.

RNP's parts and loss, but the predictor learns more slowly than the selector:
at every step its learning rate is the selector's times a factor: the
batch's selection rate, floored at ``min_factor``; a batch that selects
nothing uses factor 1 (``train_util.py`` train_sp_norm: ``lr_lambda = 1`` when
the sparsity is 0, else max(sparsity, 0.05)). A predictor that adapts fast to
whatever the selector keeps lets a poor selection look good; slowing it in
proportion to how little it sees restrains its Lipschitz constant.

The rate is the *global* batch's (one all-reduce over DDP processes), so
every replica uses the same learning rate; it is measured on the sample the
loss used. Both parts' encoder parameters keep ``encoder_lr`` scaled alike.

Reference parity (``norm_beer.py`` argparse defaults and optimiser,
``model.py`` Sp_norm_model): lr 1e-4, s 0.1, λs 12, λc 10, task weight 0.9;
LayerNorm on the selector path only (the predictor's ``layernorm2`` is never
applied); the predictor max-pools over every real word; a Gumbel sample at
evaluation. The README's runs are ``experiment=dr_beer_aroma`` and
``dr_hotel_service``.

Departures, each a named option: ``losses.sparsity.padding=excluded``,
``losses.continuity.padding=excluded`` (real words only; the reference counts
the padded width, ``metric.py``); ``empty_factor`` (1 in the reference; the
floor would be the other natural choice); ``encoder_dropout=null`` (the backbone's dropout on embeddings and
states); ``selector.evaluation=threshold``;
``predictor_pool=kept``; ``layer_norm=none``. Always: manual optimisation
with one Adam of two parts (the reference rescales its second parameter
group the same way before each step).
"""
from __future__ import annotations

from pyhighlights.models.liu_family.shared import LiuFamilyConfig, liu_losses
from pyhighlights.models.mechanics import global_selection_rate, part_optimizer
from pyhighlights.models.phases import Phase, PhasedTraining
from pyhighlights.models.rnp import RNP
from pyhighlights.registry import Real


class DRConfig(LiuFamilyConfig):
    min_factor: float = Real(0.05, gt=0.0, le=1.0,
                             description="the predictor's lr factor is max(batch selection rate, min_factor)")
    empty_factor: float = Real(1.0, gt=0.0, le=1.0, description="the factor when the batch selects nothing")
    defaults = {"losses": liu_losses(target=0.1, sparsity=12.0, continuity=10.0)}


def predictor_factor(rate: float, min_factor: float, empty_factor: float) -> float:
    """DR's learning-rate factor for a batch selection rate."""
    return empty_factor if rate == 0 else max(rate, min_factor)


class DR(PhasedTraining, RNP):
    def __init__(self, *, min_factor: float, empty_factor: float, **rnp):
        super().__init__(**rnp)
        self.min_factor, self.empty_factor = min_factor, empty_factor

    def parts(self):
        return {"selector": [self.selector_encoder, self.selector_norm, self.selector],
                "predictor": [self.predictor_encoder, self.predictor_norm, self.predictor]}

    def optimisers(self):
        return {"rationaliser": part_optimizer(self, self.parts(), {"selector": self.lr, "predictor": self.lr})}

    def phases(self):
        # one phase: the whole objective, the predictor's rate rescaled by the batch's selection rate
        return [Phase("rationaliser", trains=("selector", "predictor"), optimisers=("rationaliser",),
                      outputs=lambda step: self(step.batch),
                      lr_factors=lambda outputs: {"predictor": self.predictor_factor(outputs)},
                      after=lambda result, step: self.log("train/predictor_lr_factor", result.lr_factors["predictor"],
                                                          batch_size=step.batch.size))]

    def predictor_factor(self, outputs) -> float:
        """The factor of the global batch's selection rate, counting padding as the sparsity term does."""
        counted = getattr(self.losses.terms.get("sparsity"), "padding", "excluded") == "counted"
        mask = outputs.get("raw_mask", outputs["mask"]) if counted else outputs["mask"]
        rate = global_selection_rate(mask, outputs["word_mask"], count_padding=counted)
        return predictor_factor(rate, self.min_factor, self.empty_factor)

