"""An adversary that reads the rationale and tries to tell which other aspects disagree with the label.

On a multi-aspect review corpus (BeerAdvocate rates five aspects together) the other aspects' ratings agree
with the target's most of the time, so their sentences predict the label too and a selector trained on the
label alone keeps them (Lei, Barzilay and Jaakkola, 2016, "Rationalizing Neural Predictions"). The files say
more than the label, though: every review carries all five ratings, so for every training review we know which
other aspects have the opposite polarity to the label (its *aspect environment*,
:func:`pyhighlights.data.disagreement.disagreement_pattern`). A rationale that holds only the target aspect's
words says nothing about that beyond the label; one that holds another aspect's sentences reveals whether that
aspect disagrees.

So an adversary (its own encoder over the rationale-masked input, max-pooled, then one linear layer with a logit
per other aspect for each class, read at the gold label) learns to predict the disagreement bits from the
rationale, and the selector is trained to defeat it: the rationale mask reaches the adversary through a gradient
reversal layer (Ganin and Lempitsky, 2015, "Unsupervised Domain Adaptation by Backpropagation"), so the one
loss term, binary cross-entropy over the bits, trains the adversary downhill and the selector uphill. The aim is
InvRat's (Chang, Zhang, Yu and Jaakkola, 2020, "Invariant Rationalization"): given the label, the rationale should
tell nothing of the review's environment; here the environments are read from the other aspects' ratings rather
than given. Ours, not a reference's: off (weight 0) unless a recipe or the command line turns it on.

A reversed gradient lets the selector defeat the adversary two ways: by dropping the words that give the bits
away, or by adding words that mislead it; and its mean over a document moves how many words are kept, which is the
sparsity term's business (a selector without a guide, such as FR's, grows its selection under it).
``reversal="centered"`` subtracts that mean over each document's real words, so the adversary moves which words
are kept and not how many; ``reversal="drop_only"`` passes only the part that lowers a word's keep.
"""
from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F
from torch import nn

from pyhighlights.components.losses import LossTerm, Role, WeightOnly
from pyhighlights.registry import Param, Real, registration_key


#: What a model with the adversary adds to its outputs, in training only.
ADVERSARY_OUTPUTS = frozenset({"adversary_logits", "disagreement"})
#: The loss slot of a model that offers the adversary (off until its weight is set above 0).
ADVERSARY_SLOT = {"aspect_adversary": registration_key("loss", "aspect_adversary")}


REVERSALS = ("both", "centered", "drop_only")


def check_reversal(reversal: str) -> str:
    if reversal not in REVERSALS:
        raise ValueError(f"aspect_adversary.reversal: expected one of {REVERSALS}, got {reversal!r}")
    return reversal


class _ReverseGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, reversal: str, word_mask: torch.Tensor | None) -> torch.Tensor:
        ctx.reversal = reversal
        ctx.save_for_backward(word_mask)
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad: torch.Tensor):
        reversed_grad = -grad
        if ctx.reversal == "drop_only":
            # a descent step moves x by minus its gradient: a positive gradient lowers x (drops the word)
            reversed_grad = reversed_grad.clamp(min=0)
        elif ctx.reversal == "centered":
            (real,) = ctx.saved_tensors
            real = real.to(grad.dtype)
            mean = (reversed_grad * real).sum(-1, keepdim=True) / real.sum(-1, keepdim=True).clamp(min=1)
            reversed_grad = (reversed_grad - mean) * real
        return reversed_grad, None, None


def reverse_gradient(x: torch.Tensor, reversal: str = "both", word_mask: torch.Tensor | None = None) -> torch.Tensor:
    """``x`` [B, W] unchanged forward; the gradient that flows back through it is negated, then with
    ``reversal="drop_only"`` its negative entries (those that would raise ``x``) are zeroed, with ``"centered"``
    its mean over each row's real words (``word_mask``) is subtracted there (and padding gets none)."""
    if check_reversal(reversal) == "centered" and word_mask is None:
        raise ValueError("reversal='centered' needs the word mask to centre over")
    return _ReverseGradient.apply(x, reversal, word_mask)


