"""MCD: minimum conditional dependence (Liu et al., NeurIPS 2023).

W. Liu et al. "D-Separation for Causal Self-Explanation." NeurIPS 2023.

A rationale Z is causal for Y when Y is independent of the rest of the input
given Z, i.e. P(Y|X) = P(Y|Z). MCD trains for that, per batch, in two
phases:

1. predictor step: CE(predictor(Z.detach()), y) + CE(predictor(X), y) — the
   predictor learns on the (fixed) rationale and on the full text;
2. selector step, predictor frozen: λs·sparsity + λc·continuity
   + KL(P(y|X) || P(y|Z)), with P(y|X) from the (just updated) predictor on
   the full text, detached. The selector gets its task signal only through
   the divergence: it must keep the words that make the predictor say on Z
   what it says on X.

Outputs: ``logits`` (predictor on Z; the model's prediction, scored as
accuracy), ``full_logits`` (predictor on X). Loss terms (``model.losses``):
``task`` = CE(logits), ``full_task`` = CE(full_logits), ``sparsity``,
``continuity``, ``divergence`` = KL(full || logits); ``predictor_terms`` and
``selector_terms`` say which belong to which phase.

Registered defaults (reference values): lr 1e-4 for both phases, s = 0.15,
λs = 11, λc = 12, KL weight 1. The two phases and their terms follow the paper;
λs, λc are the values of the authors' public scripts as we recall them
(not re-checked offline); we are not sure of the reference's KL weight and
use 1. ``configs/experiment/quick_mcd.yaml`` converges in a few CPU minutes
on the embedded synthetic corpus.

Departures from the reference code:
- one Gumbel sample per batch serves both phases (phase 2 reuses the
  selector's forward of phase 1; the selector has not changed in between);
- phase 2 re-runs the predictor after its phase-1 update (frozen: it gets no
  gradient and its optimiser does not step), and its full-text pass runs
  without gradients;
- straight-through hard Gumbel-softmax and deterministic evaluation, shared
  with every model here.
"""
from __future__ import annotations

from cinnamon.registry import RegistrationKey

from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.mechanics import TwoPhaseConfig, TwoPhaseModel
from pyhighlights.registry import Param, registration_key as key


class MCDConfig(TwoPhaseConfig):
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "full_task": key("loss", "cross_entropy"),
         "sparsity": key("loss", "sparsity"), "continuity": key("loss", "continuity"),
         "divergence": key("loss", "kl")})
    predictor_terms: list[str] = Param(["task", "full_task"], description="loss terms of phase 1 (predictor step)")
    selector_terms: list[str] = Param(["sparsity", "continuity", "divergence"],
                                      description="loss terms of phase 2 (selector step, predictor frozen)")
    outputs = {"losses": SELECTION_OUTPUTS | {"full_logits"}}
    # divergence: the kl term's own defaults, KL(full_logits || logits) with weight 1
    defaults = {"losses": {"full_task": {"logits": "full_logits"}}}


class MCD(TwoPhaseModel):
    def views(self, batch, mask, phase):
        return {"logits": self.predict(batch, mask),
                "full_logits": self.full_logits(batch, grad=phase == "predictor")}
