"""G-RAT: guided rationalization (Hu and Yu, AAAI 2024).

An attention guider, trained on the full input, supervises the selector: its
(eval-mode) attention, folded onto words, becomes a per-word target for the
selector's keep logit (BCE), and the predictor matches its class
distribution. The two terms are annealed against each other: the guide term
is scaled by f, the match term by 1 - f, f = max(1 - max(t - 1, 0) * decay, 0)
over rationaliser steps t.

One training step, two phases (:meth:`GRAT.phases`; two optimisers, manual optimisation):
1. guider step on the full input (train mode: noisy attention, dropout);
2. from ``pretrain_epochs`` on, the rationaliser: its forward, the guider re-read in eval mode without
   gradients -> per-word targets, the rationaliser step; then t += 1.

Defaults compute what the reference code (github.com/shuaibo919/g-rat) computes.
Our options, each a named setting, and why one might want them:
- ``match_term=jsd`` (``losses.match.name=jsd``): the textbook Jensen-Shannon divergence instead of the reference's ½[KL(M‖P)+KL(M‖Q)]; bounded by log 2.
- ``guide_target_mean=valid``: the target divides by the mean attention over a document's words, not the padded width, so it does not depend on the longest document in the batch.
- ``losses.guide.average=valid``, ``losses.guide.logit=log_odds``: BCE over real words only, on log p(keep)/p(drop), so padding and the drop logit's offset do not enter.
- ``losses.sparsity.padding=excluded``, ``losses.continuity.padding=excluded``: sparsity and continuity over real words only, so padded positions cannot satisfy the sparsity target.
- ``predictor_pool=kept``: the predictor max-pools over kept words only, so unselected words cannot reach it through the recurrent states.
- ``guider.name=additive``: our smaller additive-attention guider.
- ``shared_norm=false``, ``encoder_dropout=null``: no shared LayerNorm, the backbone's own dropout (the rest of the family's encoders).
- ``shared_embeddings=false``: the selector and the predictor each read their own embedding table (the
  reference's ``RNPSTModel`` has one ``embedding_layer`` for both; with trainable embeddings two tables drift apart).
- ``losses.aspect_adversary.weight`` > 0 (with ``dataset.aspect_environments=true``): an adversary of the
  rationale that predicts which other aspects disagree with the label, defeated by the selector
  (:mod:`pyhighlights.components.aspect_adversary`); trained with the rationaliser.
- ``layout=packed`` (``recurrence=within_length``, ``bucket=true``): our faster batching. The reference runs
  a plain bidirectional ``nn.GRU`` over the padded batch (``recurrence: padded``; model/common/modules.py
  RNNModule) and draws random batches padded to their longest document (``bucket: false``,
  ``pad_to: null``; train_utils.py prepare_dataset), and the padded states enter its padding-counted terms.
The step counter t is a registered buffer, so a resumed run continues the
annealing schedule exactly (the reference does not checkpoint it).
"""
from __future__ import annotations

from typing import ClassVar, Literal

import torch
from cinnamon.registry import RegistrationKey
from torch import nn

from pyhighlights.components.aspect_adversary import ADVERSARY_OUTPUTS, ADVERSARY_SLOT
from pyhighlights.components.losses import LossSet
from pyhighlights.components.words import tokens_to_words_sum
from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.phases import Phase, PhasedTraining
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, Real, registration_key as key


def annealing_factor(steps_taken: int, decay: float) -> float:
    """f = max(1 - max(t - 1, 0) * decay, 0): the first two steps both use f = 1."""
    return max(1.0 - max(steps_taken - 1, 0) * decay, 0.0)


def guide_target(word_attention: torch.Tensor, word_mask: torch.Tensor, mean: str = "padded") -> torch.Tensor:
    """min(a_i / (mean(a) + 1/(1+n)), 1) over the n valid words; 0 on padding.

    ``mean="padded"``: mean over the padded width W of the batch, with the
    reference's 1e-8 in the denominator (model/common/modules.py,
    get_expand_token_scores); ``"valid"``: mean over the document's n words.
    """
    mask = word_mask.to(word_attention.dtype)
    n = mask.sum(dim=1, keepdim=True)
    if mean == "padded":
        denominator = 1e-8 + word_attention.mean(dim=1, keepdim=True) + 1.0 / (1.0 + n)
    else:
        denominator = (word_attention * mask).sum(dim=1, keepdim=True) / n.clamp(min=1) + 1.0 / (1.0 + n)
    return torch.clamp(word_attention / denominator, max=1.0) * mask


