"""Inter-RAT: interventional rationalization (Yue, Liu, Wang, An, Du and Huang, EMNLP 2023, "Interventional
Rationalization"). Reference code: github.com/yuelinan/Codes-of-Inter-RAT, commit
416f63ce570a40f054d9f214f6452505a23d0091: ``model.py`` (``InterRAT``, ``MaskGRU``), ``train.py`` (the loop,
its argparse defaults) and ``run.sh`` (the Beer setting, also in its README), cited below by file name.

The paper finds a confounder behind the input and the rationale, and behind the rationale and the label, and
removes both spurious correlations by backdoor adjustment (a causal intervention on the selector, and one on
the predictor). The code approximates the confounder by a dictionary of one learned embedding per class and
adjusts with the prior-weighted, attention-weighted expectation of those embeddings
(:mod:`pyhighlights.components.confounders`, the ``confounder`` slot):

- selector: a bidirectional GRU over the embeddings (``encoder``); each word's state h_t is joined by the
  confounder representation of h_t, [h_t; d(h_t)], and a linear layer gives the keep/drop logits
  (``x_2_prob_z``, the ``selector`` slot's scorer, of 2H inputs); a hard Gumbel-softmax sample, drawn in
  evaluation too (``F.gumbel_softmax`` whatever the mode: ``selector.evaluation=sample``);
- predictor: a second GRU over the kept words' embeddings (``re_encoder``), its states summed over every real
  word and divided by the number of kept words (``rationale_pool=sum_per_kept``; the division carries the sample's
  straight-through gradient, a document with nothing kept divides by 1), joined by the confounder
  representation of that vector (keys not projected), and a linear layer (``ChargeClassifier``, the
  ``predictor`` slot, of 2H inputs, no dropout).

Both GRUs are ``MaskGRU``: dropout 0.2 on the embeddings only, then ``nn.GRU`` over the whole padded batch
(``recurrence=padded``), the padded states zeroed (read by nothing here but the pooling, which skips them):
``encoder_dropout`` 0.2 and ``encoder_output_dropout=false``. Loss (``train.py``): CE + 0.05 ``sparsity`` +
0.01 ``continuity`` (``--infor_loss``, ``--regular``), each averaged per document
(:mod:`pyhighlights.components.document_terms`; target 0.2, ``--alpha_rationle``, ``--abs 1``); one Adam over
every parameter, lr 1e-3, no weight decay, the rate x0.97 per epoch down to 5e-5 (``ExponentialLR``,
``--lr_decay``, ``--min_lr``); batches drawn at random (``shuffle=True``: ``bucket=false``), each padded to its
longest document (``seq2tensor``). Set by the experiment configs, not here: the frozen 100d GloVe embeddings
(``vectors.weight.requires_grad = False``, one table for both GRUs), hidden 200, batch 256, 20 epochs.
``extract_encoder`` and ``Transformation_first`` of ``InterRAT`` are built but never used; we have neither.

Departures, each a named option: ``selector.evaluation=threshold``; ``rationale_pool=max`` (the base's max-pool, over
the kept words or every real word as ``predictor_pool`` says); ``encoder_output_dropout=true``;
``confounder.prior=null`` (uniform: the reference's prior off Beer); ``losses.sparsity.name=sparsity`` and
``losses.continuity.name=continuity`` (the batch-pooled terms); ``layout=packed``; ``lr_decay=1``.
"""
from __future__ import annotations

from typing import Literal

import torch
from cinnamon.registry import RegistrationKey

from pyhighlights.data.batch import Batch
from pyhighlights.models.base import SELECTION_OUTPUTS, SPPModel, with_encoder_settings
from pyhighlights.models.mechanics import epoch_decay
from pyhighlights.models.rnp import RNPConfig, path_norms
from pyhighlights.registry import Param, Real, registration_key as key


