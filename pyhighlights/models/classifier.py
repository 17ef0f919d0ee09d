"""A full-input classifier: one backbone, max-pool, MLP predictor, no selector.

It is the accuracy baseline of every rationaliser and the model that the
post-hoc attribution methods of :mod:`pyhighlights.explain` explain. It
implements the SPP explanation interface so the same evaluation code scores
it: :meth:`Classifier.select` keeps every real word (its highlight metrics are
therefore trivial, sparsity 1, but defined), and :meth:`Classifier.predict`
reads only the words it is told to keep (removed words' embeddings are zeroed
by a recurrent backbone, removed from the attention of a transformer), which
is what comprehensiveness and sufficiency need (DeYoung et al., 2020, ERASER).
Loss: cross-entropy only.
"""
from __future__ import annotations

import torch
from cinnamon.registry import RegistrationKey

from pyhighlights.components.selectors import Selection
from pyhighlights.models.base import SELECTION_OUTPUTS, OptimConfig, SPPModel
from pyhighlights.registry import Param, registration_key as key

#: Keep-logit of every real word in :meth:`Classifier.select` (p(keep) = 1 in float32).
_KEEP_ALL_LOGIT = 1e4


class ClassifierConfig(OptimConfig):
    predictor: RegistrationKey = Param(key("predictor", "mlp"))
    losses: dict[str, RegistrationKey] = Param({"task": key("loss", "cross_entropy")})
    outputs = {"losses": SELECTION_OUTPUTS}


class Classifier(SPPModel):
    """Backbone over the full text -> max-pool -> predictor."""

    def __init__(self, **common):
        super().__init__(**common)
        self.encoder = self.make_backbone()
        self.predictor = self.build_slot("predictor", input_size=self.encoder.output_size,
                                         num_classes=self.num_classes)

    def input_backbone(self):
        """The backbone whose input embeddings post-hoc gradient methods attribute to."""
        return self.encoder

    def select(self, batch):
        """Every real word, with p(keep) = 1; padding is never selected."""
        word_mask = batch.word_mask.to(torch.float32)
        keep = torch.full_like(word_mask, _KEEP_ALL_LOGIT)
        logits = torch.stack([torch.zeros_like(keep), keep], dim=-1)
        return Selection(logits=logits, mask=word_mask)

    def predict(self, batch, keep_words=None):
        """Class logits from the kept words (all words when ``keep_words`` is None)."""
        states, pool_mask = self.encode_words(self.encoder, batch, keep_words)
        return self.predictor(self.pool(states, pool_mask))

    def forward(self, batch):
        return self.outputs(batch, self.select(batch), self.predict(batch))
