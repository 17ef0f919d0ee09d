"""MGR: multi-generator rationalization (Liu et al., ACL 2023).

W. Liu et al. "MGR: Multi-generator Based Rationalization." ACL 2023.

k generators (each: its own encoder and selector) and one shared predictor
(its own encoder and classifier). Every batch, each generator samples a
selection, the predictor classifies each selection, and the k per-generator
RNP losses (CE + λs·sparsity + λc·continuity) are summed. The generators
learn at different speeds, generator i (0-based) with lr·(1+i), so they
explore different rationales instead of collapsing onto one degenerate
selection; the predictor, which receives k gradients per batch, learns with
lr/k. At inference the generators' keep-probabilities are averaged and a word
is kept when the average is >= 0.5; the predictor reads that selection.

Registered defaults (reference values): k = 3, lr 1e-4 (generators 1e-4,
2e-4, 3e-4; predictor lr/3), s = 0.15, λs = 11, λc = 12. k, the learning
rate rule and averaged inference follow the paper; λs, λc are
the values of the authors' public scripts as we recall them (not re-checked
offline). ``configs/experiment/quick_mgr.yaml`` converges in a few CPU
minutes on the embedded synthetic corpus.

Departures from the reference code:
- inference averages the k generators' keep-probabilities, as the paper describes
  specifies (the paper also discusses keeping a single generator at
  inference for speed; we do not, and are not sure which the released code
  reports);
- one Adam whose parameter groups carry the per-generator rates (equivalent to
  one Adam per generator: Adam's state is per parameter);
- straight-through hard Gumbel-softmax with deterministic evaluation, shared
  with every model here. In training mode :meth:`MGR.select` samples from the
  averaged distribution (used only by tools that call it; training uses the
  per-generator samples).
"""
from __future__ import annotations

import torch
from torch import nn

from pyhighlights.components import selectors
from pyhighlights.components.selectors import Selection, deterministic_mask
from pyhighlights.models.base import SPPModel
from pyhighlights.models.mechanics import part_optimizer
from pyhighlights.models.liu_family import LiuFamilyConfig
from pyhighlights.registry import Param


class MGRConfig(LiuFamilyConfig):
    num_generators: int = Param(3, ge=1, le=16, description="number of generators k")
    predictor_lr_scale: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                             description="predictor lr = lr * this; null = 1/k")


def averaged_selection(selections: list[Selection], word_mask: torch.Tensor, sample: bool,
                       temperature: float = 1.0) -> Selection:
    """The generators' keep-probabilities averaged; mask: p >= 0.5 (or a Gumbel sample when ``sample``)."""
    p = torch.stack([s.keep_probability for s in selections]).mean(dim=0)
    p = p.clamp(1e-6, 1 - 1e-6)
    logits = torch.stack([torch.log1p(-p), torch.log(p)], dim=-1)
    mask = selectors.hard_gumbel_mask(logits, temperature) if sample else deterministic_mask(logits)
    return Selection(logits=logits, mask=mask * word_mask.to(mask.dtype))


class MGR(SPPModel):
    def __init__(self, *, selector, predictor, num_generators: int = 3, predictor_lr_scale: float | None = None,
                 **common):
        super().__init__(**common)
        self.num_generators = num_generators
        self.generator_encoders = nn.ModuleList(self.make_backbone() for _ in range(num_generators))
        self.generators = nn.ModuleList(
            self.build_part("selector", selector, "model.selector", input_size=encoder.output_size)
            for encoder in self.generator_encoders)
        self.predictor_encoder = self.make_backbone()
        self.predictor = self.build_part("predictor", predictor, "model.predictor",
                                         input_size=self.predictor_encoder.output_size, num_classes=self.num_classes)
        self.predictor_lr_scale = 1.0 / num_generators if predictor_lr_scale is None else predictor_lr_scale

    # --- parts and learning rates ---------------------------------------------------
    def parts(self) -> dict[str, list[nn.Module]]:
        parts = {f"generator{i}": [self.generator_encoders[i], self.generators[i]] for i in range(self.num_generators)}
        parts["predictor"] = [self.predictor_encoder, self.predictor]
        return parts

    def part_lrs(self) -> dict[str, float]:
        lrs = {f"generator{i}": self.lr * (1 + i) for i in range(self.num_generators)}
        lrs["predictor"] = self.lr * self.predictor_lr_scale
        return lrs

    def configure_optimizers(self):
        return part_optimizer(self, self.parts(), self.part_lrs())

    # --- selection and prediction ---------------------------------------------------
    def generator_select(self, index: int, batch) -> Selection:
        states, _ = self.encode_words(self.generator_encoders[index], batch)
        return self.generators[index](self.word_states(states, batch), batch.word_mask)

    def select(self, batch):
        selections = [self.generator_select(i, batch) for i in range(self.num_generators)]
        temperature = getattr(self.generators[0], "temperature", 1.0)
        return averaged_selection(selections, batch.word_mask, sample=self.training, temperature=temperature)

    # --- training -------------------------------------------------------------------
    def training_step(self, batch, batch_idx):
        total = None
        summed: dict[str, torch.Tensor] = {}
        for i in range(self.num_generators):
            selection = self.generator_select(i, batch)
            outputs = self.outputs(batch, selection, self.predict(batch, selection.mask))
            loss, parts = self.loss(outputs)
            total = loss if total is None else total + loss
            for name, value in parts.items():
                summed[name] = summed.get(name, 0.0) + value / self.num_generators
            self.log(f"train/generator{i}_selection_rate",
                     (selection.mask.detach() * outputs["word_mask"]).sum() / outputs["word_mask"].sum(),
                     batch_size=batch.size)
        self.log_train(total, summed, outputs, batch.size)
        return total
