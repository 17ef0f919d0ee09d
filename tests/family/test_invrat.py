"""InvRat's parts by hand: the invariance penalty, the environments of a corpus, the environment heads, the
straight-through selector, Keras's Adam, the schedule of the three players, and what each step trains."""
from __future__ import annotations

import math

import pytest
import torch
from family_helpers import experiment, snapshot, same, trainer

from pyhighlights.components.environment_heads import (InputOneHotHead, InvarianceTerm, KerasAdam,
                                                       PooledOneHotHead, StraightThroughSelector)
from pyhighlights.data.batch import Document
from pyhighlights.data.collate import collate_environments
from pyhighlights.data.encoding import EncodedExample
from pyhighlights.data.environments import assign, partition


def ce(logits, label):
    return -logits[label] + math.log(sum(math.exp(v) for v in logits))


@pytest.mark.parametrize("penalty", ["relu", "identity"])
def test_invariance_is_the_agnostic_loss_minus_the_aware_one(penalty):
    agnostic = torch.tensor([[2.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    aware = torch.tensor([[0.0, 3.0], [1.0, -1.0]], dtype=torch.float64)
    labels = torch.tensor([1, 0])
    term = InvarianceTerm(penalty=penalty)
    # the aware predictor fits better here: CE(agnostic) - CE(aware) > 0, both penalties give it
    gap = (ce([2, 0], 1) + ce([0, 1], 0)) / 2 - (ce([0, 3], 1) + ce([1, -1], 0)) / 2
    assert gap > 0
    assert float(term({"logits": agnostic, "env_logits": aware, "labels": labels})) == pytest.approx(gap, abs=1e-12)
    # swapped, the gap is negative: ReLU makes it 0, the identity keeps it
    want = 0.0 if penalty == "relu" else -gap
    assert float(term({"logits": aware, "env_logits": agnostic, "labels": labels})) == pytest.approx(want, abs=1e-12)


def test_partition_cuts_each_class_into_equal_parts_the_last_taking_the_rest():
    labels = [1, 1, 1, 0, 0, 0, 0]
    environments = partition(labels, 2, __import__("numpy").random.default_rng(0))
    # class 1: floor(3 / 2) = 1 in environment 0, the other 2 in environment 1; class 0: 2 and 2
    assert sorted(e for e, y in zip(environments, labels) if y == 1) == [0, 1, 1]
    assert sorted(e for e, y in zip(environments, labels) if y == 0) == [0, 0, 1, 1]


def test_pollution_prepends_the_label_token_at_each_environments_rate():
    documents = [Document(f"d{i}", ["good", "beer"], label=i % 2, highlights=[1, 0], highlight_spans=[(0, 1)])
                 for i in range(8)]
    # environment 0 always agrees, environment 1 never: "," for positive, "." for negative (imdb.py)
    out = assign(documents, 2, [1.0, 0.0], seed=0)
    for d in out:
        agrees = d.environment == 0
        assert d.tokens[0] == ("," if (d.label == 1) == agrees else ".")
        assert d.tokens[1:] == ["good", "beer"] and d.highlights == [0, 1, 0] and d.highlight_spans == [(1, 2)]
    assert sorted(d.environment for d in out) == [0, 0, 0, 0, 1, 1, 1, 1]


def test_a_batch_is_all_with_environments_or_all_without():
    def example(i, env):
        return EncodedExample(torch.tensor([2]), torch.tensor([0]), torch.tensor([-1]), 0, i, environment=env)

    assert collate_environments([example(0, None), example(1, None)]) is None
    assert collate_environments([example(0, 1), example(1, 0)]).tolist() == [1, 0]
    with pytest.raises(ValueError, match="document 1 has no environment"):
        collate_environments([example(0, 1), example(1, None)])


def test_environment_heads_by_hand():
    environments = torch.tensor([1, 0])
    head = InputOneHotHead(input_size=3, num_classes=2, num_environments=2)
    features = head.word_features(environments, torch.ones(2, 4))
    assert features.shape == (2, 4, 2) and features[0, :, 1].tolist() == [1.0] * 4 and features[1, :, 0].sum() == 4
    pooled = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]])
    assert torch.allclose(head(pooled, environments), head.linear(pooled))
    joined = PooledOneHotHead(input_size=3, num_classes=2, num_environments=2)
    assert joined.word_features(environments, torch.ones(2, 4)) is None
    w, b = joined.linear.weight, joined.linear.bias
    # [pooled ; one-hot] @ W^T + b: environment e adds column 3 + e of W
    want = pooled @ w[:, :3].T + b + torch.stack([w[:, 4], w[:, 3]])
    assert torch.allclose(joined(pooled, environments), want)
    with pytest.raises(ValueError, match="environment 2 is outside 0..1"):
        head.word_features(torch.tensor([2, 0]), torch.ones(2, 4))


