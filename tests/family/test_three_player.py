"""3PLAYER's mechanics against hand-computed values: the reward and its count penalties, the policy and its
loss, the baseline's window, and which player each step moves."""
from __future__ import annotations

import math

import pytest
import torch
from family_helpers import experiment, first_batch, snapshot, same, trainer
from reference_steps import small_model

from pyhighlights.components.complement_gap import ComplementGapTerm
from pyhighlights.components.policy import PolicyGradientTerm, PolicySelector, policy_log_probs
from pyhighlights.models.baselines.three_player import count_penalties, game_reward
from pyhighlights.models.phases import Step

WORDS = torch.tensor([[1.0, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1]])
MASK = torch.tensor([[1.0, 1, 0, 0, 1, 0], [0, 0, 0, 0, 1, 1]])
WEIGHTS = dict(margin=0.2, accuracy_weight=0.1, gap_weight=1.2, complement_weight=1.0, sparsity_weight=1.0,
               continuity_weight=1.0, count_tokens=2.0, count_pieces=1.0)


def test_count_penalties_by_hand():
    continuity, sparsity = count_penalties(MASK, WORDS, tokens=2.0, pieces=1.0)
    # document 1 (5 words, padded to 6): z 110010, shifted 100100 -> 3 changes: |3/5 - 2/5|; kept |3/5 - 2/5|
    # document 2 (6 words): z 000011, shifted 000111 (its last column repeated) -> 1 change: |1/6 - 2/6|; |2/6 - 2/6|
    assert continuity.tolist() == pytest.approx([0.2, 1 / 6])
    assert sparsity.tolist() == pytest.approx([0.2, 0.0])


def test_accuracy_reward_by_hand():
    logits = torch.tensor([[0.0, 2.0], [1.0, 0.0]])  # predicts 1, 0
    complement = torch.tensor([[3.0, 0.0], [2.0, 0.0]])  # predicts 0, 0
    labels = torch.tensor([1, 0])
    reward = game_reward(logits, complement, labels, MASK, WORDS, kind="accuracy", **WEIGHTS)
    # document 1: predictor right, complement wrong: 0.1 + 1.2 * (1 - 0) - 0.2 - 0.2
    # document 2: both right: 0.1 + 1.2 * (1 - 1) - 0 - 1/6
    assert reward.tolist() == pytest.approx([0.1 + 1.2 - 0.4, 0.1 - 1 / 6])


def test_hinge_reward_by_hand():
    logits = torch.tensor([[0.0, 0.0], [0.0, math.log(3.0)]])
    complement = torch.tensor([[0.0, math.log(3.0)], [0.0, 0.0]])
    labels = torch.tensor([1, 1])
    reward = game_reward(logits, complement, labels, MASK, WORDS, kind="hinge", **WEIGHTS)
    # document 1: CE = ln 2, CE_c = -ln(3/4); hinge max(0.2 - (CE_c - CE), 0); predicted class: a tie -> 0, wrong
    ce, ce_c = math.log(2.0), -math.log(0.75)
    first = -1.2 * max(0.2 - (ce_c - ce), 0.0) - 0.4
    # document 2: CE = -ln(3/4), CE_c = ln 2: the gap exceeds the margin, no hinge; predicted 1, right
    second = 0.1 - 1.2 * max(0.2 - (ce - ce_c), 0.0) - 1 / 6
    assert reward.tolist() == pytest.approx([first, second])


def test_policy_mixes_in_the_uniform_on_real_words_only():
    scores = torch.tensor([[[0.0, math.log(3.0)], [0.0, 5.0]]])  # p(keep) 3/4 on a word, padding after it
    log_p = policy_log_probs(scores, torch.tensor([[1.0, 0.0]]), exploration=0.2)
    p = log_p.exp()
    assert p[0, 0].tolist() == pytest.approx([0.8 * 0.25 + 0.1, 0.8 * 0.75 + 0.1])  # 0.3, 0.7
    assert p[0, 1].tolist() == pytest.approx([1.0, 0.0], abs=1e-12)  # padding: never kept, not mixed
    assert torch.isfinite(log_p).all()


