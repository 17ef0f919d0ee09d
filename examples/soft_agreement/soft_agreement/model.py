"""RNP with a soft-attention predictor beside its hard-rationale predictor, trained in two phases.

- ``rationaliser``: selector, predictor and soft predictor on both predictors' cross-entropy, sparsity and
  continuity (the soft predictor reads the full text through the selector's attention);
- ``agreement``: the selector alone, on the two predictors' disagreement, both predictors frozen, so the
  term's gradient reaches the selector through them without moving them.

After A2R (Yu et al., NeurIPS 2021); a worked example of the extension API, not that paper's method or numbers.
"""
from __future__ import annotations

from cinnamon.registry import RegistrationKey

from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.phases import Phase, PhasedTraining
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, registration_key as key

from soft_agreement.soft_predictor import masked_attention


class SoftAgreementConfig(RNPConfig):
    soft_predictor: RegistrationKey = Param(key("soft_predictor", "attention"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity"), "soft_task": key("loss", "cross_entropy"),
         "agreement": key("loss", "two_sided_jsd")})
    agreement_from: int = Param(0, ge=0, description="the first epoch of the selector-only agreement phase")
    outputs = {"losses": SELECTION_OUTPUTS | {"soft_logits"}}
    # The slots' roles: the second cross-entropy reads the soft predictor; the agreement, both predictors.
    defaults = {"losses": {"soft_task": {"logits": "soft_logits"},
                           "agreement": {"p": "logits", "q": "soft_logits"}}}


class SoftAgreement(PhasedTraining, RNP):
    def __init__(self, *, agreement_from, **rnp):
        super().__init__(**rnp)
        self.agreement_from = agreement_from
        self.soft_predictor = self.build_slot("soft_predictor", input_size=self.predictor_encoder.output_size,
                                              num_classes=self.num_classes)

    def forward(self, batch):
        selection = self.select(batch)
        logits = self.predict(batch, selection.mask)
        # The soft predictor shares the predictor's encoder, run over the whole text.
        states, _ = self.encode_words(self.predictor_encoder, batch, norm=self.predictor_norm)
        attention = masked_attention(selection.keep_logit, batch.word_mask)
        soft_logits = self.soft_predictor(self.word_states(states, batch), attention)
        return self.outputs(batch, selection, logits, soft_logits=soft_logits)

    def parts(self):
        return {"selector": [self.selector_encoder, self.selector_norm, self.selector],
                "predictor": [self.predictor_encoder, self.predictor_norm, self.predictor],
                "soft_predictor": [self.soft_predictor]}

    def optimisers(self):
        parts = self.parts()
        return {"selector": self.make_optimizer(parts["selector"]),
                "predictors": self.make_optimizer(parts["predictor"] + parts["soft_predictor"])}

    def phases(self):
        everything = lambda step: self(step.batch)  # noqa: E731 - both phases read the full forward
        return [
            Phase("rationaliser", trains=("selector", "predictor", "soft_predictor"),
                  optimisers=("selector", "predictors"), outputs=everything,
                  terms=("task", "soft_task", "sparsity", "continuity")),
            Phase("agreement", trains=("selector",), optimisers=("selector",), outputs=everything,
                  terms=("agreement",), frozen=("predictor", "soft_predictor"), start_epoch=self.agreement_from,
                  logged="train/agreement_loss"),
        ]