def share_embedding_table(first: nn.Module, second: nn.Module) -> None:
    """``second`` reads ``first``'s embedding table (one parameter, stepped once).

    Only backbones with an ``embedding`` table (the recurrent ones) share it; a transformer keeps the
    embeddings inside its pretrained model, as a transformer backbone setting has no reference to follow.
    """
    table = getattr(first, "embedding", None)
    if isinstance(table, nn.Embedding) and isinstance(getattr(second, "embedding", None), nn.Embedding):
        second.embedding = table


class GRATConfig(RNPConfig):
    #: A model field counting epochs in which the rationaliser does not train (checked against trainer.max_epochs).
    warmup_field: ClassVar[str] = "pretrain_epochs"
    guider: RegistrationKey = Param(key("guider", "reference"))
    guider_losses: dict[str, RegistrationKey] = Param({"guider_task": key("loss", "cross_entropy")})
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity"), "guide": key("loss", "guide"), "match": key("loss", "match"),
         **ADVERSARY_SLOT})  # ours, off by default: see pyhighlights/components/aspect_adversary.py
    guider_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False, description="guider learning rate; null = lr "
                                                                                   "(reference: one lr, run_guide.py)")
    pretrain_epochs: int = Param(10, ge=0, description="epochs in which only the guider trains "
                                                       "(reference: run_guide.py pre_train = epoch >= 10)")
    decay: float = Real(1e-4, ge=0.0, description="annealing decay per rationaliser step "
                                                  "(reference: run_guide.py --guide_decay default)")
    guide_term: str = Param("guide", description="loss term scaled by f")
    match_term: str = Param("match", description="loss term scaled by 1 - f")
    guide_target_mean: Literal["padded", "valid"] = Param(
        "padded", description="mean attention of the guide target over the padded width (reference) or valid words")
    predictor_pool: Literal["valid", "kept"] = Param(
        "valid", description="predictor max-pool over all valid words (reference) or only the kept ones")
    shared_norm: bool = Param(True, description="one LayerNorm on the selector's and predictor's encoder states "
                                                "(reference: model/model_st.py layer_norm)")
    encoder_dropout: float | None = Param(0.0, ge=0.0, lt=1.0, description="dropout of the encoders' embeddings and "
                                          "states (reference: none, only before the heads); null = backbone.dropout")
    separate_predictor_encoder: bool = Param(True, description="G-RAT needs its own predictor encoder")
    layer_norm: Literal["none"] = Param("none", description="G-RAT normalises its encoder states with shared_norm")
    shared_embeddings: bool = Param(True, description="one embedding table read by the selector and the predictor "
                                                      "(reference: model/model_st.py embedding_layer; recurrent "
                                                      "backbones); the guider keeps its own")
    # Loss weights and s: script/beer/guide/a0.sh (the paper's Beer appearance setting); the corpus presets and
    # experiment configs set the other aspects'. Padding counted, dropout 0.2 before the heads: model/model_st.py.
    # lr: script/beer/guide/a0.sh; weight decay: run_guide.py --weight_decay (both optimisers)
    # Batching: model/common/modules.py RNNModule (nn.GRU over the padded batch); train_utils.py prepare_dataset
    # (random batches, RandomSampler, padded to the batch's longest).
    defaults = {
        "lr": 1e-4, "weight_decay": 2e-6, "recurrence": "padded", "pad_to": None, "bucket": False,
        "losses": {"sparsity": {"weight": 10.0, "target": 0.15, "padding": "counted"},
                   "continuity": {"weight": 10.0, "padding": "counted"},
                   "guide": {"weight": 10.0, "keep_target": "guide_target"},
                   "match": {"weight": 1.5, "p": "logits", "q": "guider_logits"}},
        "guider_losses": {"guider_task": {"logits": "guider_logits"}},
        "selector": {"dropout": 0.2},
    }
    outputs = {"losses": SELECTION_OUTPUTS | {"guide_target", "guider_logits"} | ADVERSARY_OUTPUTS,
               "guider_losses": frozenset({"guider_logits", "labels"})}
    term_fields = {"guide_term": "losses", "match_term": "losses"}
    training_outputs = ADVERSARY_OUTPUTS

    @classmethod
    def default(cls):
        config = super().default()
        config.add_condition(lambda c: c.separate_predictor_encoder,
                             name="separate_predictor_encoder: G-RAT refuses a predictor that shares the "
                                  "selector's encoder; set it to true")
        config.add_condition(lambda c: c.guide_term != c.match_term, name="guide_term and match_term must differ")
        return config


