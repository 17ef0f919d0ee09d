"""MRD: maximizing the remaining discrepancy (Liu et al., NeurIPS 2024).

W. Liu et al. "Is the MMI Criterion Necessary for Interpretability?
Degenerating Non-causal Features to Plain Noise for Self-Rationalization."
NeurIPS 2024. Reference code: github.com/jugechengzi/Rationalization-MRD.

Instead of asking the rationale Z to be maximally informative about Y, MRD
asks the *remainder* X∖Z to be plain noise: the predictor's output on the
remainder should be as far as possible from its output on the full text.
Per batch, two phases (``train_util.py`` train_adv_causal, ``--gen_sparse 1``):

1. the selector samples Z; loss 0.9·CE(predictor(X∖Z.detach()), y)
   + 0.9·CE(predictor(X), y) + λs·sparsity + λc·continuity; one backward,
   then both Adams step (the selector's gradient is sparsity's and
   continuity's only);
2. the updated selector samples a fresh Z; predictor frozen; loss
   λs·sparsity + λc·continuity − KL(P(y|X) || P(y|X∖Z)) (``kl_div``,
   ``batchmean``, ``--div_lambda`` 1); only the selector steps.

The remainder is ``z[:, :, 0]`` in the reference, the drop column of the
hard sample: 1 − keep, with the same straight-through gradient. The
prediction scored (``logits``) is the predictor on Z (the reference model's
``forward``); no phase trains it.

Reference parity: the published run (README: ``--sparsity_percentage 0.075
--sparsity_lambda 6 --continuity_lambda 6 --lr 0.0001``; the script's own
argparse defaults, s 0.1, λs 12, λc 10, are left-overs no README uses) as
registered defaults; predictor lr = lr / ``--lr_lambda`` 1; CE weights 0.9
(``--cls_lambda``; ``--x_lambda`` 1); LayerNorm on the selector path only
(``model.py`` Sp_norm_model_causal); max-pool over every real word; a
Gumbel sample at evaluation.

Departures, each a named option: ``losses.sparsity.padding=excluded``,
``losses.continuity.padding=excluded`` (real words only; the reference counts
the padded width, ``metric.py``); ``fresh_sample=false``;
``phase1_selector_step=false`` with ``predictor_terms=[remainder_task,full_task]``
(``--gen_sparse 0``); ``encoder_dropout=null`` (the backbone's dropout on embeddings and
states); ``selector.evaluation=threshold``; ``predictor_pool=kept``.
Always: the remainder zeroes the selected words' embeddings (removed words
contribute nothing), the frozen full-text pass of phase 2 runs without a graph.
"""
from __future__ import annotations

from cinnamon.registry import RegistrationKey

from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.liu_family.shared import liu_losses
from pyhighlights.models.liu_family.two_phase import TwoPhaseConfig, TwoPhaseModel
from pyhighlights.registry import Param, registration_key as key


class MRDConfig(TwoPhaseConfig):
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "remainder_task": key("loss", "cross_entropy"),
         "full_task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity"), "divergence": key("loss", "kl")})
    predictor_terms: list[str] = Param(["remainder_task", "full_task", "sparsity", "continuity"],
                                       description="loss terms of phase 1 (predictor step on the detached selection)")
    selector_terms: list[str] = Param(["sparsity", "continuity", "divergence"],
                                      description="loss terms of phase 2 (selector step, predictor frozen)")
    outputs = {"losses": SELECTION_OUTPUTS | {"remainder_logits", "full_logits"}}
    defaults = {"losses": {**liu_losses(target=0.075, sparsity=6.0, continuity=6.0),
                           "remainder_task": {"logits": "remainder_logits", "weight": 0.9},
                           "full_task": {"logits": "full_logits", "weight": 0.9},
                           "divergence": {"weight": 1.0, "p": "remainder_logits", "q": "full_logits",
                                          "maximise": True}}}


def remainder(mask, word_mask):
    """The words the selection leaves out (straight-through gradients flow through ``mask``)."""
    return (1.0 - mask) * word_mask.to(mask.dtype)


class MRD(TwoPhaseModel):
    def views(self, batch, mask, phase):
        views = {"remainder_logits": self.predict(batch, remainder(mask, batch.word_mask)),
                 "full_logits": self.full_logits(batch, grad=phase == "predictor")}
        if phase == "evaluate" or "task" in self.predictor_terms or "task" in self.selector_terms:
            views["logits"] = self.predict(batch, mask)
        return views