def test_straight_through_selector_is_the_argmax_with_the_softmax_gradient():
    selector = StraightThroughSelector(input_size=1).double()
    with torch.no_grad():
        selector.scorer.weight.copy_(torch.tensor([[0.0], [1.0]]))
        selector.scorer.bias.zero_()
    states = torch.tensor([[[0.5], [-2.0], [1.0]]], dtype=torch.float64)
    selection = selector(states, torch.tensor([[1, 1, 0]]))
    assert selection.mask.tolist() == [[1.0, 0.0, 0.0]]  # keep logit 0.5 > 0; -2 < 0; padding dropped
    selection.mask.sum().backward()
    # d mask_i / d x_i = sigma'(x_i) * w (keep - drop logit = x) on real words, 0 on padding
    sig = [1 / (1 + math.exp(-0.5)), 1 / (1 + math.exp(2.0))]
    assert selector.scorer.weight.grad[1, 0].item() == pytest.approx(sum(s * (1 - s) * x for s, x in
                                                                         zip(sig, (0.5, -2.0))), abs=1e-12)


def test_keras_adam_adds_its_epsilon_to_the_uncorrected_root():
    p = torch.nn.Parameter(torch.tensor([1.0, -1.0], dtype=torch.float64))
    optimiser = KerasAdam([p], lr=0.1)
    p.grad = torch.tensor([1e-5, 2.0], dtype=torch.float64)
    optimiser.step()
    # first step: p - lr g / (|g| + eps / sqrt(1 - b2)), eps 1e-7
    scaled = 1e-7 / math.sqrt(1 - 0.999)
    assert p.tolist() == pytest.approx([1.0 - 0.1 * 1e-5 / (1e-5 + scaled), -1.0 - 0.1 * 2.0 / (2.0 + scaled)],
                                       abs=1e-12)


def invrat_experiment(data_dir, *extra):
    return experiment(data_dir, "invrat", "dataset.environments=2", "model.pad_to=null", *extra)


def test_turns_follow_the_schedule(family_tiny_dir):
    model = invrat_experiment(family_tiny_dir).model()
    assert model.schedule == [1, 3, 3]  # the reference's path = step % 7
    for schedule, want in (([1, 3, 3], "GAAAWWWGAAAWWW"), ([1, 1, 1], "GAWGAWGAWGAWGA"), ([2, 0, 1], "GGWGGWGGWGGWGG")):
        model.schedule = schedule
        turns = ""
        for seen in range(14):
            model.batches_seen.fill_(seen)
            turns += {"generator": "G", "agnostic": "A", "aware": "W"}[model.turn()]
        assert turns == want, schedule


def test_each_step_trains_its_player_only(family_tiny_dir):
    exp = invrat_experiment(family_tiny_dir, "model.schedule=[1,1,1]")
    model = exp.model()
    parts = model.parts()
    changed = []

    class Watch(__import__("lightning.pytorch", fromlist=["Callback"]).Callback):
        def on_train_batch_start(self, trainer, module, batch, batch_idx):
            self.before = {name: snapshot(modules) for name, modules in parts.items()}

        def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
            changed.append(sorted(n for n, m in parts.items() if not same(self.before[n], snapshot(m))))

    trainer(1, limit_train_batches=3, callbacks=[Watch()]).fit(model, datamodule=exp.datamodule(0))
    assert changed == [["generator"], ["agnostic"], ["aware"]]
    assert int(model.batches_seen) == 3


def test_the_aware_predictor_reads_the_environment(family_tiny_dir):
    exp = invrat_experiment(family_tiny_dir)
    model = exp.model().eval()
    datamodule = exp.datamodule(0)
    datamodule.setup("fit")
    batch = next(iter(datamodule.val_dataloader()))
    with torch.no_grad():
        outputs = model(batch)
        flipped = model(type(batch)(**{**vars(batch), "environments": 1 - batch.environments}))
        raw = model(type(batch)(**{**vars(batch), "environments": None}))
    assert torch.equal(outputs["logits"], flipped["logits"])
    assert not torch.allclose(outputs["env_logits"], flipped["env_logits"])
    assert torch.equal(raw["env_logits"], raw["logits"])  # no environments at evaluation: the agnostic logits


def test_training_without_environments_is_refused(family_tiny_dir):
    exp = experiment(family_tiny_dir, "invrat", "model.pad_to=null")
    with pytest.raises(ValueError, match="needs each document's environment, and this corpus gives none"):
        trainer(1).fit(exp.model(), datamodule=exp.datamodule(0))


def test_extra_inputs_need_a_recurrent_backbone():
    from pyhighlights.models.extra_inputs import backbone_with_inputs

    with pytest.raises(ValueError, match="only a recurrent backbone"):
        backbone_with_inputs(lambda **kw: torch.nn.Identity(), 2, "only a recurrent backbone reads them")


def test_pollution_needs_one_rate_per_environment():
    from pyhighlights.config.resolve import ConfigError, validate

    assert validate("dataset", {"name": "synth_beer", "environments": 2, "pollution": [0.7, 0.9]}, "dataset")
    with pytest.raises(ConfigError, match="pollution needs one rate in \\[0, 1\\] per environment"):
        validate("dataset", {"name": "synth_beer", "environments": 2, "pollution": [0.7]}, "dataset")
