"""What every model of the Liu et al. family (FR, DR, MGR, MCD, DAR, MRD) shares.

Defaults of their scripts (jugechengzi on GitHub): lr 1e-4; the task loss weighted by ``--cls_lambda``
0.9; dropout 0.2 only right before each linear head (``nn.Dropout(args.dropout)`` in every
``model.py``; none on the embeddings or the GRU states: ``encoder_dropout`` 0); a Gumbel sample drawn
by the model's forward whatever the mode, so evaluation samples too; sparsity and continuity terms
that count padding as ``metric.py`` does (get_sparsity_loss: sum(z) / sum(mask) with z over the padded
width; get_continuity_loss: the mean over every neighbouring pair of the padded width). Their encoder
and batching: a plain bidirectional ``nn.GRU`` over the whole padded tensor (``recurrence: padded``),
every batch padded to 256 tokens (``pad_to: 256``: each ``beer.py`` / ``hotel.py`` loader pads to its
``max_length=256``, which the scripts never change) and drawn at random (``DataLoader(shuffle=True)``,
``bucket: false``). The sparsity target and the two weights differ per script; each model states its own.
"""
from __future__ import annotations

from typing import Literal

from pyhighlights.models.rnp import RNPConfig
from pyhighlights.registry import Param


class LiuFamilyConfig(RNPConfig):
    """RNP's parameters plus the structural choices of the Liu et al. scripts, as named options."""

    defaults = {"lr": 1e-4, "recurrence": "padded", "pad_to": 256, "bucket": False,
                "selector": {"evaluation": "sample", "dropout": 0.2},
                "losses": {"task": {"weight": 0.9}, "sparsity": {"padding": "counted"},
                           "continuity": {"padding": "counted"}}}

    predictor_pool: Literal["kept", "valid"] = Param(
        "valid", description="the predictor max-pools over every real word (reference) or only the kept ones")
    layer_norm: Literal["none", "selector", "both", "shared"] = Param(
        "selector", description="LayerNorm on encoder states: none, the selector path (reference), each path its "
                                "own, or one shared")
    encoder_dropout: float | None = Param(0.0, ge=0.0, lt=1.0, description="dropout of the encoders' embeddings "
                                          "and states (reference: none, only before the heads); null = backbone.dropout")


def liu_losses(*, target: float, sparsity: float, continuity: float) -> dict[str, dict[str, dict[str, float]]]:
    """The ``losses`` defaults of one script: ``--sparsity_percentage``, ``--sparsity_lambda``,
    ``--continuity_lambda`` (padding counted, inherited from :class:`LiuFamilyConfig`)."""
    return {"sparsity": {"weight": sparsity, "target": target}, "continuity": {"weight": continuity}}
