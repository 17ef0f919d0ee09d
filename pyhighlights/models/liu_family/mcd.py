"""MCD: minimum conditional dependence (Liu et al., NeurIPS 2023).

W. Liu et al. "D-Separation for Causal Self-Explanation." NeurIPS 2023.
Reference code: github.com/jugechengzi/Rationalization-MCD.

A rationale Z is causal for Y when Y is independent of the rest of the input
given Z, i.e. P(Y|X) = P(Y|Z). Per batch, two phases
(``train_util.py`` train_decouple_causal2):

1. the selector samples Z; loss 0.9·CE(predictor(Z.detach()), y)
   + 0.9·CE(predictor(X), y) + λs·sparsity + λc·continuity; one backward,
   then the predictor's Adam and the selector's Adam both step (the
   selector's gradient is that of sparsity and continuity only);
2. the updated selector samples a fresh Z; predictor frozen; loss
   λs·sparsity + λc·continuity + KL(P(y|X) || P(y|Z)) (``kl_div`` with
   ``reduction='batchmean'``, weight 1); only the selector steps.

Outputs: ``logits`` (predictor on Z; the prediction scored), ``full_logits``
(predictor on X). Terms: ``task``, ``full_task``, ``sparsity``,
``continuity``, ``divergence``; ``predictor_terms`` / ``selector_terms``
name each phase's terms.

Reference parity (``decouple_bcr.py`` argparse defaults and optimisers; model
``model.py`` Sp_norm_model): lr 1e-4 for both Adams, s 0.1, λs = λc = 6, CE
weight 0.9; LayerNorm on the selector path only (``layer_norm: selector``);
the predictor max-pools over every real word; a Gumbel sample at
evaluation. The published correlated-Beer run is ``experiment=mcd_beer_correlated_appearance``.

Departures, each a named option: ``losses.sparsity.padding=excluded``,
``losses.continuity.padding=excluded`` (real words only; the reference counts
the padded width, ``metric.py``); ``fresh_sample=false`` (phase 2 reuses
phase 1's sample); ``phase1_selector_step=false`` with
``predictor_terms=[task,full_task]`` (phase 1 trains the predictor only);
``encoder_dropout=null`` (the backbone's dropout on embeddings and
states); ``selector.evaluation=threshold``; ``predictor_pool=kept``. Always: phase 2
runs the frozen predictor's full-text pass without a graph (same value; the
reference builds one that reaches no trainable parameter).
"""
from __future__ import annotations

from cinnamon.registry import RegistrationKey

from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.liu_family.shared import liu_losses
from pyhighlights.models.liu_family.two_phase import TwoPhaseConfig, TwoPhaseModel
from pyhighlights.registry import Param, registration_key as key


class MCDConfig(TwoPhaseConfig):
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "full_task": key("loss", "cross_entropy"),
         "sparsity": key("loss", "sparsity"), "continuity": key("loss", "continuity"),
         "divergence": key("loss", "kl")})
    predictor_terms: list[str] = Param(["task", "full_task", "sparsity", "continuity"],
                                       description="loss terms of phase 1 (predictor step on the detached selection)")
    selector_terms: list[str] = Param(["sparsity", "continuity", "divergence"],
                                      description="loss terms of phase 2 (selector step, predictor frozen)")
    outputs = {"losses": SELECTION_OUTPUTS | {"full_logits"}}
    defaults = {"losses": {**liu_losses(target=0.1, sparsity=6.0, continuity=6.0),
                           "full_task": {"logits": "full_logits", "weight": 0.9},
                           "divergence": {"weight": 1.0, "p": "logits", "q": "full_logits"}}}


class MCD(TwoPhaseModel):
    def views(self, batch, mask, phase):
        return {"logits": self.predict(batch, mask),
                "full_logits": self.full_logits(batch, grad=phase == "predictor")}
