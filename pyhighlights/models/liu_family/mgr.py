"""MGR: multi-generator rationalization (Liu et al., ACL 2023).

W. Liu et al. "MGR: Multi-generator Based Rationalization." ACL 2023.
Reference code: github.com/jugechengzi/Rationalization-MGR.

k generators and one shared predictor. Every batch each generator samples a
selection, the predictor classifies each, and the k RNP losses (0.9·CE +
λs·sparsity + λc·continuity) are summed into one backward and one step
(``train_util.py`` train_multi_gen). The generators learn at different
speeds so they explore different rationales instead of collapsing onto one
degenerate selection; the predictor, which gets k gradients per batch,
learns at lr/k. Inference (``model.py`` Multi_gen.test) averages the
generators' softmax and draws one sample from the average; the predictor
reads that sample.

Reference parity (``share_beer.py`` argparse defaults and parameter groups,
``model.py`` Multi_gen): k = 5 (``--num_gen``); one generator encoder shared
by the k heads (``Multi_gen`` with ``share=1``: with the default ``--share 0``
the script's optimiser set-up reads ``model.gen``, which only ``share=1``
creates, so the shared encoder is the configuration that runs), learning
at lr/k; head i (its own LayerNorm, dropout, linear layer) at
lr·3·(i+1) (``--lr_lambda`` 3); predictor at lr/k, without LayerNorm,
max-pooling over every real word; lr 1e-4, s 0.1, λs 12, λc 10, task
weight 0.9; sampled, averaged inference.

The readme's published runs use the other script, ``norm_beer.py`` (``--share 0``):
k = 3 generators, each its own encoder at its head's rate lr·(1 + i)
(``--lr_lambda`` 1), λs 11, λc 12; the ``mgr_*`` experiment configs set that
with ``num_generators=3 shared_generator_encoder=false generator_lr_scale=1``.

Departures, each a named option: ``losses.sparsity.padding=excluded``,
``losses.continuity.padding=excluded`` (real words only; the reference counts
the padded width, ``metric.py``); ``shared_generator_encoder=false`` (each
generator its own encoder, stepped at its head's rate);
``generator_lr_scale=1`` (heads at lr·(i+1));
``encoder_dropout=null`` (the backbone's dropout on embeddings and
states); ``selector.evaluation=threshold``
(inference keeps a word when the averaged p(keep) >= 0.5);
``predictor_pool=kept``; ``layer_norm=none``. Always: one Adam whose
parameter groups carry the per-part rates (the reference's one Adam with
per-group rates), stepped as one declared phase (:mod:`pyhighlights.models.phases`;
manual optimisation, so Lightning's ``accumulate_grad_batches`` is refused as for
the other phased models).
"""
from __future__ import annotations

from typing import Literal

import torch
from torch import nn

from pyhighlights.components import selectors
from pyhighlights.components.selectors import Selection, deterministic_mask
from pyhighlights.models.base import SPPModel
from pyhighlights.models.liu_family.shared import LiuFamilyConfig, liu_losses
from pyhighlights.models.mechanics import part_optimizer
from pyhighlights.models.phases import Phase, PhasedTraining
from pyhighlights.registry import Param


class MGRConfig(LiuFamilyConfig):
    num_generators: int = Param(5, ge=1, le=16, description="number of generators k")
    shared_generator_encoder: bool = Param(True, description="one encoder for all generator heads (lr/k)")
    generator_lr_scale: float = Param(3.0, gt=0.0, allow_inf_nan=False,
                                      description="generator i learns at lr * this * (1 + i)")
    predictor_lr_scale: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                             description="predictor lr = lr * this; null = 1/k")
    layer_norm: Literal["none", "selector"] = Param("selector", description="a LayerNorm in each generator head")
    defaults = {"losses": liu_losses(target=0.1, sparsity=12.0, continuity=10.0)}


def averaged_selection(selections: list[Selection], word_mask: torch.Tensor, sample: bool,
                       temperature: float = 1.0) -> Selection:
    """The generators' keep-probabilities averaged; mask: a draw from the average (``sample``) or p >= 0.5."""
    p = torch.stack([s.keep_probability for s in selections]).mean(dim=0)
    p = p.clamp(1e-6, 1 - 1e-6)
    logits = torch.stack([torch.log1p(-p), torch.log(p)], dim=-1)
    raw = selectors.hard_gumbel_mask(logits, temperature) if sample else deterministic_mask(logits)
    return Selection(logits=logits, mask=raw * word_mask.to(raw.dtype), raw_mask=raw)


