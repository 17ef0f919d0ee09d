"""The model as captum sees it.

Captum repeats every tensor argument along the batch dimension (IG's steps,
perturbation batches), so the batch travels as plain tensors
(:func:`batch_fields`) and is rebuilt inside the forward function.

Two input spaces:

- **word presence** ``keep`` [B, W] (1 = word present, 0 = removed, as the
  model removes words for faithfulness: zeroed embeddings in a recurrent
  backbone, masked attention in a transformer). Perturbation methods
  (ablation, occlusion, Shapley sampling, LIME) and the robustness metrics
  work here, so each word is one feature, like LIME's interpretable
  representation (Ribeiro et al., 2016).
- **input embeddings** [B, T, E] of the backbone the prediction reads
  (``model.input_backbone()``), for gradient methods. A forward hook on the
  embedding layer replaces its output with the tensor captum differentiates.
"""
from __future__ import annotations

from contextlib import contextmanager

import torch
from torch import nn

from pyhighlights.data.batch import Batch

#: Batch fields a prediction needs, in the order they travel through captum.
FIELDS = ("input_ids", "attention_mask", "word_ids", "word_mask")
OUTPUTS = ("probability", "logit")


def batch_fields(batch: Batch) -> tuple[torch.Tensor, ...]:
    return tuple(getattr(batch, name) for name in FIELDS)


def rebuild(input_ids, attention_mask, word_ids, word_mask) -> Batch:
    """A Batch from :data:`FIELDS`; labels and highlights are unused by ``predict`` and left empty."""
    zeros = torch.zeros(input_ids.shape[0], dtype=torch.long, device=input_ids.device)
    return Batch(input_ids=input_ids, attention_mask=attention_mask, word_ids=word_ids, word_mask=word_mask,
                 highlights=torch.full_like(word_mask, -1), labels=zeros, sample_ids=zeros)


def input_backbone(model) -> nn.Module:
    """The backbone whose embeddings the prediction reads (a classifier's encoder; an SPP's predictor encoder)."""
    if hasattr(model, "input_backbone"):
        return model.input_backbone()
    if hasattr(model, "predictor_encoder"):
        return model.predictor_encoder
    raise TypeError(f"{type(model).__name__} exposes no input backbone; gradient methods need one")


def embedding_layer(model) -> nn.Module:
    """The input embedding layer of :func:`input_backbone`: its ``embedding`` (recurrent backbones) or the
    ``get_input_embeddings()`` of the Hugging Face model it wraps (word-piece embeddings, before positions)."""
    backbone = input_backbone(model)
    layer = getattr(backbone, "embedding", None)  # recurrent backbones
    for owner in (backbone, getattr(backbone, "model", None)):  # a Hugging Face model, or a backbone wrapping one
        if layer is None and hasattr(owner, "get_input_embeddings"):
            layer = owner.get_input_embeddings()
    if not isinstance(layer, nn.Module):
        raise TypeError(f"{type(backbone).__name__} has no input embedding layer")
    return layer


@contextmanager
def embeddings_replaced(layer: nn.Module, embeddings: torch.Tensor):
    """Within the block, ``layer``'s output is ``embeddings`` (same shape), so gradients reach them."""

    def replace(module, args, output):
        if output.shape != embeddings.shape:
            raise ValueError(f"embedding output {tuple(output.shape)} != given {tuple(embeddings.shape)}")
        return embeddings

    handle = layer.register_forward_hook(replace)
    try:
        yield
    finally:
        handle.remove()


class CaptumForward:
    """Forward functions of a model for captum; ``output`` is what is attributed (probability or logit)."""

    def __init__(self, model, output: str = "probability"):
        if output not in OUTPUTS:
            raise ValueError(f"output={output}: expected one of {', '.join(OUTPUTS)}")
        self.model = model
        self.output = output

    def finish(self, logits: torch.Tensor) -> torch.Tensor:
        """The attributed output from the model's logits."""
        return torch.softmax(logits, dim=-1) if self.output == "probability" else logits

    def presence(self, keep, input_ids, attention_mask, word_ids, word_mask) -> torch.Tensor:
        """Outputs [B, C] with word ``w`` scaled by ``keep[:, w]`` (0 = removed)."""
        batch = rebuild(input_ids, attention_mask, word_ids, word_mask)
        return self.finish(self.model.predict(batch, keep * word_mask.to(keep.dtype)))

    def embeddings(self, embeddings, keep, input_ids, attention_mask, word_ids, word_mask) -> torch.Tensor:
        """Outputs [B, C] computed from the given input ``embeddings`` [B, T, E] instead of the lookup."""
        with embeddings_replaced(embedding_layer(self.model), embeddings):
            return self.presence(keep, input_ids, attention_mask, word_ids, word_mask)

    def input_embeddings(self, input_ids: torch.Tensor) -> torch.Tensor:
        """The embedding layer's output for ``input_ids`` (detached)."""
        with torch.no_grad():
            return embedding_layer(self.model)(input_ids).detach()
