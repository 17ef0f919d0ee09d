"""FR: folded rationalization (Liu et al., NeurIPS 2022).

W. Liu et al. "FR: Folded Rationalization with a Unified Encoder."
NeurIPS 2022. Reference code: github.com/jugechengzi/FR.

The selector and the predictor share **one encoder** (embeddings, recurrent
layers and one LayerNorm): the selector reads the full text through it and
scores each word; the predictor reads the kept words through the very same
parameters. Each part keeps only its own head. One loss, one Adam: the
encoder receives the gradient of both uses summed, stepped once per batch.

Loss: 0.9·CE + λs·|selection rate − s| + λc·continuity.

Reference parity (``code/model.py`` GenEncShareModel, ``code/train_util.py``
train_share, ``code/run_share_beer.py`` argparse defaults):
- task weight 0.9 (``--cls_lambda``), lr 1e-4, s 0.1, λs 12, λc 10 (the
  script's defaults; the per-aspect settings of ``hyperparameters.txt`` and
  README are the ``fr_beer_*`` / ``fr_hotel_*`` experiments);
- one LayerNorm after the shared encoder on both paths (``layer_norm:
  shared``), dropout 0.2 only before each head (``selector.dropout``,
  ``predictor.dropout``; ``encoder_dropout`` 0);
- the predictor max-pools over every real word (``predictor_pool: valid``): the
  dropped words' embeddings are zero but their states are pooled;
- a Gumbel sample also at evaluation (``selector.evaluation: sample``);
- the encoder and batching of the family (see :mod:`pyhighlights.models.liu_family.shared`): ``nn.GRU`` over
  batches padded to 256 (``recurrence: padded``, ``pad_to: 256``), drawn at random (``bucket: false``).

Departures, each a named option: ``losses.sparsity.padding=excluded``,
``losses.continuity.padding=excluded`` (real words only; the reference counts
the padded width, ``metric.py``); ``encoder_dropout=null`` (the backbone's dropout on embeddings and
states); ``selector.evaluation=threshold`` (a
deterministic mask, p(keep) >= 0.5); ``predictor_pool=kept`` (pool only the
kept words); ``layer_norm=none``; ``layout=packed`` (the GRU within each length, length-bucketed
batches padded to their longest); ``losses.aspect_adversary.weight`` > 0 with ``dataset.aspect_environments=true``
(an adversary of the rationale, :mod:`pyhighlights.components.aspect_adversary`, stepped by the one Adam).
"""
from __future__ import annotations

from typing import Literal

from cinnamon.registry import RegistrationKey

from pyhighlights.components.aspect_adversary import ADVERSARY_OUTPUTS, ADVERSARY_SLOT
from pyhighlights.models.base import SELECTION_OUTPUTS, SPPModel
from pyhighlights.models.liu_family.shared import LiuFamilyConfig, liu_losses
from pyhighlights.models.rnp import path_norms
from pyhighlights.registry import Param, registration_key as key


class FRConfig(LiuFamilyConfig):
    layer_norm: Literal["none", "shared"] = Param("shared", description="one LayerNorm on the shared encoder, or none")
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity"),
         **ADVERSARY_SLOT})  # ours, off by default: see pyhighlights/components/aspect_adversary.py
    outputs = {"losses": SELECTION_OUTPUTS | ADVERSARY_OUTPUTS}
    training_outputs = ADVERSARY_OUTPUTS
    defaults = {"losses": liu_losses(target=0.1, sparsity=12.0, continuity=10.0)}


class FR(SPPModel):
    """One encoder, two heads; automatic optimisation with a single Adam."""

    def __init__(self, *, layer_norm: str, **common):
        super().__init__(**common)
        self.encoder = self.make_backbone()
        size = self.encoder.output_size
        self.selector_norm, self.predictor_norm = path_norms(layer_norm, size)
        self.selector = self.build_slot("selector", input_size=size)
        self.predictor = self.build_slot("predictor", input_size=size, num_classes=self.num_classes)
        self.attach_aspect_adversary()

    # Both encoder roles are the one shared encoder; the base select/predict read these names.
    @property
    def selector_encoder(self):
        return self.encoder

    @property
    def predictor_encoder(self):
        return self.encoder