class MGR(PhasedTraining, SPPModel):
    def __init__(self, *, num_generators: int, shared_generator_encoder: bool, generator_lr_scale: float,
                 predictor_lr_scale: float | None, layer_norm: str, **common):
        super().__init__(**common)
        self.num_generators = num_generators
        self.shared_generator_encoder = shared_generator_encoder
        self.generator_lr_scale = generator_lr_scale
        count = 1 if shared_generator_encoder else num_generators
        self.generator_encoders = nn.ModuleList(self.make_backbone() for _ in range(count))
        size = self.generator_encoders[0].output_size
        self.generator_norms = nn.ModuleList(nn.LayerNorm(size) if layer_norm == "selector" else nn.Identity()
                                             for _ in range(num_generators))
        self.generators = nn.ModuleList(self.build_slot("selector", input_size=size) for _ in range(num_generators))
        self.predictor_encoder = self.make_backbone()
        self.predictor = self.build_slot("predictor", input_size=self.predictor_encoder.output_size,
                                         num_classes=self.num_classes)
        self.predictor_lr_scale = 1.0 / num_generators if predictor_lr_scale is None else predictor_lr_scale

    # --- parts and learning rates ---------------------------------------------------
    def generator_encoder(self, index: int):
        return self.generator_encoders[0 if self.shared_generator_encoder else index]

    def parts(self) -> dict[str, list[nn.Module]]:
        parts: dict[str, list[nn.Module]] = {}
        if self.shared_generator_encoder:
            parts["generator_encoder"] = [self.generator_encoders[0]]
        for i in range(self.num_generators):
            own = [] if self.shared_generator_encoder else [self.generator_encoders[i]]
            parts[f"generator{i}"] = own + [self.generator_norms[i], self.generators[i]]
        parts["predictor"] = [self.predictor_encoder, self.predictor]
        return parts

    def part_lrs(self) -> dict[str, float]:
        lrs = {f"generator{i}": self.lr * self.generator_lr_scale * (1 + i) for i in range(self.num_generators)}
        lrs["generator_encoder"] = self.lr / self.num_generators
        lrs["predictor"] = self.lr * self.predictor_lr_scale
        return lrs

    def optimisers(self):
        return {"all": part_optimizer(self, self.parts(), self.part_lrs())}

    def phases(self):
        # one phase: the k generators' RNP losses summed into one backward and one step
        return [Phase("generators", trains=tuple(self.parts()), optimisers=("all",), outputs=self.generator_outputs)]

    # --- selection and prediction ---------------------------------------------------
    def generator_states(self, index: int, batch) -> torch.Tensor:
        states, _ = self.encode_words(self.generator_encoder(index), batch, norm=self.generator_norms[index])
        return self.word_states(states, batch)

    def generator_select(self, index: int, batch) -> Selection:
        return self.generators[index](self.generator_states(index, batch), batch.word_mask)

    def all_selections(self, batch) -> list[Selection]:
        if not self.shared_generator_encoder:
            return [self.generator_select(i, batch) for i in range(self.num_generators)]
        # The shared encoder runs once; each head reads its states through its own LayerNorm.
        states, _ = self.encode_words(self.generator_encoders[0], batch)
        return [self.generators[i](self.word_states(self.generator_norms[i](states), batch), batch.word_mask)
                for i in range(self.num_generators)]

    def select(self, batch):
        selections = self.all_selections(batch)
        temperature = getattr(self.generators[0], "temperature", 1.0)
        sample = self.training or selectors.samples_at_evaluation(self.generators[0])
        return averaged_selection(selections, batch.word_mask, sample=sample, temperature=temperature)

    # --- training (the phase above) -------------------------------------------------
    def generator_outputs(self, step) -> list[dict[str, torch.Tensor]]:
        """Each generator's selection and the predictor on it (their losses are summed, their terms averaged)."""
        batch, views = step.batch, []
        for i, selection in enumerate(self.all_selections(batch)):
            outputs = self.outputs(batch, selection, self.predict(batch, selection.mask))
            self.log(f"train/generator{i}_selection_rate",
                     (selection.mask.detach() * outputs["word_mask"]).sum() / outputs["word_mask"].sum(),
                     batch_size=batch.size)
            views.append(outputs)
        return views
