"""RNP: Rationalizing Neural Predictions (Lei, Barzilay and Jaakkola, EMNLP 2016).

Selector encoder -> per-word keep/drop logits -> hard Gumbel-softmax mask
(straight-through) -> predictor encoder over the kept words -> class logits.
Loss: CE + λs·|selection rate − s| + λc·continuity.

Defaults are chosen to converge in a few CPU minutes on the embedded corpus
(lr 2e-3, λs = λc = 2, batch 32); the FR/G-RAT re-implementations use lr 1e-4
with λs, λc around 10 and batch 256 for hundreds of epochs on real Beer.

Departures from Lei et al.: the REINFORCE estimator of the original is
replaced by straight-through Gumbel-softmax, as in the re-implementations
used by FR, DR and G-RAT; the predictor max-pools over kept words.

Our option: ``losses.aspect_adversary.weight`` > 0 with ``dataset.aspect_environments=true``, an adversary of the
rationale stepped by the one Adam (:mod:`pyhighlights.components.aspect_adversary`).
"""
from __future__ import annotations

from typing import Literal

from cinnamon.registry import RegistrationKey
from torch import nn

from pyhighlights.components.aspect_adversary import ADVERSARY_OUTPUTS, ADVERSARY_SLOT
from pyhighlights.models.base import SELECTION_OUTPUTS, OptimConfig, SPPModel
from pyhighlights.registry import Param, registration_key as key


RNP_LOSSES = {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"),
              "continuity": key("loss", "continuity")}


class RNPConfig(OptimConfig):
    selector: RegistrationKey = Param(key("selector", "gumbel"))
    predictor: RegistrationKey = Param(key("predictor", "mlp"))
    losses: dict[str, RegistrationKey] = Param(RNP_LOSSES)
    layer_norm: Literal["none", "selector", "both", "shared"] = Param(
        "none", description="LayerNorm on encoder states: none, the selector path, each path its own, or one shared")
    outputs = {"losses": SELECTION_OUTPUTS}
    defaults = {"lr": 2e-3, "losses": {"sparsity": {"weight": 2.0, "target": 0.15}, "continuity": {"weight": 2.0}}}


def path_norms(layer_norm: str, size: int) -> tuple[nn.Module, nn.Module]:
    """(selector-path norm, predictor-path norm) for a ``layer_norm`` setting; "shared" is one module twice."""
    if layer_norm not in LAYER_NORMS:
        raise ValueError(f"model.layer_norm: expected one of {LAYER_NORMS}, got {layer_norm!r}")
    if layer_norm == "shared":
        norm = nn.LayerNorm(size)
        return norm, norm
    selector = nn.LayerNorm(size) if layer_norm in ("selector", "both") else nn.Identity()
    predictor = nn.LayerNorm(size) if layer_norm == "both" else nn.Identity()
    return selector, predictor


class RNPModelConfig(RNPConfig):
    """``model=rnp``'s own settings: those of every model built on RNP, plus the slot of our aspect adversary
    (off by default; :mod:`pyhighlights.components.aspect_adversary`), which those models do not all offer."""

    losses: dict[str, RegistrationKey] = Param({**RNP_LOSSES, **ADVERSARY_SLOT})
    outputs = {"losses": SELECTION_OUTPUTS | ADVERSARY_OUTPUTS}
    training_outputs = ADVERSARY_OUTPUTS


LAYER_NORMS = ("none", "selector", "both", "shared")


class RNP(SPPModel):
    def __init__(self, *, layer_norm: str, **common):
        super().__init__(**common)
        self.selector_encoder = self.make_backbone()
        self.predictor_encoder = self.make_backbone()
        size = self.selector_encoder.output_size
        self.selector_norm, self.predictor_norm = path_norms(layer_norm, size)
        self.selector = self.build_slot("selector", input_size=size)
        self.predictor = self.build_slot("predictor", input_size=self.predictor_encoder.output_size,
                                         num_classes=self.num_classes)
        if type(self) is RNP:  # a model built on RNP that offers the adversary attaches it after its own parts
            self.attach_aspect_adversary()