def disagreement_bits(environments: torch.Tensor, aspects: int) -> torch.Tensor:
    """[B] bit masks -> [B, aspects] 0/1 floats (bit j: the j-th other aspect disagrees); a mask with a bit at
    ``aspects`` or above is refused, naming it."""
    bad = (environments < 0) | (environments >= 1 << aspects)
    if bool(bad.any()):
        raise ValueError(f"aspect environment {int(environments[bad][0])} is not a bit mask over {aspects} other "
                         f"aspects; set the aspect_adversary term's aspects to the corpus's other aspects")
    return ((environments.unsqueeze(1) >> torch.arange(aspects, device=environments.device)) & 1).float()


class AspectAdversary(nn.Module):
    """Encoder over the rationale (its gradient reversed into the mask) -> max-pool -> per class one logit per
    other aspect; ``forward`` returns the gold class's [B, aspects] logits."""

    def __init__(self, encoder: nn.Module, num_classes: int, aspects: int, reversal: str = "both"):
        super().__init__()
        self.encoder = encoder
        self.aspects = aspects
        self.num_classes = num_classes
        self.reversal = check_reversal(reversal)
        self.head = nn.Linear(encoder.output_size, num_classes * aspects)

    def reverse(self, keep_words: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
        """The rationale mask as the adversary reads it: unchanged, its gradient reversed (see ``reversal``)."""
        return reverse_gradient(keep_words, self.reversal, word_mask)

    def forward(self, pooled: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        logits = self.head(pooled).view(-1, self.num_classes, self.aspects)
        return logits[torch.arange(logits.shape[0], device=logits.device), labels]


class AspectAdversaryConfig(WeightOnly):
    roles = ("adversary_logits", "disagreement")
    weight: float = Real(0.0, ge=0.0, description="0 = off: no adversary is built")
    adversary_logits: str = Role("adversary_logits", "the adversary's per-aspect logits at the gold label")
    disagreement: str = Role("disagreement", "the 0/1 disagreement of each other aspect with the label")
    aspects: int = Param(4, ge=1, le=16, description="other aspects of the corpus (Lei et al. Beer: five "
                                                     "ratings, so four besides the label's)")
    reversal: Literal["both", "centered", "drop_only"] = Param(
        "both", description="both: the reversed gradient reaches the selector as it is; centered: less its mean "
                            "over the document's real words (it moves which words are kept, not how many); "
                            "drop_only: only its part that lowers a word's keep")


class AspectAdversaryTerm(LossTerm):
    """Binary cross-entropy of the adversary's bits, the mean over reviews and aspects. The adversary descends
    it; the selector, through the reversed gradient, ascends it. Zero where the model computed no adversary
    (evaluation: the adversary only trains)."""

    roles = AspectAdversaryConfig.roles

    def __init__(self, *, weight: float = 0.0, aspects: int = 4, reversal: str = "both", **inputs: str):
        super().__init__(weight=weight, **inputs)
        self.aspects = aspects
        self.reversal = reversal

    def value(self, inputs):
        if "adversary_logits" not in inputs:
            return torch.zeros(())
        return F.binary_cross_entropy_with_logits(inputs["adversary_logits"], inputs["disagreement"])


def build_aspect_adversary(losses, make_backbone, num_classes: int) -> AspectAdversary | None:
    """The adversary of the model's aspect_adversary term, or None when it has none with a weight above 0 (so that
    a model without one draws the same initial weights as before the option existed)."""
    terms = [term for term in losses.terms.values() if isinstance(term, AspectAdversaryTerm) and term.weight > 0]
    if len(terms) > 1:
        raise ValueError("model.losses: at most one aspect_adversary term with a weight above 0")
    if not terms:
        return None
    return AspectAdversary(make_backbone(), num_classes, terms[0].aspects, terms[0].reversal)
