"""Confounder dictionaries: the causal intervention of Inter-RAT (Yue et al., EMNLP 2023, "Interventional
Rationalization").

The paper reads a confounder C behind both the input and the rationale, and the rationale and the label, and
removes it by backdoor adjustment, P(Y | do(X)) = sum_c P(Y | X, c) P(c), approximated in one forward pass:
the model reads, beside its own states h, the expected confounder under the prior, each entry weighted by its
attention to h. A *confounder* part holds the dictionary of entries c_1..c_K and the prior P(c), and maps
states [..., H] to that representation [..., H]; the model joins it to the states it adjusts.

``class_embeddings`` is the reference's (github.com/yuelinan/Codes-of-Inter-RAT, commit
416f63ce570a40f054d9f214f6452505a23d0091, ``model.py`` ``InterRAT.forward``): one learned embedding per class
(``lab_embed_layer``, initialised N(0, 0.1^2)), attention ``softmax_k(h . key_k)`` and the representation
``sum_k P(c_k) attention_k c_k``, the prior not renormalising the attention. The keys are the entries
through a linear map (``label2label``) where the selector adjusts its word states, and the entries themselves
where the predictor adjusts its pooled rationale; ``projected_keys`` says which paths project. The prior is
0.05 / 0.95 (classes 0 / 1) on Beer (``dataset_type == 'beer'``) and 0.5 / 0.5 on the other corpora.
"""
from __future__ import annotations

from abc import abstractmethod
import torch
from torch import nn

from pyhighlights.registry import Configuration, Param, Real, kind

PATHS = ("selector", "predictor")


@kind("confounder", runtime=("input_size", "num_classes"))
class Confounder(nn.Module):
    """``forward(states [..., input_size], path) -> [..., input_size]``: the prior-weighted confounder
    representation the ``path`` ("selector": word states, "predictor": the pooled rationale) joins to its states."""

    @abstractmethod
    def forward(self, states: torch.Tensor, path: str) -> torch.Tensor:
        """The adjusted confounder representation, one per state vector."""


class ClassEmbeddingsConfig(Configuration):
    prior: list[float] | None = Param(
        [0.05, 0.95], description="P(c) per class; null = uniform (the reference: 0.05/0.95 on Beer, 0.5/0.5 else)")
    init_std: float = Real(0.1, gt=0.0, description="the entries' initial standard deviation (normal_(0, 0.1))")
    projected_keys: list[str] = Param(["selector"], description="paths whose attention keys are the entries "
                                                                 "through a linear map (reference: the selector's)")


class ClassEmbeddings(Confounder):
    """One learned entry per class; attention of each state over the entries, weighted by the prior."""

    def __init__(self, *, input_size: int, num_classes: int, prior: list[float] | None = None,
                 init_std: float = 0.1, projected_keys: list[str] = ("selector",)):
        super().__init__()
        if prior is None:
            prior = [1.0 / num_classes] * num_classes
        if len(prior) != num_classes or any(p < 0 for p in prior):
            raise ValueError(f"confounder.prior: expected {num_classes} probabilities >= 0 (one per class), "
                             f"got {list(prior)}")
        unknown = sorted(set(projected_keys) - set(PATHS))
        if unknown:
            raise ValueError(f"confounder.projected_keys: {unknown[0]!r} is not a path; paths: {', '.join(PATHS)}")
        self.projected_keys = frozenset(projected_keys)
        # kept as Python floats, made a tensor of the states' dtype at use: a float32 buffer would carry 0.05's
        # float32 rounding (a relative 1.5e-8) into a float64 model
        self.prior = tuple(float(p) for p in prior)
        self.entries = nn.Embedding(num_classes, input_size)
        nn.init.normal_(self.entries.weight, mean=0.0, std=init_std)
        self.projection = nn.Linear(input_size, input_size)

    def forward(self, states, path):
        if path not in PATHS:
            raise ValueError(f"confounder path: expected one of {PATHS}, got {path!r}")
        entries = self.entries.weight  # [K, H]
        keys = self.projection(entries) if path in self.projected_keys else entries
        attention = torch.softmax(states @ keys.transpose(0, 1), dim=-1)  # [..., K]
        prior = torch.as_tensor(self.prior, dtype=attention.dtype, device=attention.device)
        return (attention * prior) @ entries