def test_selector_samples_in_training_and_takes_the_mode_in_evaluation():
    selector = PolicySelector(input_size=2, exploration=0.0)
    with torch.no_grad():
        selector.scorer.weight.copy_(torch.tensor([[0.0, 0.0], [1.0, 0.0]]))
        selector.scorer.bias.zero_()
    states = torch.tensor([[[3.0, 0.0], [-3.0, 0.0], [3.0, 0.0]]])
    word_mask = torch.tensor([[1.0, 1.0, 0.0]])
    selector.eval()
    assert selector(states, word_mask).mask.tolist() == [[1.0, 0.0, 0.0]]  # p(keep) = sigmoid(+-3); padding 0
    selector.train()
    torch.manual_seed(0)
    draws = torch.stack([selector(states, word_mask).mask for _ in range(2000)])
    assert not draws.requires_grad
    assert draws[:, 0, 0].mean().item() == pytest.approx(torch.sigmoid(torch.tensor(3.0)).item(), abs=0.02)
    assert draws[:, 0, 1].mean().item() == pytest.approx(torch.sigmoid(torch.tensor(-3.0)).item(), abs=0.02)
    assert draws[:, 0, 2].sum().item() == 0.0


def test_policy_gradient_term_by_hand():
    log_p = torch.log(torch.tensor([[[0.3, 0.7], [0.6, 0.4], [1.0, 1e-30]]], requires_grad=True))
    outputs = {"selector_logits": log_p, "mask": torch.tensor([[1.0, 0.0, 0.0]]),
               "word_mask": torch.tensor([[1.0, 1.0, 0.0]]), "advantage": torch.tensor([0.5])}
    # -(log 0.7 + log 0.6) * 0.5; the padded word does not count
    assert PolicyGradientTerm()(outputs).item() == pytest.approx(-(math.log(0.7) + math.log(0.6)) * 0.5)
    two = {**outputs, "selector_logits": log_p.repeat(2, 1, 1), "mask": outputs["mask"].repeat(2, 1),
           "word_mask": outputs["word_mask"].repeat(2, 1), "advantage": torch.tensor([0.5, -1.0])}
    total = -(math.log(0.7) + math.log(0.6)) * (0.5 - 1.0)
    assert PolicyGradientTerm()(two).item() == pytest.approx(total)
    assert PolicyGradientTerm(reduction="mean")(two).item() == pytest.approx(total / 2)


def test_baseline_is_the_mean_of_the_last_window_batches_starting_from_zero():
    model, _ = small_model(["model=three_player", "model.baseline_window=2"], lambda n: n)
    assert float(model.baseline()) == 0.0  # the reference's deque starts with one 0
    model.remember_reward(torch.tensor([1.0, 1.0]))
    assert float(model.baseline()) == pytest.approx(0.5)  # [0, 1]
    model.remember_reward(torch.tensor([2.0, 4.0]))
    assert float(model.baseline()) == pytest.approx(2.0)  # [1, 3]: the 0 has left the window
    assert "reward_history" in model.state_dict() and "rewards_seen" in model.state_dict()


def fit_one_batch_moving_every_player(exp):
    """The model of ``exp`` after one training batch, each player's parameters asserted changed by it."""
    model = exp.model()
    parts = model.parts()
    before = {name: snapshot(modules) for name, modules in parts.items()}
    trainer(1).fit(model, datamodule=exp.datamodule(0))
    for name, modules in parts.items():
        assert not same(before[name], snapshot(modules)), name
    return model


def test_each_step_moves_its_own_player(family_tiny_dir):
    """One batch: three optimiser steps, each changing one player's parameters; the rewards enter the baseline."""
    model = fit_one_batch_moving_every_player(experiment(family_tiny_dir, "three_player"))
    assert int(model.rewards_seen) == 2 and float(model.reward_history[1]) != 0.0



def test_a_gumbel_generator_learns_from_the_reward_alone(family_tiny_dir):
    """selector=gumbel: its straight-through mask reaches the predictors as data (each step backpropagates into
    its own player only), and the generator still moves, through the policy-gradient term."""
    exp = experiment(family_tiny_dir, "three_player", "model/selector=gumbel")
    model = fit_one_batch_moving_every_player(exp)
    model.zero_grad(set_to_none=True)
    outputs = model.train()(first_batch(exp))
    outputs["logits"].sum().backward()
    assert all(p.grad is None for p in model.selector.parameters())


def test_complement_gap_by_hand():
    logits = torch.tensor([[0.0, 0.0], [0.0, math.log(3.0)]])
    complement = torch.tensor([[0.0, math.log(3.0)], [0.0, 0.0]])
    outputs = {"logits": logits, "complement_logits": complement, "labels": torch.tensor([1, 1])}
    # document 1: CE = ln 2, CE_c = -ln(3/4): max(0.2 - (CE_c - CE), 0) = 0.2 + ln 2 + ln 0.75;
    # document 2: CE = -ln(3/4), CE_c = ln 2: the gap exceeds the margin, 0
    value = ComplementGapTerm(margin=0.2).value(outputs)
    assert float(value) == pytest.approx((0.2 + math.log(2.0) + math.log(0.75)) / 2)


