"""EVAL-X's encoding check catches a selector that encodes the label in where it selects, not an honest one.

One EVAL-X evaluator, trained on random masks over ``short_learnable_beer_dir`` (the code path of
``scripts/evaluate.py RUN evalx=train``), scores two scripted rationalisers over the test split:

- *encoding*: the selector keeps the first word of a negative review and the last word of a positive one
  (the words themselves, "review", ".", say nothing of the label), and its predictor, trained on those
  masks, reads only *which* position was kept;
- *honest*: the selector keeps the human-highlighted words, and its predictor is a bag of the kept words
  (trained on whole training reviews, which have no highlights).

Both predictors are right on (nearly) every test review; only the encoding one's accuracy vanishes when
the evaluator reads its rationales. Cost: about 6 CPU-s (the evaluator's five epochs), so the file stands apart from the fast tests.
"""
from __future__ import annotations

import pytest
import torch
from family_helpers import experiment
from torch import nn

from pyhighlights.evaluation.evalx import run_check, same_size_random_mask, train_evaluator
from pyhighlights.evaluation.restore import split_loader


def last_real_word(word_mask: torch.Tensor) -> torch.Tensor:
    return word_mask.sum(dim=1).long() - 1


class Scripted(nn.Module):
    """A rationaliser whose selector is a rule of the batch and whose predictor reads ``features(mask)``."""

    def __init__(self, select, features, size):
        super().__init__()
        self.select_rule, self.features, self.head = select, features, nn.Linear(size, 2)

    def forward(self, batch):
        mask = self.select_rule(batch)
        return {"mask": mask, "logits": self.head(self.features(batch, mask))}

    def fit(self, loader, epochs=3, select=None):
        """Train the predictor on the masks of ``select`` (default: its own selector's)."""
        select = select or self.select_rule
        optimiser = torch.optim.Adam(self.head.parameters(), lr=0.1)
        for _ in range(epochs):
            for batch in loader:
                logits = self.head(self.features(batch, select(batch)))
                loss = nn.functional.cross_entropy(logits, batch.labels)
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
        return self.eval()


def position_code(batch):
    """First word for label 0, last word for label 1."""
    mask = torch.zeros(batch.word_mask.shape)
    rows = torch.arange(batch.size)
    mask[rows, torch.where(batch.labels == 0, 0, last_real_word(batch.word_mask))] = 1.0
    return mask


def reads_position(batch, mask):
    rows = torch.arange(batch.size)
    return torch.stack([mask[:, 0], mask[rows, last_real_word(batch.word_mask)]], dim=1)


def human_highlights(batch):
    return (batch.highlights == 1).float() * batch.word_mask.float()


def bag_of_kept_words(vocabulary_size):
    def features(batch, mask):
        kept = torch.zeros(batch.size, vocabulary_size)
        words = batch.input_ids[:, :mask.shape[1]] * (mask > 0).long()  # token i is word i (a word encoder)
        kept.scatter_add_(1, words, (mask > 0).float())
        kept[:, 0] = 0.0  # the id dropped words were sent to
        return kept
    return features


@pytest.fixture(scope="module")
def checked(short_learnable_beer_dir, tmp_path_factory):
    exp = experiment(short_learnable_beer_dir, "rnp", "layout=packed", "backbone.hidden_size=32",
                     "embeddings.dim=32", "trainer.batch_size=32")
    # 5 epochs at lr 0.02 (seed 0: the evaluator's accuracy on the whole test reviews 0.85, on their
    # highlights 0.96; after 3 epochs 0.79 and 0.91)
    evaluator = train_evaluator(exp.specs.as_dict(), seed=0, epochs=5, keep_probability=0.5, lr=0.02,
                                path=tmp_path_factory.mktemp("evalx") / "seed0.ckpt")
    encoder = evaluator.text_encoder

    def loader(split):
        return split_loader(exp.corpus, split, encoder, 32, evaluator.pad_to)

    train, test = loader("train"), loader("test")
    encoding = Scripted(position_code, reads_position, 2).fit(train)
    honest = Scripted(human_highlights, bag_of_kept_words(len(encoder.vocabulary)), len(encoder.vocabulary))
    honest.fit(train, select=lambda batch: batch.word_mask.float())  # no highlights in training: every word
    with torch.no_grad():
        return {"encoding": run_check(encoding, test, evaluator, test),
                "honest": run_check(honest, test, evaluator, test)}


def test_the_encoding_selector_is_caught(checked):
    values = checked["encoding"]
    assert values["evalx_predictor_accuracy"] == 1.0  # its own predictor decodes the position
    assert values["evalx_accuracy"] < 0.7  # the kept word says nothing: near the majority class (0.58)
    assert values["evalx_encoding_gap"] > 0.3
    assert values["evalx_full_accuracy"] > 0.75  # the evaluator itself reads the text


def test_the_honest_selector_is_not(checked):
    values = checked["honest"]
    assert values["evalx_predictor_accuracy"] > 0.9
    assert values["evalx_accuracy"] > 0.85
    assert values["evalx_encoding_gap"] < 0.1


def test_the_random_rationale_of_the_same_size_keeps_the_count_not_the_choice():
    rationale = torch.tensor([[1, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]]).float()
    word_mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]).float()
    draws = torch.stack([same_size_random_mask(rationale, word_mask, torch.Generator().manual_seed(s))
                         for s in range(4000)])
    assert torch.equal(draws.sum(dim=2), torch.tensor([[2.0, 1.0]]).expand(4000, 2))  # the sizes kept
    assert draws[:, 0, 4:].sum() == 0  # never padding
    # uniform without replacement: each real word of row 0 with probability 2/4, of row 1 with 1/6
    assert draws[:, 0, :4].mean(dim=0).tolist() == pytest.approx([0.5] * 4, abs=0.03)
    assert draws[:, 1].mean(dim=0).tolist() == pytest.approx([1 / 6] * 6, abs=0.025)
