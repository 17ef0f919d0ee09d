"""Encoders that read a few features per token beside the words: a one-hot joined to every embedding.

InvRat's environment predictor reads the environment this way (Chang et al., ICML 2020), CAR's generators and
discriminator the document's label and the speaking generator (Chang et al., NeurIPS 2019), and so does DMR,
built on CAR's game. Only a recurrent backbone takes the extra inputs (a transformer's first layer is its
pre-trained embeddings), so asking another backbone for them is refused with the caller's advice.
"""
from __future__ import annotations

from functools import partial

from pyhighlights.components.backbones.recurrent import RecurrentBackbone


def accepting_extra_inputs(make_backbone):
    """``make_backbone`` (the model's backbone factory) taking ``extra_inputs`` (and the backbone's other
    build-time options, such as ``extra_on_padding``) when it is called."""
    factory, fixed = (make_backbone.func, make_backbone.keywords) if isinstance(make_backbone, partial) else \
        (make_backbone, {})

    def build(extra_inputs: int = 0, **options):
        from pyhighlights.config.resolve import build as build_component

        if not extra_inputs:
            return make_backbone()
        runtime = dict(factory.runtime, extra_inputs=extra_inputs, **options)
        return build_component("backbone", {**factory.spec, **fixed}, path="backbone", **runtime)

    return build


def backbone_with_inputs(make_backbone, extra_inputs: int, refusal: str, **options):
    """A backbone from ``make_backbone`` whose first layer also reads ``extra_inputs`` features per token; a
    ``ValueError(refusal)`` when the backbone is not recurrent and cannot."""
    if not extra_inputs:
        return make_backbone()
    try:
        backbone = make_backbone(extra_inputs=extra_inputs, **options)
    except TypeError as error:  # a backbone without extra inputs (the transformer) does not take the argument
        if "extra_inputs" not in str(error) and "extra_on_padding" not in str(error):
            raise
        backbone = None
    if not isinstance(backbone, RecurrentBackbone):
        raise ValueError(refusal)
    return backbone
