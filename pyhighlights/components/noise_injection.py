"""Noise injection between a selector and the predictor that reads its rationale (Storek, Subbiah and
McKeown, ACL 2023, "Unsupervised Selective Rationalization with Noise Injection"; reference code
github.com/adamstorek/noise_injection, commit 334e8887, cited below by file).

While training, each selected token is replaced, with a probability that is high for the document's
uninformative tokens, by a token drawn from the training vocabulary, so that a predictor cannot learn to
read a label from where the selector put words or from words that carry no meaning on their own (the
paper's Sec. 3). Both probabilities come from TF-IDF over the training documents
(``data_preprocessing/*/generate_word_statistics.py``):

- idf(t) = log(N / df(t)), N training documents, df(t) the documents containing t;
- ``normalize(a) = (max a - a) / Σ (max a - a)``: a low score becomes a high probability;
- a document's replacement probability of position i (``get_document_replacement_probs``):
  p_i = min(1, noise_p · n · normalize(tf · idf)_i), tf(t) = count of t in the document / n, n its length
  (the ``noise_p`` scaling and the clipping at 1 are ``model/movies.py``'s ``MovieDatasetWithReplacementProbs``);
- the replacement token's distribution (``get_scored_vocab``): normalize(atf · idf) over the tokens seen in
  training, atf(t) = Σ over training documents of count of t / document length.

A selected token is replaced when its uniform draw u < p_i (the reference: ``rng.binomial(1, p)``), and its
replacement is the vocabulary's inverse CDF at a second uniform (``rng.choice(vocab, p=scores)``, which is
``cdf.searchsorted(u, side="right")`` on the normalised cumulative sum). Each document draws its uniforms
from its own generator (the caller gives one seed per document), over its real tokens only, so its noise
does not depend on its batch, its padding or the number of processes (numpy's stream is not reproduced: the
law is). Statistics are over the model's
token ids: words for a word-level encoder, as the reference's whitespace words; word pieces for a subword
encoder (the reference replaces whole words and re-tokenises, which a padded batch cannot do in place).
Two departures, each where the reference has no answer: a document whose scores are all equal has
probability 0 everywhere (the reference divides 0 by 0), and a token never seen in training has idf 0.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

import torch
from torch import nn

from pyhighlights.components.words import words_to_tokens


def normalize(scores: torch.Tensor) -> torch.Tensor:
    """(max s - s) / Σ (max s - s) (the reference's ``normalize``); all zeros when every score is equal."""
    flipped = scores.max() - scores
    total = flipped.sum()
    return flipped / total if total > 0 else torch.zeros_like(scores)


def token_statistics(documents: Iterable[Sequence[int]], vocab_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(idf [V], replacement distribution [V]) in float64 from the training documents' token ids."""
    document_frequency, average_tf = Counter(), Counter()
    count = 0
    for tokens in documents:
        tokens = list(tokens)
        if not tokens:
            continue
        count += 1
        document_frequency.update(set(tokens))
        for token, n in Counter(tokens).items():
            average_tf[token] += n / len(tokens)
    if count == 0:
        raise ValueError("noise injection: the training split has no tokens to compute TF-IDF statistics from")
    idf = torch.zeros(vocab_size, dtype=torch.float64)
    seen = torch.tensor(sorted(document_frequency), dtype=torch.long)
    if int(seen.max()) >= vocab_size:
        raise ValueError(f"noise injection: token id {int(seen.max())} is outside the vocabulary of {vocab_size}")
    idf[seen] = torch.tensor([math.log(count / document_frequency[t]) for t in seen.tolist()], dtype=torch.float64)
    scores = torch.tensor([average_tf[t] for t in seen.tolist()], dtype=torch.float64) * idf[seen]
    distribution = torch.zeros(vocab_size, dtype=torch.float64)
    distribution[seen] = normalize(scores)
    return idf, distribution


def replacement_probabilities(tokens: torch.Tensor, idf: torch.Tensor, noise_p: float) -> torch.Tensor:
    """p_i = min(1, noise_p · n · normalize(tf · idf)_i) for one document's token ids [n], float64."""
    _, inverse, counts = torch.unique(tokens, return_inverse=True, return_counts=True)
    n = tokens.numel()
    tf_idf = counts[inverse].to(torch.float64) / n * idf[tokens]
    return (normalize(tf_idf) * n * noise_p).clamp(max=1.0)


class NoiseInjection(nn.Module):
    """Replaces selected tokens by training-vocabulary tokens; fitted once on the training documents.

    The statistics are buffers, so a checkpoint carries them and every process of a run uses the same."""

    def __init__(self, vocab_size: int, noise_p: float):
        super().__init__()
        self.noise_p = noise_p
        self.register_buffer("idf", torch.zeros(vocab_size, dtype=torch.float64))
        self.register_buffer("distribution", torch.zeros(vocab_size, dtype=torch.float64))
        self.register_buffer("fitted", torch.zeros((), dtype=torch.bool))

    def fit(self, documents: Iterable[Sequence[int]]) -> None:
        idf, distribution = token_statistics(documents, self.idf.numel())
        self.idf.copy_(idf)
        self.distribution.copy_(distribution)
        self.fitted.fill_(True)

    def probabilities(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Replacement probabilities [B, T] of every real token of each document (0 on padding)."""
        out = torch.zeros(input_ids.shape, dtype=torch.float64, device=input_ids.device)
        for row in range(input_ids.shape[0]):
            real = attention_mask[row] > 0
            if bool(real.any()):
                out[row, real] = replacement_probabilities(input_ids[row, real], self.idf, self.noise_p)
        return out

    def replace(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, selected: torch.Tensor,
                replace_draws: torch.Tensor, token_draws: torch.Tensor) -> torch.Tensor:
        """``input_ids`` with each selected real token replaced where its uniform ``replace_draws`` < p, by the
        token at the vocabulary's inverse CDF of ``token_draws`` (both [B, T] in [0, 1))."""
        if not bool(self.fitted):
            raise RuntimeError("noise injection: fit() the statistics on the training documents before training")
        p = self.probabilities(input_ids, attention_mask)
        chosen = (selected > 0) & (attention_mask > 0) & (replace_draws.to(torch.float64) < p)
        cdf = self.distribution.cumsum(0)
        cdf = cdf / cdf[-1]
        drawn = torch.searchsorted(cdf, token_draws.to(torch.float64).contiguous(), right=True)
        drawn = drawn.clamp(max=cdf.numel() - 1)
        return torch.where(chosen, drawn, input_ids)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, word_ids: torch.Tensor,
                selected_words: torch.Tensor, seeds: list[int]) -> torch.Tensor:
        """Noisy ``input_ids`` for the tokens of the selected words ``selected_words`` [B, W] (0/1).

        Row b's draws come from its own generator seeded by ``seeds[b]``, so a document's noise does not
        depend on which documents share its batch or its process (one process and two agree)."""
        selected = words_to_tokens(selected_words.detach().to(torch.float32), word_ids) > 0.5
        draws = torch.ones((2, *input_ids.shape))  # padding: never replaced
        for row, (seed, length) in enumerate(zip(seeds, (attention_mask > 0).sum(dim=1).tolist())):
            # the document's real tokens are its first ``length``: draws that do not depend on the padded width
            generator = torch.Generator().manual_seed(seed)
            draws[:, row, :length] = torch.rand(2, length, generator=generator)
        draws = draws.to(input_ids.device)
        return self.replace(input_ids, attention_mask, selected, draws[0], draws[1])
