"""G-RAT: guided rationalization (Hu and Yu, AAAI 2024).

An attention guider, trained on the full input, supervises the selector: its
(eval-mode) attention, folded onto words, is turned into a per-word target
for the selector's keep-logit (BCE), and its class distribution is matched by
the predictor (JSD). The two terms are annealed against each other: the guide
term's weight is multiplied by f and the JSD term's by 1 - f, with
f = max(1 - max(t - 1, 0) * decay, 0) over rationaliser steps t.

One training step (two optimisers, manual optimisation):
1. guider step on the full input (train mode: noisy attention, dropout);
2. rationaliser forward;
3. guider re-read in eval mode without gradients -> per-word targets;
4. rationaliser step, from ``pretrain_epochs`` on; then t += 1.

Departures from the reference implementation:
- the guide target divides by the mean attention over the *valid* words of a
  document, not over the padded width, so a target does not depend on the
  longest document in its batch;
- the BCE logit is the selector's log-odds of keeping a word
  (logit_keep - logit_drop), i.e. BCE on p(keep);
- JSD is the standard Jensen-Shannon divergence (see ``jensen_shannon``);
- the step counter t is a registered buffer, so a resumed run continues the
  annealing schedule exactly.
"""
from __future__ import annotations

from typing import ClassVar

import torch
from cinnamon.registry import RegistrationKey

from pyhighlights.components.losses import LossSet
from pyhighlights.components.words import tokens_to_words_sum
from pyhighlights.config.resolve import build
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, Real, registration_key as key


def annealing_factor(steps_taken: int, decay: float) -> float:
    """f = max(1 - max(t - 1, 0) * decay, 0): the first two steps both use f = 1."""
    return max(1.0 - max(steps_taken - 1, 0) * decay, 0.0)


def guide_target(word_attention: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """min(a_i / (mean_valid(a) + 1/(1+n)), 1) over the n valid words; 0 on padding."""
    mask = word_mask.to(word_attention.dtype)
    n = mask.sum(dim=1, keepdim=True)
    mean = (word_attention * mask).sum(dim=1, keepdim=True) / n.clamp(min=1)
    return torch.clamp(word_attention / (mean + 1.0 / (1.0 + n)), max=1.0) * mask


class GRATConfig(RNPConfig):
    guider: RegistrationKey = Param(key("guider", "attention"))
    guider_losses: dict[str, RegistrationKey] = Param({"guider_task": key("loss", "cross_entropy")})
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity"), "guide": key("loss", "guide"), "jsd": key("loss", "jsd")})
    guider_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False, description="guider learning rate; null = lr")
    pretrain_epochs: int = Param(10, ge=0, description="epochs in which only the guider trains")
    decay: float = Real(1e-5, ge=0.0, description="annealing decay per rationaliser step")
    guide_term: str = Param("guide", description="loss term scaled by f")
    match_term: str = Param("jsd", description="loss term scaled by 1 - f")
    separate_predictor_encoder: bool = Param(True, description="G-RAT needs its own predictor encoder")
    child_defaults: ClassVar[dict] = {
        "losses.sparsity": {"weight": 10.0, "target": 0.15}, "losses.continuity": {"weight": 10.0},
        "losses.guide": {"weight": 10.0}, "losses.jsd": {"weight": 1.5},
        "guider_losses.guider_task": {"logits": "guider_logits"},
    }

    @classmethod
    def default(cls):
        config = cls(lr=1e-4)
        config.add_condition(lambda c: c.separate_predictor_encoder,
                             name="separate_predictor_encoder: G-RAT refuses a predictor that shares the "
                                  "selector's encoder; set it to true")
        config.add_condition(lambda c: c.guide_term in c.losses and c.match_term in c.losses,
                             name="guide_term and match_term must name loss terms of model.losses")
        config.add_condition(lambda c: c.guide_term != c.match_term, name="guide_term and match_term must differ")
        return config


class GRAT(RNP):
    def __init__(self, *, guider, guider_losses, guider_lr=None, pretrain_epochs=10, decay=1e-5, guide_term="guide",
                 match_term="jsd", separate_predictor_encoder=True, **rnp):
        super().__init__(**rnp)
        if not separate_predictor_encoder:
            raise ValueError("model.separate_predictor_encoder: G-RAT needs a separate predictor backbone")
        self.automatic_optimization = False
        self.guider = self.build_part("guider", guider, "model.guider", encoder=self.make_backbone(),
                                      num_classes=self.num_classes)
        self.guider_losses = LossSet({label: build("loss", spec, path=f"model.guider_losses.{label}")
                                      for label, spec in guider_losses.items()})
        self.losses.require([guide_term, match_term], "model.guide_term/match_term")
        self.guider_lr = guider_lr or self.lr
        self.pretrain_epochs, self.decay = pretrain_epochs, decay
        self.guide_term, self.match_term = guide_term, match_term
        self.first_scored_epoch = pretrain_epochs
        self.register_buffer("rationaliser_steps", torch.zeros((), dtype=torch.long))

    # --- parts ----------------------------------------------------------------------
    def rationaliser_modules(self):
        return [self.selector_encoder, self.selector, self.predictor_encoder, self.predictor]

    def configure_optimizers(self):
        return [self.make_optimizer([self.guider], lr=self.guider_lr), self.make_optimizer(self.rationaliser_modules())]

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
        return guide_target(words, batch.word_mask), read.logits

    def forward(self, batch):
        selection = self.select(batch)
        logits = self.predict(batch, selection.mask)
        target, guider_logits = self.guidance(batch)
        return self.outputs(batch, selection, logits, guide_target=target, guider_logits=guider_logits)

    # --- training -------------------------------------------------------------------
    def training_step(self, batch, batch_idx):
        guider_opt, rationaliser_opt = self.optimizers()
        read = self.guider(batch.input_ids, batch.attention_mask)
        guider_loss, guider_parts = self.guider_losses({"guider_logits": read.logits, "labels": batch.labels})
        self.manual_step(guider_opt, guider_loss, [self.guider])
        self.log("train/guider_loss", guider_loss.detach(), prog_bar=True, batch_size=batch.size)
        if self.current_epoch < self.pretrain_epochs:
            return None
        outputs = self(batch)
        total, parts = self.loss(outputs, scales=self.scales())
        self.manual_step(rationaliser_opt, total, self.rationaliser_modules())
        self.rationaliser_steps += 1
        self.log_train(total, parts, outputs, batch.size)
        self.log("train/annealing", self.annealing(), batch_size=batch.size)
        return None
