"""A selector trained by policy gradient (REINFORCE), and the policy-gradient loss term.

The three-player game of Yu, Chang, Zhang and Jaakkola (EMNLP 2019, "Rethinking Cooperative Rationalization:
Introspective Extraction and Complement Control") rewards the generator with the predictors' *accuracies*,
which have no gradient; its generator is a policy over keep/drop per word, trained by REINFORCE
(github.com/Gorov/three_player_for_emnlp, commit d8cd74efeaf8c36304a9179690b384dbe88dbc6b,
``three_player_games/rationale_3players_sentence_classification_models.py``):

- the policy: the softmax of two scores per word, the keep score -1e6 on padding (``forward``:
  ``z_scores_[:, :, 1] + (1 - mask) * neg_inf``), mixed on the real words with the uniform distribution,
  ``(1 - exploration) * p + exploration / 2`` (``exploration_rate`` 0.05 in the Beer scripts);
- training draws keep ~ Bernoulli(p(keep)) per word (``_generate_rationales``: ``Categorical(z_prob).sample()``,
  without gradient); evaluation keeps the more probable choice (``torch.max(z_prob, dim=-1)``);
- the generator's loss is sum over documents and real words of -log p(z) * advantage (``get_loss``:
  ``torch.sum(neg_log_probs * advantages * mask)``), the advantage read without gradient.

The selection's ``logits`` are the log-probabilities of the mixed policy (so ``keep_probability`` is the
probability the sample was drawn with, and the policy-gradient term reads the log-probability of the sample from
them); its ``mask`` carries no gradient.
"""
from __future__ import annotations

from typing import Literal

import torch
from torch import nn

from pyhighlights.components.losses import LossTerm, Role, WeightOnly
from pyhighlights.components.multiplier import world_size
from pyhighlights.components.selectors import Selection, Selector
from pyhighlights.registry import Configuration, Param, Real

#: The reference's padding offset on the keep score.
NEG_INF = -1.0e6


def policy_log_probs(scores: torch.Tensor, word_mask: torch.Tensor, exploration: float) -> torch.Tensor:
    """[B, W, 2] log-probabilities of (drop, keep): softmax of ``scores`` (keep -1e6 on padding), mixed with the
    uniform distribution by ``exploration`` on the real words only."""
    real = word_mask.to(scores.dtype)
    keep_score = scores[..., 1] + (1.0 - real) * NEG_INF
    probs = torch.softmax(torch.stack([scores[..., 0], keep_score], dim=-1), dim=-1)
    real = real.unsqueeze(-1)
    mixed = real * ((1.0 - exploration) * probs + exploration / 2) + (1.0 - real) * probs
    # p(keep) is exactly 0 on padding; the clamp keeps its log finite (and its gradient, which no word reads, 0)
    return torch.log(mixed.clamp_min(torch.finfo(mixed.dtype).tiny))


def policy_mask(log_probs: torch.Tensor, training: bool) -> torch.Tensor:
    """A Bernoulli draw of keep per word (training) or the more probable choice (evaluation), no gradient."""
    log_probs = log_probs.detach()
    if training:
        return torch.bernoulli(log_probs[..., 1].exp())
    return (log_probs[..., 1] > log_probs[..., 0]).to(log_probs.dtype)  # a tie drops, as torch.max picks index 0


class PolicySelectorConfig(Configuration):
    exploration: float = Real(0.05, ge=0.0, lt=1.0, description="share of the uniform policy mixed in on real "
                                                                "words (reference: exploration_rate 0.05)")
    dropout: float = Real(0.0, ge=0.0, lt=1.0, description="dropout on the word states before the scorer")


class PolicySelector(Selector):
    """A linear layer over word states scoring (drop, keep); the mixed policy is sampled (training) or its mode
    taken (evaluation). The reference's ``Generator``: ``output_layer = nn.Linear(hidden_dim, 2)`` over its
    encoder's states (``models/generator.py``)."""

    def __init__(self, *, input_size: int, exploration: float = 0.05, dropout: float = 0.0):
        super().__init__()
        self.exploration = exploration
        self.dropout = nn.Dropout(dropout)
        self.scorer = nn.Linear(input_size, 2)

    def scores(self, word_states: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
        return self.scorer(self.dropout(word_states))

    def policy(self, scores: torch.Tensor, word_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(log-probabilities of the mixed policy, the mask drawn from it, zero on padding)."""
        log_probs = policy_log_probs(scores, word_mask, self.exploration)
        return log_probs, policy_mask(log_probs, self.training) * word_mask.to(log_probs.dtype)

    def forward(self, word_states, word_mask):
        log_probs, mask = self.policy(self.scores(word_states, word_mask), word_mask)
        return Selection(logits=log_probs, mask=mask)


def sample_log_prob(selector_logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """[B, W] log p(z) of the drawn choice per word under softmax(``selector_logits``) (the policy's own
    log-probabilities are left as they are; a Gumbel selector's logits are normalised)."""
    log_p = torch.log_softmax(selector_logits, dim=-1)
    mask = mask.detach()
    return mask * log_p[..., 1] + (1.0 - mask) * log_p[..., 0]


class PolicyGradientConfig(WeightOnly):
    roles = ("selector_logits", "mask", "word_mask", "advantage")
    selector_logits: str = Role("selector_logits", "the policy's [drop, keep] log-probabilities per word")
    mask: str = Role("mask", "the drawn selection")
    word_mask: str = Role("word_mask", "the real words")
    advantage: str = Role("advantage", "each document's reward minus the baseline [B]")
    reduction: Literal["sum", "mean"] = Param("sum", description="sum over documents and words (reference: "
                                                                 "torch.sum) or the mean over documents")


class PolicyGradientTerm(LossTerm):
    """REINFORCE: sum_b sum_i -log p(z_bi) * advantage_b over real words (``reduction=mean``: divided by the
    batch size). Its gradient raises the log-probability of samples whose reward beat the baseline. Under DDP
    the sum is the global batch's (see :meth:`value`)."""

    roles = PolicyGradientConfig.roles

    def __init__(self, *, weight: float = 1.0, reduction: str = "sum", **inputs: str):
        super().__init__(weight=weight, **inputs)
        if reduction not in ("sum", "mean"):
            raise ValueError(f"policy-gradient term: reduction must be sum or mean, got {reduction!r}")
        self.reduction = reduction

    def value(self, inputs):
        log_p = sample_log_prob(inputs["selector_logits"], inputs["mask"])
        per_word = -log_p * inputs["advantage"].detach().unsqueeze(-1) * inputs["word_mask"]
        total = per_word.sum()
        if self.reduction == "mean":
            return total / per_word.shape[0]
        # a sum over the global batch: DDP averages the processes' gradients, so each process's sum counts
        # world-size times (then the average is the gradient of the sum over every process's documents)
        return total * world_size()
