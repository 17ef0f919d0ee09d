"""The gradient methods computed with tdhook instead of captum.

tdhook (Poupart, 2025, "TDHook: A Lightweight Framework for
Interpretability") runs a method as a context around a TensorDict module.
The module here is the model's prediction as a function of its input
embeddings [B, T, E] (the same function captum differentiates, see
:class:`~pyhighlights.explain.forward.CaptumForward.embeddings`), with the
rest of the batch bound to it; tdhook's Integrated Gradients flattens its
interpolation steps into the batch, so the bound tensors are repeated to
match. The attributed scalar is the output of the class ŷ each document
was predicted as, as with captum's ``target``.
"""
from __future__ import annotations

import torch
from torch import nn

BACKENDS = ("captum", "tdhook")
#: methods tdhook computes here (perturbation methods stay on captum)
TDHOOK_METHODS = ("saliency", "input_x_gradient", "integrated_gradients")


class _BoundEmbeddingsForward(nn.Module):
    """``embeddings [N, T, E] -> outputs [N, C]`` with the batch's other tensors bound.

    N may be a multiple of the batch size B (IG steps flattened batch-major),
    so each bound tensor is repeated row by row to N rows.
    """

    def __init__(self, forward, arguments: tuple[torch.Tensor, ...]):
        super().__init__()
        self.forward_fn = forward.embeddings
        self.arguments = arguments

    def forward(self, embeddings: torch.Tensor) -> torch.Tensor:
        repeats = embeddings.shape[0] // self.arguments[0].shape[0]
        return self.forward_fn(embeddings, *(a.repeat_interleave(repeats, dim=0) for a in self.arguments))


def _target_output(outputs, extra):
    """The output of each document's target class, broadcast over any extra batch dims (IG steps)."""
    from tensordict import TensorDict

    out = outputs["output"]
    target = extra["target"]
    while target.dim() < out.dim() - 1:
        target = target.unsqueeze(-1)
    target = target.expand(out.shape[:-1])
    return TensorDict(score=out.gather(-1, target.unsqueeze(-1)).squeeze(-1), batch_size=outputs.batch_size)


def check_backend(backend: str, method: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend}: expected one of {', '.join(BACKENDS)}")
    if backend == "tdhook" and method not in TDHOOK_METHODS:
        raise ValueError(f"backend=tdhook: method={method} is not available; tdhook computes "
                         f"{', '.join(TDHOOK_METHODS)} (use backend=captum for the others)")


def tdhook_attributions(method: str, forward, embeddings: torch.Tensor, target: torch.Tensor,
                        arguments: tuple[torch.Tensor, ...], params: dict) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Token attributions [B, T, E] of ``method`` (and IG's convergence delta [B]) by tdhook."""
    try:
        from tdhook.attribution import IntegratedGradients, Saliency
    except ImportError as error:
        raise ImportError("backend=tdhook needs the tdhook package: pip install 'pyhighlights[explain]'") from error
    from tensordict import TensorDict

    target = torch.as_tensor(target, device=embeddings.device).reshape(-1)
    if target.numel() == 1:  # one class for every document, as captum accepts
        target = target.expand(embeddings.shape[0])
    if target.numel() != embeddings.shape[0]:
        raise ValueError(f"target: expected 1 or {embeddings.shape[0]} classes, got {target.numel()}")
    module = _BoundEmbeddingsForward(forward, arguments)
    data = {"embeddings": embeddings.detach(), "target": target}
    common = dict(init_attr_targets=_target_output, additional_init_keys=["target"])
    if method == "integrated_gradients":
        if params.get("internal_batch_size") is not None:
            raise ValueError("method.internal_batch_size: not supported by backend=tdhook (set it to null)")
        data[("baseline", "embeddings")] = torch.zeros_like(embeddings)
        attribution = IntegratedGradients(multiply_by_inputs=True, n_steps=params["n_steps"],
                                          method=params["integration"], compute_convergence_delta=True, **common)
    elif method == "saliency":
        attribution = Saliency(absolute=True, **common)
    elif method == "input_x_gradient":
        attribution = Saliency(multiply_by_inputs=True, **common)
    else:
        check_backend("tdhook", method)
    with torch.enable_grad(), attribution.prepare(module, in_keys=["embeddings"]) as hooked:
        result = hooked(TensorDict(data, batch_size=[embeddings.shape[0]]))
    delta = result["convergence_delta"] if method == "integrated_gradients" else None
    return result["attr", "embeddings"], delta
