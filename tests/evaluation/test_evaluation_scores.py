"""ExplanationScores wires selection, scores and probabilities into the metrics correctly."""
from __future__ import annotations

import math

import pytest
import torch

from pyhighlights.data.batch import Batch
from pyhighlights.evaluation.scores import ExplanationScores
from pyhighlights.metrics import AOPC_FRACTIONS

WEIGHTS = torch.tensor([[2.0, -1.0, 0.5, 0.0], [1.0, 1.0, -3.0, 0.0]])


def prob_fn(keep):
    """A toy model: p(class 1) = sigmoid(Σ kept weights)."""
    p1 = torch.sigmoid((keep.double() * WEIGHTS.double()).sum(dim=1))
    return torch.stack([1 - p1, p1], dim=1)


def batch():
    word_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 0]])
    return Batch(input_ids=torch.zeros(2, 4, dtype=torch.long), attention_mask=word_mask, word_ids=torch.zeros(2, 4),
                 word_mask=word_mask, highlights=torch.tensor([[1, 0, 0, -1], [0, 1, 1, -1]]),
                 labels=torch.tensor([1, 0]), sample_ids=torch.arange(2))


def by_hand(selection, scores):
    """Comprehensiveness, sufficiency and AOPC with plain Python over the two documents."""
    comp, suff, aopc_c, aopc_s = [], [], [], []
    for d in range(2):
        n = 3

        def p(kept):
            value = 1 / (1 + math.exp(-sum(float(WEIGHTS[d, i]) for i in kept)))
            return [1 - value, value]

        full = p(range(n))
        y = 0 if full[0] > full[1] else 1
        r = [i for i in range(n) if selection[d][i]]
        comp.append(full[y] - p([i for i in range(n) if i not in r])[y])
        suff.append(full[y] - p(r)[y])
        order = sorted(range(n), key=lambda i: (-scores[d][i], i))
        cs, ss = [], []
        for f in AOPC_FRACTIONS:
            top = order[:math.ceil(f * n - 1e-9)]
            cs.append(full[y] - p([i for i in range(n) if i not in top])[y])
            ss.append(full[y] - p(top)[y])
        aopc_c.append(sum(cs) / len(cs))
        aopc_s.append(sum(ss) / len(ss))
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    return mean(comp), mean(suff), mean(aopc_c), mean(aopc_s)


def test_faithfulness_and_plausibility_by_hand():
    selection = [[1, 0, 0, 0], [0, 1, 1, 0]]
    scores = [[0.9, 0.1, 0.3, 5.0], [0.2, 0.8, 0.7, 5.0]]
    metrics = ExplanationScores(num_classes=2)
    logits = torch.tensor([[0.0, 1.0], [0.0, 1.0]])  # predicts 1, 1: accuracy 1/2
    metrics.update(batch(), torch.tensor(selection), torch.tensor(scores), logits, prob_fn)
    out = metrics.compute()
    comp, suff, aopc_c, aopc_s = by_hand(selection, scores)
    assert out["comprehensiveness"] == pytest.approx(comp)
    assert out["sufficiency"] == pytest.approx(suff)
    assert out["aopc_comprehensiveness"] == pytest.approx(aopc_c)
    assert out["aopc_sufficiency"] == pytest.approx(aopc_s)
    # the selection equals the human highlight: P = R = F1 = 1, one span matched per document
    assert out["highlight_f1"] == 1.0 and out["iou_f1"] == 1.0
    assert out["auprc"] == 1.0  # the scores rank the highlighted words first in both documents
    assert out["sparsity"] == pytest.approx(3 / 6)
    assert out["accuracy"] == 0.5