class InterRATConfig(RNPConfig):
    confounder: RegistrationKey = Param(key("confounder", "class_embeddings"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "document_sparsity"),
         "continuity": key("loss", "document_continuity")})
    rationale_pool: Literal["sum_per_kept", "max"] = Param(
        "sum_per_kept", description="the predictor's rationale vector: its states summed over every real word / "
                                    "the kept words (reference), or max-pooled (as predictor_pool says)")
    encoder_output_dropout: bool = Param(False, description="the encoders' dropout on their output states too "
                                                            "(reference MaskGRU: on the embeddings only)")
    lr_decay: float = Real(0.97, gt=0.0, le=1.0, description="learning rate x this per epoch (train.py "
                                                            "ExponentialLR, --lr_decay); 1 = constant")
    min_lr: float = Real(5e-5, ge=0.0, description="the decayed learning rate's floor (--min_lr)")
    outputs = {"losses": SELECTION_OUTPUTS}
    defaults = {"lr": 1e-3, "encoder_dropout": 0.2, "recurrence": "padded", "bucket": False,
                "selector": {"evaluation": "sample", "dropout": 0.0}, "predictor": {"dropout": 0.0},
                "losses": {"sparsity": {"weight": 0.05, "target": 0.2}, "continuity": {"weight": 0.01}}}


def sum_per_kept(states: torch.Tensor, attention_mask: torch.Tensor, keep_words: torch.Tensor | None,
                 word_mask: torch.Tensor) -> torch.Tensor:
    """[B, H]: the states summed over every real token, over the kept words' count (1 where none is kept)."""
    total = (states * attention_mask.unsqueeze(-1).to(states.dtype)).sum(dim=1)
    kept = word_mask.to(states.dtype) if keep_words is None else keep_words * word_mask.to(keep_words.dtype)
    count = kept.sum(dim=1)
    count = count + (count == 0).to(count.dtype)  # the reference's (sampled_num == 0) + sampled_num
    return total / count.unsqueeze(-1)


class InterRAT(SPPModel):
    """RNP's two encoders; the selector and the predictor each read their states joined by the confounder's."""

    def __init__(self, *, layer_norm: str, rationale_pool: str, encoder_output_dropout: bool, lr_decay: float,
                 min_lr: float, **common):
        super().__init__(**common)
        if not encoder_output_dropout:
            self.make_backbone = with_encoder_settings(self.make_backbone, output_dropout=False)
        self.selector_encoder = self.make_backbone()
        self.predictor_encoder = self.make_backbone()
        size = self.selector_encoder.output_size
        self.selector_norm, self.predictor_norm = path_norms(layer_norm, size)
        self.confounder = self.build_slot("confounder", input_size=size, num_classes=self.num_classes)
        self.selector = self.build_slot("selector", input_size=2 * size)
        self.predictor = self.build_slot("predictor", input_size=2 * size, num_classes=self.num_classes)
        self.rationale_pool = rationale_pool
        self.lr_decay, self.min_lr = lr_decay, min_lr

    def select(self, batch: Batch):
        states, _ = self.encode_words(self.selector_encoder, batch, norm=self.selector_norm)
        words = self.word_states(states, batch)
        return self.selector(torch.cat([words, self.confounder(words, "selector")], dim=-1), batch.word_mask)

    def represent(self, batch: Batch, keep_words: torch.Tensor | None) -> torch.Tensor:
        """The rationale vector joined by its confounder representation: the predictor head's input [B, 2H]."""
        states, pool_mask = self.encode_words(self.predictor_encoder, batch, keep_words, norm=self.predictor_norm)
        if self.rationale_pool == "max":
            pooled = self.pool(states, pool_mask)
        else:
            pooled = sum_per_kept(states, batch.attention_mask, keep_words, batch.word_mask)
        return torch.cat([pooled, self.confounder(pooled, "predictor")], dim=-1)

    def configure_optimizers(self):
        return epoch_decay(self.make_optimizer([self]), self.lr_decay, self.min_lr)
