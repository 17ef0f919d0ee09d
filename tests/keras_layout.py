"""Keras-layout weights of the TensorFlow references' bidirectional GRUs and dense heads, mapped onto ours.

The TF1 references (InvRat, CAR, DMR) keep each direction's GRU as ``kernel`` [in, 3H],
``recurrent_kernel`` [H, 3H] and one ``bias`` [6H] (input half, then recurrent half), gate blocks in the order
(z, r, h); PyTorch's GRU keeps rows in the order (r, z, n). The parity tests transcribe the reference's step in
that layout and load the same numbers into our model through :func:`ours_from_keras`.
"""
from __future__ import annotations

import torch


def torch_gates(keras: torch.Tensor, hidden: int) -> torch.Tensor:
    """Keras's gate blocks (z, r, h) along the last dim -> PyTorch's rows (r, z, n)."""
    z, r, h = keras.split(hidden, dim=-1)
    return torch.cat([r, z, h], dim=-1).T if keras.dim() == 2 else torch.cat([r, z, h])


def ours_from_keras(weights: dict[str, torch.Tensor], *, encoders: dict[str, str], heads: dict[str, str],
                    embeddings: dict[str, str], hidden: int):
    """Our parameter name -> its value, and our name -> the Keras variable it is part of.

    ``encoders``: our recurrent backbone's module name -> the Keras GRU's name (its directions under
    ``<name>/forward`` and ``<name>/backward``); ``heads``: our linear layer -> the Keras dense layer;
    ``embeddings``: our encoder -> the Keras embedding variable (its values are set by the test)."""
    ours, variable = {}, {}
    for encoder, keras in encoders.items():
        for layer, direction in (("forward_layers", "forward"), ("backward_layers", "backward")):
            prefix, name = f"{encoder}.{layer}.0.", f"{keras}/{direction}"
            bias = weights[f"{name}/bias"]
            for suffix, value, source in (
                    ("weight_ih_l0", torch_gates(weights[f"{name}/kernel"], hidden), "kernel"),
                    ("weight_hh_l0", torch_gates(weights[f"{name}/recurrent_kernel"], hidden), "recurrent_kernel"),
                    ("bias_ih_l0", torch_gates(bias[:3 * hidden], hidden), "bias"),
                    ("bias_hh_l0", torch_gates(bias[3 * hidden:], hidden), "bias")):
                ours[prefix + suffix], variable[prefix + suffix] = value, f"{name}/{source}"
        variable[f"{encoder}.embedding.weight"] = embeddings[encoder]
    for head, keras in heads.items():
        ours[f"{head}.weight"], variable[f"{head}.weight"] = weights[f"{keras}/kernel"].T, f"{keras}/kernel"
        ours[f"{head}.bias"], variable[f"{head}.bias"] = weights[f"{keras}/bias"], f"{keras}/bias"
    return ours, variable
