"""N2R: the norm of the rationale's representation (Liu et al., ICLR 2025).

W. Liu et al. "Breaking Free from MMI: A New Frontier in Rationalization by Probing Input Utilization."
ICLR 2025. Reference code: github.com/jugechengzi/Rationalization-N2R.

A rationale the predictor really uses should give it a long representation: per batch, after the usual
step, the selector alone is trained to lengthen the predictor's pooled representation of the rationale.
Two phases per batch (``train_util.py`` train_pred_mochang, run by ``mochang.py``: "N2R+RNP", which the
authors recommend as the baseline):

1. RNP's step: the selector samples Z; loss 0.9·CE(predictor(Z), y) + λs·sparsity + λc·continuity; one
   backward, the predictor and the selector both step (the CE reaches the selector through Z);
2. the updated selector samples a fresh Z; the predictor is frozen; loss λs·sparsity + λc·continuity
   + λn·(-mean log(1e-6 + ||r||)), r the predictor's max-pooled states of Z (``model.py`` Mochangmodel
   forward_predemb: the states before the head's dropout); only the selector steps.

``phase1_detached=true`` is the authors' "N2R" alone (``mochang_noacc.py``, train_pred_mochang_withoutacc:
phase 1's predictor reads Z detached, so the selector learns from sparsity, continuity and the norm only).

Outputs: ``logits``, ``representation`` (r). Terms: ``task``, ``sparsity``, ``continuity``, ``norm``
(:class:`~pyhighlights.components.losses.RepresentationNormTerm`); ``predictor_terms`` / ``selector_terms``
name each phase's terms.

Reference parity (``mochang.py`` argparse defaults and optimiser; ``model.py`` Mochangmodel): lr 1e-4 for
both parts (``--dis_lr 0``; one Adam with a group per part, which is two Adams), s 0.1, λs 12, λc 10,
CE weight 0.9 (``--cls_lambda``), λn 1 (``--mochang_lambda``; ``--mochang_loss`` is read by no code, the
term is always the log); LayerNorm on the selector path only (``layernorm1``: ``layer_norm: selector``),
dropout 0.2 only before each head; the predictor max-pools over every real word; a Gumbel sample also at
evaluation; the family's encoder and batching (:mod:`pyhighlights.models.liu_family.shared`). The README's
published runs are ``experiment=n2r_beer_appearance`` (N2R+RNP) and ``experiment=n2r_alone_beer_appearance``.

Departures, each a named option: ``losses.sparsity.padding=excluded``, ``losses.continuity.padding=excluded``
(real words only; the reference counts the padded width, ``metric.py``); ``selector.evaluation=threshold``;
``predictor_pool=kept``; ``encoder_dropout=null``; ``fresh_sample=false``; ``layout=packed``.
Known difference: under the reference's stated torch 1.13, ``optimizer.zero_grad()`` leaves zero gradients
(not None), so its phase-2 step also moves the frozen predictor by Adam's momentum; under torch >= 2.0, as
here, that step leaves the predictor alone.
"""
from __future__ import annotations

from cinnamon.registry import RegistrationKey

from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.liu_family.shared import liu_losses
from pyhighlights.models.liu_family.two_phase import TwoPhaseConfig, TwoPhaseModel
from pyhighlights.registry import Param, registration_key as key


class N2RConfig(TwoPhaseConfig):
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity"), "norm": key("loss", "representation_norm")})
    predictor_terms: list[str] = Param(["task", "sparsity", "continuity"],
                                       description="loss terms of phase 1 (RNP's step: predictor and selector)")
    selector_terms: list[str] = Param(["sparsity", "continuity", "norm"],
                                      description="loss terms of phase 2 (selector step, predictor frozen)")
    outputs = {"losses": SELECTION_OUTPUTS | {"representation"}}
    defaults = {"phase1_detached": False,
                "losses": {**liu_losses(target=0.1, sparsity=12.0, continuity=10.0),
                           "norm": {"weight": 1.0, "representation": "representation"}}}


class N2R(TwoPhaseModel):
    def views(self, batch, mask, phase):
        representation = self.represent(batch, mask)
        return {"logits": self.predictor(representation), "representation": representation}