class GRAT(PhasedTraining, RNP):
    #: What the per-epoch log line says of the first ``pretrain_epochs`` epochs, and the loss it shows.
    warm_up_description: ClassVar[str] = "only the guider trains"
    warm_up_loss: ClassVar[str] = "train/guider_loss"

    def __init__(self, *, guider_lr, pretrain_epochs, decay, guide_term, match_term, guide_target_mean, shared_norm,
                 separate_predictor_encoder, shared_embeddings, **rnp):
        if not separate_predictor_encoder:
            raise ValueError("model.separate_predictor_encoder: G-RAT needs a separate predictor backbone")
        super().__init__(**rnp)
        self.shared_embeddings = shared_embeddings
        if shared_embeddings:
            share_embedding_table(self.selector_encoder, self.predictor_encoder)
        self.guider = self.build_slot("guider", encoder=self.make_backbone(), num_classes=self.num_classes)
        self.guider_losses = LossSet(self.build_slot("guider_losses"))
        self.losses.require([guide_term, match_term], "model.guide_term/match_term")
        self.guider_lr = guider_lr or self.lr
        self.pretrain_epochs, self.decay = pretrain_epochs, decay
        self.guide_term, self.match_term = guide_term, match_term
        self.guide_target_mean = guide_target_mean
        self.norm = nn.LayerNorm(self.selector_encoder.output_size) if shared_norm else nn.Identity()
        self.first_scored_epoch = pretrain_epochs
        self.register_buffer("rationaliser_steps", torch.zeros((), dtype=torch.long))
        self.attach_aspect_adversary()

    # --- parts ----------------------------------------------------------------------
    def rationaliser_modules(self):
        adversary = [] if self.aspect_adversary is None else [self.aspect_adversary]
        return [self.selector_encoder, self.selector, self.predictor_encoder, self.predictor, self.norm, *adversary]

    def select(self, batch):
        states, _ = self.encode_words(self.selector_encoder, batch)
        return self.selector(self.word_states(self.norm(states), batch), batch.word_mask)

    def predict(self, batch, keep_words):
        states, pool_mask = self.encode_words(self.predictor_encoder, batch, keep_words)
        if self.predictor_pool == "valid":
            pool_mask = batch.attention_mask
        return self.predictor(self.pool(self.norm(states), pool_mask))

    def parts(self):
        return {"guider": [self.guider], "rationaliser": self.rationaliser_modules()}

    def optimisers(self):
        return {"guider": self.make_optimizer([self.guider], lr=self.guider_lr),
                "rationaliser": self.make_optimizer(self.rationaliser_modules())}

    def phases(self):
        return [
            # the guider on the full input, every batch (train mode: noisy attention, dropout)
            Phase("guider", trains=("guider",), optimisers=("guider",), outputs=self.guider_outputs,
                  losses="guider_losses", logged="train/guider_loss", progress_bar=True, reported=False),
            # the rationaliser from pretrain_epochs on, its guide and match terms annealed against each other
            Phase("rationaliser", trains=("rationaliser",), optimisers=("rationaliser",),
                  outputs=lambda step: self(step.batch), start_epoch=self.pretrain_epochs, scales=self.scales,
                  after=self.count_rationaliser_step),
        ]

    def annealing(self) -> float:
        return annealing_factor(int(self.rationaliser_steps), self.decay)

    def scales(self) -> dict[str, float]:
        f = self.annealing()
        return {self.guide_term: f, self.match_term: 1.0 - f}

    def evaluation_scales(self):
        return self.scales()

    def guidance(self, batch) -> tuple[torch.Tensor, torch.Tensor]:
        """Guider re-read in eval mode without gradients: (per-word target, class logits)."""
        was_training = self.guider.training
        self.guider.eval()
        with torch.no_grad():
            read = self.guider(batch.input_ids, batch.attention_mask)
        self.guider.train(was_training)
        words = tokens_to_words_sum(read.attention, batch.word_ids, batch.word_mask.shape[1])
        return guide_target(words, batch.word_mask, self.guide_target_mean), read.logits

    def forward(self, batch):
        selection = self.select(batch)
        logits = self.predict(batch, selection.mask)
        target, guider_logits = self.guidance(batch)
        return self.outputs(batch, selection, logits, guide_target=target, guider_logits=guider_logits,
                            **self.adversary_outputs(batch, selection.mask))

    # --- training (the phases above) -------------------------------------------------
    def guider_outputs(self, step):
        read = self.guider(step.batch.input_ids, step.batch.attention_mask)
        return {"guider_logits": read.logits, "labels": step.batch.labels}

    def count_rationaliser_step(self, result, step) -> None:
        self.rationaliser_steps += 1
        self.log("train/annealing", self.annealing(), batch_size=step.batch.size)