def test_the_pathwise_generator_step_moves_the_generator_only_through_both_predictors(family_tiny_dir):
    """three_player_pathwise: the generator step reads a fresh Gumbel sample through the frozen predictors;
    each of the three steps still changes its own player, and the gap term's gradient reaches the generator."""
    exp = experiment(family_tiny_dir, "three_player_pathwise")
    model = fit_one_batch_moving_every_player(exp)
    assert [p.name for p in model.phases()] == ["complement", "predictor", "selector"]
    assert model.phases()[2].frozen == ("complement", "predictor")
    model.zero_grad(set_to_none=True)
    step = Step(first_batch(exp), 0)
    model.train().phase_outputs(step)  # the shared forward the two predictor steps read
    _, share = model.losses.terms["gap"].weighted(model.pathwise_outputs(step))
    share.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.selector.parameters())


def test_the_pathwise_generator_needs_a_differentiable_mask(family_tiny_dir):
    exp = experiment(family_tiny_dir, "three_player_pathwise", "model/selector=policy")
    with pytest.raises(ValueError, match="selector=gumbel"):
        trainer(1).fit(exp.model(), datamodule=exp.datamodule(0))

INTROSPECTIVE = ["model.selector.label_embedding_size=3"]


def test_introspective_generator_starts_from_its_predicted_label():
    """The generator GRU's initial state is tanh(W [pooled states; embedding of the argmax label] + b)."""
    from pyhighlights.components.introspection import IntrospectiveSelector

    selector = IntrospectiveSelector(input_size=2, num_classes=2, label_embedding_size=1, hidden_size=2,
                                     exploration=0.0)
    with torch.no_grad():
        selector.classifier.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
        selector.classifier.bias.zero_()
        selector.label_embedding.weight.copy_(torch.tensor([[-2.0], [3.0]]))
        linear = selector.transformation[0]
        linear.weight.copy_(torch.tensor([[1.0, 1.0, 1.0]]))
        linear.bias.zero_()
    states = torch.tensor([[[1.0, 0.0], [0.0, 2.0], [9.0, 9.0]]])  # the third word is padding
    label_logits, h0 = selector.introspect(states, torch.tensor([[1.0, 1.0, 0.0]]))
    # pooled over the real words: (1, 2); class 1 wins; h0 = tanh(1 + 2 + 3), for both directions
    assert label_logits.tolist() == [[1.0, 2.0]]
    assert h0.shape == (2, 1, 1) and h0.flatten().tolist() == pytest.approx([math.tanh(6.0)] * 2)
    # the predicted label's embedding, not the gold one, conditions the generator: flip it, h0 follows
    with torch.no_grad():
        selector.classifier.bias.copy_(torch.tensor([5.0, 0.0]))
    _, h0 = selector.introspect(states, torch.tensor([[1.0, 1.0, 0.0]]))
    assert h0.flatten().tolist() == pytest.approx([math.tanh(1 + 2 - 2.0)] * 2)


def test_introspective_three_player_steps_its_classifier_with_its_own_optimiser(family_tiny_dir):
    exp = experiment(family_tiny_dir, "three_player_introspective", *INTROSPECTIVE)
    model = exp.model()
    assert list(model.optimisers()) == ["complement", "predictor", "selector", "introspection"]
    assert [p.name for p in model.phases()] == ["complement", "predictor", "selector", "introspection"]
    classifier = snapshot([model.selector.classifier])
    trainer(1).fit(model, datamodule=exp.datamodule(0))
    assert not same(classifier, snapshot([model.selector.classifier]))
    assert {"train/loss/consistency", "train/loss/introspection"} <= set(model.training_values)


def test_introspection_needs_the_introspective_selector(family_tiny_dir):
    with pytest.raises(ValueError, match="selector=introspective"):
        experiment(family_tiny_dir, "three_player_introspective", "model.selector.name=policy").model()


def test_the_generators_classifier_must_have_the_corpus_classes(family_tiny_dir):
    with pytest.raises(ValueError, match="model.selector.num_classes=2"):
        experiment(family_tiny_dir, "three_player_introspective", "model.selector.num_classes=3").model()
