"""FR: folded rationalization (Liu et al., NeurIPS 2022).

W. Liu et al. "FR: Folded Rationalization with a Unified Encoder."
NeurIPS 2022.

The selector and the predictor share **one encoder** (embeddings, recurrent
layers and, with ``backbone.layer_norm=true``, its LayerNorm): the selector
reads the full text through it and scores each word; the predictor reads the
kept words through the very same parameters. Each part keeps only its own
head (the selector's scoring layer, the predictor's classifier). One loss,
one optimiser: the encoder receives the gradient of both uses summed and is
stepped once per batch, which is what lets the predictor's knowledge of the
task reach the selector ("folding" the two players into one).

Loss: 0.9·CE + λs·|selection rate − s| + λc·continuity.

Registered defaults (reference values): lr 1e-4, task weight 0.9, s = 0.15,
λs = 11, λc = 12. lr and the 0.9 follow the paper; λs = 11, λc = 12 are the
values of the authors' public Beer scripts as we recall them (they could not
be re-checked offline); the scripts also tune s per aspect (around 0.1-0.2).
``configs/experiment/quick_fr.yaml`` holds a setting that converges in a few
CPU minutes on the embedded synthetic corpus.

Departures from the reference code:
- straight-through hard Gumbel-softmax with a deterministic evaluation mask
  (p(keep) >= 0.5), shared with every model here;
- the predictor max-pools over kept words only (a document with nothing kept
  pools to zeros);
- the LayerNorm is the backbone's optional output norm, so it is shared
  exactly when the encoder is (the reference applies its own LayerNorm
  module on both paths: the same thing).
"""
from __future__ import annotations

from pyhighlights.models.base import SPPModel
from pyhighlights.models.liu_family import LiuFamilyConfig


class FRConfig(LiuFamilyConfig):
    defaults = {"losses": {"task": {"weight": 0.9}}}


class FR(SPPModel):
    """One encoder, two heads; automatic optimisation with a single Adam."""

    def __init__(self, *, selector, predictor, **common):
        super().__init__(**common)
        self.encoder = self.make_backbone()
        size = self.encoder.output_size
        self.selector = self.build_part("selector", selector, "model.selector", input_size=size)
        self.predictor = self.build_part("predictor", predictor, "model.predictor", input_size=size,
                                         num_classes=self.num_classes)

    # Both encoder roles are the one shared encoder; the base select/predict read these names.
    @property
    def selector_encoder(self):
        return self.encoder

    @property
    def predictor_encoder(self):
        return self.encoder
