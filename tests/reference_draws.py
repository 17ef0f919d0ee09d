"""The fixed inputs of the reference-number tests: one padded batch, weights and random draws.

The recorded constants of tests/models/test_grat_reference_numbers.py and
tests/family/test_fr_reference_numbers.py were produced by running the reference repositories' own training
loops with exactly these inputs: every weight is ``values(reference_name, shape)``, and the k-th dropout,
Gumbel and normal draw of a run reads the k-th uniform stream below, so two implementations that draw in the
same order with the same shapes see the same noise.
"""
from __future__ import annotations

import contextlib
import zlib

import torch
import torch.nn.functional as F

#: Four documents of 12, 9, 7 and 3 tokens (ids 2-17 of a 20-word vocabulary; 0 is padding).
IDS = [[3, 7, 2, 9, 4, 11, 5, 8, 13, 6, 10, 12], [4, 2, 15, 7, 3, 9, 14, 5, 6], [8, 3, 16, 2, 11, 4, 7], [5, 17, 9]]
LABELS = [1, 0, 1, 0]
VOCAB, EMB, HIDDEN = 20, 6, 8


def values(name: str, shape) -> torch.Tensor:
    """0.5 x standard normal, from a generator seeded by the CRC-32 of the (reference's) parameter name."""
    g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    return 0.5 * torch.randn(tuple(shape), generator=g, dtype=torch.float64)


def uniform(seed: int, shape) -> torch.Tensor:
    n = 1
    for s in shape:
        n *= s
    return torch.rand(n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).view(tuple(shape))


def examples():
    """The batch as encoded documents (word-level: one token per word)."""
    from pyhighlights.data.encoding import EncodedExample

    return [EncodedExample(input_ids=torch.tensor(ids), word_ids=torch.arange(len(ids)),
                           highlights=torch.full((len(ids),), -1), label=label, index=i)
            for i, (ids, label) in enumerate(zip(IDS, LABELS))]


@contextlib.contextmanager
def fixed_draws():
    """Replace dropout, the Gumbel-softmax sample and normal noise by fixed draws.

    The k-th dropout call (training, p > 0) keeps where u >= p (u from seed 1000 + k) and scales by 1/(1 - p);
    the k-th Gumbel-softmax adds -log(-log u) (seed 2000 + k) and is otherwise torch's; the k-th normal draw
    is sqrt(2)·erfinv(2u - 1) (seed 3000 + k), for ``torch.normal`` and ``torch.randn_like`` alike.
    """
    count = {"dropout": 0, "gumbel": 0, "normal": 0}
    saved = F.dropout, F.gumbel_softmax, torch.normal, torch.randn_like

    def dropout(x, p=0.5, training=True, inplace=False):
        if not training or p == 0:
            return x
        keep = (uniform(1000 + count["dropout"], x.shape) >= p).to(x.dtype)
        count["dropout"] += 1
        return x * keep / (1 - p)

    def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
        g = -torch.log(-torch.log(uniform(2000 + count["gumbel"], logits.shape))).to(logits.dtype)
        count["gumbel"] += 1
        soft = ((logits + g) / tau).softmax(dim)
        if not hard:
            return soft
        hard_ = torch.zeros_like(logits).scatter_(dim, soft.max(dim, keepdim=True)[1], 1.0)
        return hard_ - soft.detach() + soft

    def standard_normal(shape):
        u = uniform(3000 + count["normal"], shape)
        count["normal"] += 1
        return torch.erfinv(2 * u - 1) * (2 ** 0.5)

    def normal(mean, std, size, **kw):
        return (mean + std * standard_normal(size)).to(kw.get("dtype") or torch.float64)

    def randn_like(x, **kw):
        return standard_normal(x.shape).to(x.dtype)

    F.dropout, F.gumbel_softmax, torch.normal, torch.randn_like = dropout, gumbel_softmax, normal, randn_like
    try:
        yield count
    finally:
        F.dropout, F.gumbel_softmax, torch.normal, torch.randn_like = saved
