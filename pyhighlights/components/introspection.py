"""The introspective generator of Yu, Chang, Zhang and Jaakkola (EMNLP 2019, "Rethinking Cooperative
Rationalization: Introspective Extraction and Complement Control"): the generator first classifies the whole text,
then selects words knowing the label it predicted.

Reference: github.com/Gorov/three_player_for_emnlp, commit d8cd74efeaf8c36304a9179690b384dbe88dbc6b,
``three_player_games/rationale_3players_sentence_classification_models.py``, ``IntrospectionGeneratorModule``:

- a classifier max-pools its encoder's states over the real words and predicts the label (``Classifier_pred``,
  a linear layer);
- the predicted label's embedding (``lab_embed_layer``, ``label_embedding_dim`` 400, initialised N(0, 0.1²)) and
  the pooled states go through ``Transformation`` (linear to ``hidden_dim / 2``, tanh): the initial state of both
  directions of the generator's bidirectional GRU (``DepGenerator``), whose states a linear layer scores
  (drop, keep), keep -1e6 on padding; the policy is then the one of :mod:`pyhighlights.components.policy`;
- ``fixed_classifier`` (False in ``run_beer_single_aspect_introspection_3players.py``) would read the pooled
  states detached (``detach_classifier``).

Our part reads the model's selector encoder's word states: they are the classifier's encoding (the reference's
``Classifier_enc``) and the input of the generator's GRU (the reference's ``DepGenerator`` reads the embeddings
itself). The classifier's logits travel as ``Selection.label_logits``; a model trains them with its own loss term.
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from pyhighlights.components.policy import PolicySelector, PolicySelectorConfig
from pyhighlights.components.selectors import Selection
from pyhighlights.registry import Param


class IntrospectiveSelectorConfig(PolicySelectorConfig):
    num_classes: int = Param(2, ge=2, description="classes the generator's classifier predicts (the corpus's)")
    label_embedding_size: int = Param(400, ge=1, description="size of the predicted label's embedding "
                                                             "(reference: label_embedding_dim 400)")
    hidden_size: int | None = Param(None, ge=2, description="the generator GRU's size, both directions "
                                                            "(reference: hidden_dim); null = the encoder's")
    detach_classifier: bool = Param(False, description="the generator reads the classifier's pooled states "
                                                       "detached (reference: fixed_classifier, False)")


def pooled_states(word_states: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """Max over each document's real words [B, H]."""
    return word_states.masked_fill((word_mask <= 0).unsqueeze(-1), float("-inf")).max(dim=1).values


class IntrospectiveSelector(PolicySelector):
    def __init__(self, *, input_size: int, num_classes: int = 2, label_embedding_size: int = 400,
                 hidden_size: int | None = None, detach_classifier: bool = False, exploration: float = 0.05,
                 dropout: float = 0.0):
        super().__init__(input_size=input_size, exploration=exploration, dropout=dropout)
        hidden = input_size if hidden_size is None else hidden_size
        if hidden % 2:
            raise ValueError(f"selector.hidden_size: the bidirectional GRU needs an even size, got {hidden}")
        self.detach_classifier = detach_classifier
        self.classifier = nn.Linear(input_size, num_classes)
        self.label_embedding = nn.Embedding(num_classes, label_embedding_size)
        nn.init.normal_(self.label_embedding.weight, mean=0.0, std=0.1)
        self.transformation = nn.Sequential(nn.Linear(input_size + label_embedding_size, hidden // 2), nn.Tanh())
        self.generator = nn.GRU(input_size, hidden // 2, batch_first=True, bidirectional=True)
        self.scorer = nn.Linear(hidden, 2)

    def introspect(self, word_states, word_mask):
        """(label logits [B, C], the generator's initial state [2, B, G/2])."""
        pooled = pooled_states(word_states, word_mask)
        read = pooled.detach() if self.detach_classifier else pooled
        label_logits = self.classifier(read)
        label = label_logits.detach().argmax(dim=-1)
        h0 = self.transformation(torch.cat([read, self.label_embedding(label)], dim=-1))
        return label_logits, h0.unsqueeze(0).expand(2, *h0.shape).contiguous()

    def generate(self, word_states, word_mask, h0):
        """The generator GRU from ``h0`` over each document's real words (packed), states [B, W, G]."""
        lengths = word_mask.sum(dim=1).long().clamp(min=1).cpu()
        packed = pack_padded_sequence(self.dropout(word_states), lengths, batch_first=True, enforce_sorted=False)
        states, _ = self.generator(packed, h0)
        states, _ = pad_packed_sequence(states, batch_first=True, total_length=word_states.shape[1])
        return states

    def forward(self, word_states, word_mask):
        label_logits, h0 = self.introspect(word_states, word_mask)
        log_probs, mask = self.policy(self.scorer(self.generate(word_states, word_mask, h0)), word_mask)
        return Selection(logits=log_probs, mask=mask, label_logits=label_logits)
