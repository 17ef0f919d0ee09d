"""RNP-shaped models of the Liu et al. family trained in two phases per batch (MCD, MRD, N2R).

Phase 1 (MCD ``train_util.py`` train_decouple_causal2, MRD ``train_util.py``
train_adv_causal): the selector samples; the predictor reads the detached
sample (with ``phase1_detached=false`` the sample itself: N2R+RNP's RNP
step); one backward of the phase-1 terms, then the predictor's optimiser
steps and, with ``phase1_selector_step``, the selector's too — its only
gradient is that of the phase-1 terms that read the selection itself
(sparsity, continuity; also the task term when not detached). Phase 2: with ``fresh_sample`` the updated selector
samples again; the predictor is re-run frozen (no gradient to it, its
optimiser does not step) so gradients reach the selector through it. A
subclass says what the predictor reads in each phase (:meth:`TwoPhaseModel.views`).
"""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from pyhighlights.data.batch import Batch
from pyhighlights.models.liu_family.shared import LiuFamilyConfig
from pyhighlights.models.phases import Phase, PhasedTraining
from pyhighlights.models.rnp import RNP
from pyhighlights.registry import Param


class TwoPhaseConfig(LiuFamilyConfig):
    """RNP's parameters in the Liu et al. layout, plus the two phases' terms and options (MCD, MRD)."""

    term_fields = {"predictor_terms": "losses", "selector_terms": "losses"}

    predictor_terms: list[str] = Param(["task", "sparsity", "continuity"],
                                       description="loss terms of phase 1 (predictor step on the detached selection)")
    selector_terms: list[str] = Param(["sparsity", "continuity"],
                                      description="loss terms of phase 2 (selector step, predictor frozen)")
    predictor_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                       description="learning rate of the predictor; null = lr")
    phase1_selector_step: bool = Param(True, description="phase 1 also steps the selector (with the gradient "
                                                         "its terms give it: sparsity and continuity)")
    fresh_sample: bool = Param(True, description="phase 2 draws a new selection from the updated selector; "
                                                 "false reuses phase 1's sample")
    phase1_detached: bool = Param(True, description="phase 1's predictor reads the selection detached (MCD, "
                                                    "MRD); false: the sample itself, so the task term also trains "
                                                    "the selector (RNP's step, N2R+RNP)")

    @classmethod
    def default(cls):
        config = super().default()
        config.add_condition(lambda c: bool(c.predictor_terms) and bool(c.selector_terms),
                             name="predictor_terms and selector_terms must not be empty")
        # Phase 1's backward frees the sample's graph (and may step the selector), so phase 2 can reuse
        # the sample only if phase 1 did not backpropagate through it.
        config.add_condition(lambda c: c.fresh_sample or (c.phase1_detached and
                                                          not {"sparsity", "continuity"} & set(c.predictor_terms)),
                             name="fresh_sample=false reuses phase 1's sample: model.predictor_terms must then "
                                  "leave out sparsity and continuity, with model.phase1_detached=true")
        return config


class TwoPhaseModel(PhasedTraining, RNP):
    """Per batch: (1) predictor step on the (by default *detached*) selection, (2) selector step with the predictor
    frozen."""

    def __init__(self, *, predictor_terms: Sequence[str], selector_terms: Sequence[str],
                 predictor_lr: float | None, phase1_selector_step: bool, fresh_sample: bool,
                 phase1_detached: bool, **rnp):
        super().__init__(**rnp)
        self.losses.require(predictor_terms, "model.predictor_terms")
        self.losses.require(selector_terms, "model.selector_terms")
        self.predictor_terms, self.selector_terms = list(predictor_terms), list(selector_terms)
        self.predictor_lr = predictor_lr or self.lr
        self.phase1_selector_step, self.fresh_sample = phase1_selector_step, fresh_sample
        self.phase1_detached = phase1_detached

    # --- parts, optimisers, phases --------------------------------------------------
    def selector_modules(self) -> list[nn.Module]:
        return [self.selector_encoder, self.selector_norm, self.selector]

    def predictor_modules(self) -> list[nn.Module]:
        return [self.predictor_encoder, self.predictor_norm, self.predictor]

    def parts(self):
        return {"predictor": self.predictor_modules(), "selector": self.selector_modules()}

    def optimisers(self):
        return {"predictor": self.make_optimizer(self.predictor_modules(), lr=self.predictor_lr),
                "selector": self.make_optimizer(self.selector_modules())}

    def phases(self):
        stepped = ("predictor", "selector") if self.phase1_selector_step else ("predictor",)
        return [
            # the predictor reads the detached sample (unless phase1_detached is false); the selection terms
            # read the sample itself
            Phase("predictor", trains=("predictor", "selector"), optimisers=stepped, outputs=self.phase_outputs,
                  terms=tuple(self.predictor_terms), detach=("selector",) if self.phase1_detached else (),
                  logged="train/predictor_loss",
                  prefix="phase1_"),
            Phase("selector", trains=("selector",), optimisers=("selector",), outputs=self.phase_outputs,
                  terms=tuple(self.selector_terms), frozen=("predictor",), logged="train/selector_loss"),
        ]

    def evaluation_scales(self):
        """Validation/test ``loss`` = the terms some phase trains (a term no phase uses is logged, not summed)."""
        used = set(self.predictor_terms) | set(self.selector_terms)
        return {name: 0.0 for name in self.losses.terms if name not in used}

    # --- what each phase reads ------------------------------------------------------
    def full_logits(self, batch: Batch, grad: bool) -> torch.Tensor:
        """The predictor on the full text (no graph when ``grad`` is false)."""
        with torch.set_grad_enabled(grad and torch.is_grad_enabled()):
            return self.predict(batch, None)

    def views(self, batch: Batch, mask: torch.Tensor, phase: str) -> dict[str, torch.Tensor]:
        """Named predictor outputs for ``phase`` in {"predictor", "selector", "evaluate"}."""
        raise NotImplementedError

    def _outputs(self, batch, selection, views):
        views = dict(views)
        return self.outputs(batch, selection, views.pop("logits", None), **views)

    def phase_outputs(self, step):
        phase = step.phase
        if phase.name == "predictor" or self.fresh_sample:
            step.state["selection"] = self.select(step.batch)
        selection = step.state["selection"]
        mask = selection.mask.detach() if phase.detaches("selector") else selection.mask
        return self._outputs(step.batch, selection, self.views(step.batch, mask, phase.name))

    def forward(self, batch):
        selection = self.select(batch)
        return self._outputs(batch, selection, self.views(batch, selection.mask, "evaluate"))
