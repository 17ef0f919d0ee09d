"""NIR's noise step against numbers recorded from the reference's own code.

Recorded by running github.com/adamstorek/noise_injection at commit 334e8887 in a scratch directory (never
committed), numpy 1.26 / torch 2 on CPU: ``data_preprocessing/usr_movie_review/generate_word_statistics.py``
(``WordStatisticsGenerator``: ``get_idf``, ``get_scored_vocab``, ``get_document_replacement_probs``) on the four
word documents below given directly instead of ``train.jsonl``, with one shim: ``get_idf`` as written reads
``self.get_token_doc_counts.items()`` (the method, not its result, an AttributeError), so the shim calls it;
``model/movies.py`` ``MovieDatasetWithReplacementProbs(noise_p=0.3)`` for the scaled and clipped
probabilities; ``model/models.py`` ``RandomNoisyRationaleExtractor.extract_rationale`` with
``rng = np.random.default_rng(7)``, vocabulary and scores from ``get_scored_vocab``, on document 0's words
[1, 3, 4, 8] with replacement mask [1, 0, 1, 1], and the first three ``default_rng(7).random()`` draws (the
uniforms ``rng.choice`` reads). Words are the ids below (the reference's vocabulary comes out in id order
here, so its inverse CDF and ours walk the same order). The BERT parts play no role in this step.
"""
from __future__ import annotations

import torch

from pyhighlights.components.noise_injection import NoiseInjection, replacement_probabilities, token_statistics

# "the beer was dark amber with a thin head smell of malt nice" as ids 0..12
DOCS = [[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 9, 2, 10, 11, 0, 11], [6, 12, 1, 5, 6, 7, 8, 0], [0, 4, 1, 2, 12]]
IDF = [0.0, 0.28768207245178085, 0.28768207245178085, 1.3862943611198906, 0.6931471805599453,
       0.6931471805599453, 0.6931471805599453, 0.6931471805599453, 0.6931471805599453, 1.3862943611198906,
       1.3862943611198906, 1.3862943611198906, 0.6931471805599453]
VOCAB_SCORES = [0.14326831597209308, 0.0978874588734426, 0.09602928001135047, 0.08755285976072354,
                0.06526667727617573, 0.08407064374751294, 0.05273069962861758, 0.08407064374751294,
                0.08407064374751294, 0.07163415798604654, 0.07163415798604654, 0.0, 0.06178446126296513]
PROBS_NOISE_03 = [
    [0.5309773670144239, 0.42078960772475826, 0.42078960772475826, 0.0, 0.26548868350721194, 0.26548868350721194,
     0.26548868350721194, 0.26548868350721194, 0.26548868350721194],
    [0.5389810851076036, 0.2694905425538018, 0.4830567446771892, 0.2694905425538018, 0.0, 0.5389810851076036, 0.0],
    [0.0, 0.3164155392688909, 0.5015067643866545, 0.3164155392688909, 0.0, 0.3164155392688909, 0.3164155392688909,
     0.6328310785377818],
    [0.6912681309275553, 0.0, 0.4043659345362223, 0.4043659345362223, 0.0]]
UNIFORMS = [0.625095466604667, 0.8972138009695755, 0.7756856902451935]
EXTRACTED = [6, 3, 10, 8]  # document 0's words 1, 3, 4, 8 with the first, third and fourth replaced


def test_statistics_and_replacement_probabilities_equal_the_references():
    idf, distribution = token_statistics(DOCS, 13)
    assert torch.allclose(idf, torch.tensor(IDF, dtype=torch.float64), rtol=1e-12, atol=1e-15)
    assert torch.allclose(distribution, torch.tensor(VOCAB_SCORES, dtype=torch.float64), rtol=1e-12, atol=1e-15)
    for doc, expected in zip(DOCS, PROBS_NOISE_03):
        ours = replacement_probabilities(torch.tensor(doc), idf, 0.3)
        assert torch.allclose(ours, torch.tensor(expected, dtype=torch.float64), rtol=1e-12, atol=1e-15)


def test_replacement_draws_give_the_references_rationale():
    """Document 0, words 1, 3, 4, 8 selected; the reference's replacement mask [1, 0, 1, 1] as draws below p
    (0 < p at words 1, 4, 8) and above it (word 3), its three choice uniforms at the replaced words."""
    noise = NoiseInjection(13, noise_p=0.3)
    noise.fit(DOCS)
    doc = torch.tensor([DOCS[0]])
    selected = torch.zeros(1, 9, dtype=torch.bool)
    selected[0, [1, 3, 4, 8]] = True
    replace_draws = torch.ones(1, 9)
    replace_draws[0, [1, 4, 8]] = 0.0
    token_draws = torch.full((1, 9), 0.5)
    token_draws[0, [1, 4, 8]] = torch.tensor(UNIFORMS)
    out = noise.replace(doc, torch.ones(1, 9, dtype=torch.long), selected, replace_draws, token_draws)
    assert out[0, [1, 3, 4, 8]].tolist() == EXTRACTED
    assert out[0, [0, 2, 5, 6, 7]].tolist() == [0, 2, 5, 6, 7]  # unselected words are never replaced
