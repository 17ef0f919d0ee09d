"""The sparsity constraint's Lagrange multiplier: dual ascent on given selection rates, checked by hand and
against a second implementation; its share of the objective; no update from evaluation; one λ over processes."""
import math
import os
import random
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist
from forked_ranks import free_port, run_ranks

from pyhighlights.components.losses import LossSet, SparsityTerm
from pyhighlights.components.multiplier import RateMultiplier
from pyhighlights.components.selectors import GumbelSelector
from pyhighlights.models.base import SPPModel

WORDS = 20


def outputs_at(rate: float, requires_grad: bool = True) -> dict[str, torch.Tensor]:
    """One document of WORDS real words (and 4 padding positions) with round(rate * WORDS) selected."""
    kept = round(rate * WORDS)
    mask = torch.zeros(1, WORDS + 4)
    mask[0, :kept] = 1.0
    word_mask = torch.zeros(1, WORDS + 4)
    word_mask[0, :WORDS] = 1.0
    mask.requires_grad_(requires_grad)
    return {"mask": mask, "word_mask": word_mask, "raw_mask": mask}


def constraint(**settings) -> SparsityTerm:
    """No warm-up in epochs unless asked: these tests step the term by hand, outside a training loop."""
    return SparsityTerm(**{"mode": "constraint", "target": 0.15, "multiplier_rate": "sample",
                           "multiplier_warmup_epochs": 0, **settings})


def multipliers(term: SparsityTerm, rates) -> list[float]:
    """λ after each training batch at ``rates``: a batch evaluates the term, the next one's start updates λ."""
    losses, seen = LossSet({"sparsity": term}), []
    losses.begin_step()
    for rate in rates:
        losses(outputs_at(rate))
        seen.append(losses.begin_step()["sparsity_multiplier"])
    return seen


def test_additive_updates_by_hand():
    # target 0.15, decay 0.5, lr 0.1, λ from 0; rates 0.55, 0.35, 0.05:
    #   c = 0.40: average 0.5·0 + 0.5·0.40 = 0.20, λ = 0 + 0.1·0.20 = 0.020
    #   c = 0.20: average 0.5·0.20 + 0.5·0.20 = 0.20, λ = 0.020 + 0.020 = 0.040
    #   c = -0.10: average 0.5·0.20 - 0.5·0.10 = 0.05, λ = 0.040 + 0.005 = 0.045
    term = constraint(multiplier_lr=0.1, multiplier_init=0.0, multiplier_decay=0.5)
    assert multipliers(term, [0.55, 0.35, 0.05]) == pytest.approx([0.020, 0.040, 0.045], abs=1e-8)  # rates are float32
    # a selection below the target for long turns λ negative: selecting is then rewarded
    assert multipliers(term, [0.0] * 20)[-1] < 0


def test_the_threshold_rate_reads_the_selector_decision_without_its_dropout():
    torch.manual_seed(0)
    selector = GumbelSelector(input_size=3, dropout=0.5).train()
    with torch.no_grad():
        selector.scorer.weight.copy_(torch.tensor([[0.0, 0.0, 0.0], [1.0, -1.0, 0.5]]))
        selector.scorer.bias.zero_()
    states = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [2.0, 0.0, 0.0]]])
    selection = selector(states, torch.ones(1, 4))
    # keep logits of the states without dropout: 1, -1, 0.5, 2 (three of four kept at p >= 0.5), handed to the
    # loss terms as the model output decision_keep_logit
    batch = SimpleNamespace(word_mask=torch.ones(1, 4), labels=torch.zeros(1, dtype=torch.long))
    outputs = SPPModel.outputs(None, batch, selection, torch.zeros(1, 2))
    assert outputs["decision_keep_logit"].tolist() == [[1.0, -1.0, 0.5, 2.0]]
    assert not outputs["decision_keep_logit"].requires_grad
    assert outputs["keep_logit"].tolist() != [[1.0, -1.0, 0.5, 2.0]]  # the dropped-out logits the sample used
    term = constraint(multiplier_rate="threshold", multiplier_lr=1.0, multiplier_init=0.0, multiplier_decay=0.0)
    outputs = outputs_at(0.35)
    noisy = torch.full((1, WORDS + 4), -1.0)  # the dropped-out logits keep nothing ...
    decision = torch.full((1, WORDS + 4), -1.0)
    decision[0, :4] = 1.0  # ... the decision keeps 4 of 20 words: 0.20
    LossSet({"sparsity": term})({**outputs, "keep_logit": noisy, "decision_keep_logit": decision})
    assert LossSet({"sparsity": term}).begin_step()["sparsity_multiplier_rate"] == pytest.approx(0.20)
    # without dropout the selector gives no separate decision (its logits are the decision)
    assert GumbelSelector(input_size=3).train()(states, torch.ones(1, 4)).decision_logits is None


def test_the_proportional_gain_adds_kp_times_the_average_by_hand():
    # target 0.15, decay 0.5, lr 0.1, kp 2, integral from 0; rates 0.35, 0.05, 0.05:
    #   c = 0.20: average 0.10, integral 0 + 0.1·0.10 = 0.010, λ = 0.010 + 2·0.10 = 0.210
    #   c = -0.10: average 0.05 - 0.05 = 0, integral 0.010, λ = 0.010
    #   c = -0.10: average -0.05, integral 0.010 - 0.005 = 0.005, λ = 0.005 - 2·0.05 = -0.095
    term = constraint(multiplier_lr=0.1, multiplier_init=0.0, multiplier_decay=0.5, multiplier_kp=2.0)
    assert multipliers(term, [0.35, 0.05, 0.05]) == pytest.approx([0.210, 0.010, -0.095], abs=1e-7)
    # the loss uses that λ: weight·|c| + λ·c at the next batch's rate 0.55 (c = 0.40)
    total, _ = LossSet({"sparsity": term})(outputs_at(0.55))
    assert float(total.detach()) == pytest.approx(1.0 * 0.40 - 0.095 * 0.40, abs=1e-7)
    # a checkpoint holds the integral and the average: the restored term uses the same λ
    restored = constraint(multiplier_lr=0.1, multiplier_decay=0.5, multiplier_kp=2.0)
    restored.load_state_dict(term.state_dict())
    assert restored.multiplier.value == pytest.approx(-0.095, abs=1e-7)
    # clamped with the integral to the bound
    strong = constraint(multiplier_lr=0.1, multiplier_init=0.0, multiplier_decay=0.0, multiplier_kp=100.0,
                        multiplier_max=5.0)
    assert multipliers(strong, [0.55]) == pytest.approx([5.0])
    with pytest.raises(ValueError, match="proportional"):
        constraint(multiplier_kp=1.0, multiplier_update="multiplicative", multiplier_init=1.0)


def test_warmup_holds_lambda_and_drops_its_violations_by_hand():
    # warm-up 2, target 0.15, decay 0.5, lr 0.1, λ from 0.3; rates 0.0, 0.0, 0.55, 0.35:
    #   batches 1-2 (c = -0.15 each): dropped, λ stays 0.3 and the average 0
    #   c = 0.40: average 0.5·0 + 0.5·0.40 = 0.20, λ = 0.3 + 0.1·0.20 = 0.320
    #   c = 0.20: average 0.5·0.20 + 0.5·0.20 = 0.20, λ = 0.320 + 0.020 = 0.340
    term = constraint(multiplier_lr=0.1, multiplier_init=0.3, multiplier_decay=0.5, multiplier_warmup=2)
    assert multipliers(term, [0.0, 0.0, 0.55, 0.35]) == pytest.approx([0.3, 0.3, 0.320, 0.340], abs=1e-8)
    # a batch start with nothing recorded (no training step before it) does not count toward the warm-up
    held = constraint(multiplier_init=0.3, multiplier_warmup=1)
    losses = LossSet({"sparsity": held})
    losses.begin_step()
    losses.begin_step()
    losses(outputs_at(0.0))
    assert losses.begin_step()["sparsity_multiplier"] == pytest.approx(0.3)
    # the count survives a checkpoint: resumed after the warm-up, the next batch moves λ
    resumed = constraint(multiplier_lr=0.1, multiplier_init=0.3, multiplier_decay=0.0, multiplier_warmup=1)
    resumed.load_state_dict(held.state_dict())
    losses = LossSet({"sparsity": resumed})
    losses(outputs_at(0.55))
    assert losses.begin_step()["sparsity_multiplier"] == pytest.approx(0.3 + 0.1 * 0.40)
    with pytest.raises(ValueError, match="warmup"):
        constraint(multiplier_warmup=-1)


def test_warmup_in_epochs_counts_the_epoch_length_told_at_the_start_by_hand():
    # warm-up 1 batch + 2 epochs of 2 batches = 5 updates dropped; then target 0.15, decay 0, lr 0.1, λ from 0.3:
    #   c = 0.40: λ = 0.3 + 0.1·0.40 = 0.34
    term = constraint(multiplier_lr=0.1, multiplier_init=0.3, multiplier_decay=0.0, multiplier_warmup=1,
                      multiplier_warmup_epochs=2)
    losses = LossSet({"sparsity": term})
    losses.begin_fit(2)
    assert multipliers(term, [0.0] * 5 + [0.55]) == pytest.approx([0.3] * 5 + [0.34], abs=1e-8)
    # outside a training loop nobody told the epoch's length: the update says so instead of guessing
    untold = LossSet({"sparsity": constraint(multiplier_warmup_epochs=1)})
    untold(outputs_at(0.3))
    with pytest.raises(RuntimeError, match="epoch's length"):
        untold.begin_step()
    with pytest.raises(ValueError, match="warmup_epochs"):
        constraint(multiplier_warmup_epochs=-1)


def test_multiplicative_updates_by_hand():
    # the reference's rule, λ from 1: λ = exp(0.1·0.20), exp(0.1·0.20)·exp(0.1·0.20), ·exp(0.1·0.05)
    term = constraint(multiplier_update="multiplicative", multiplier_lr=0.1, multiplier_init=1.0,
                      multiplier_decay=0.5)
    assert multipliers(term, [0.55, 0.35, 0.05]) == pytest.approx(
        [math.exp(0.02), math.exp(0.04), math.exp(0.045)], rel=1e-8)
    # it stays positive: far below the target for long it only shrinks toward the reference's floor 1e-12
    assert 0 < multipliers(term, [0.0] * 2000)[-1] < 1e-10


def second_implementation(rates, *, target, lr, init, decay, bound, rule):
    """Bastings et al.'s dual ascent written out again: c <- αc + (1-α)(rate - s), then λ moves on c."""
    lam, average, seen = init, 0.0, []
    for rate in rates:
        average = decay * average + (1 - decay) * (rate - target)
        if rule == "additive":
            lam = max(-bound, min(bound, lam + lr * average))
        else:
            lam = max(1e-12, min(bound, lam * math.exp(lr * average)))
        seen.append(lam)
    return seen


@pytest.mark.parametrize("rule, init", [("additive", 1e-5), ("additive", -0.3), ("multiplicative", 1e-5)])
def test_many_updates_equal_a_second_implementation(rule, init):
    draw = random.Random(7)
    rates = [draw.randrange(WORDS + 1) / WORDS for _ in range(60)]
    settings = dict(target=0.2, lr=0.7, init=init, decay=0.8, bound=0.5, rule=rule)
    term = constraint(target=0.2, multiplier_update=rule, multiplier_lr=0.7, multiplier_init=init,
                      multiplier_decay=0.8, multiplier_max=0.5)
    expected = second_implementation(rates, **settings)
    assert multipliers(term, rates) == pytest.approx(expected, rel=1e-6, abs=1e-12)
    assert max(abs(v) for v in expected) == pytest.approx(0.5)  # the bound was reached and held


def test_the_objective_adds_lambda_times_the_violation_and_the_reported_value_is_the_distance():
    term = constraint(weight=7.0, multiplier_init=0.5)
    outputs = outputs_at(0.35)
    below = outputs_at(0.05)
    total, _ = LossSet({"sparsity": constraint(weight=0.0, multiplier_init=-0.3)})(below)
    total.backward()  # the pure Lagrangian (weight 0) below the target with λ < 0: selecting lowers the loss
    assert float(total.detach()) == pytest.approx(-0.3 * -0.10)
    assert torch.allclose(below["mask"].grad[0, :WORDS], torch.full((WORDS,), -0.3 / WORDS))
    total, parts = LossSet({"sparsity": term})(outputs, scales={"sparsity": 2.0})
    assert float(parts["sparsity"]) == pytest.approx(0.20)  # |0.35 - 0.15|, as in penalty mode
    # scale · (weight · |rate - s| + λ · (rate - s))
    assert float(total.detach()) == pytest.approx(2.0 * (7.0 * 0.20 + 0.5 * 0.20))
    total.backward()
    # d/dm of 2·(7·|Σ m / 20 - s| + λ·(Σ m / 20 - s)) above the target: 2·(7 + λ)/20 on every real word
    assert torch.allclose(outputs["mask"].grad[0, :WORDS], torch.full((WORDS,), 2.0 * (7.0 + 0.5) / WORDS))
    assert torch.all(outputs["mask"].grad[0, WORDS:] == 0)


def test_penalty_mode_is_unchanged():
    term = SparsityTerm(weight=3.0, target=0.15)
    total, parts = LossSet({"sparsity": term})(outputs_at(0.05))
    assert float(total) == pytest.approx(3.0 * 0.10) and float(parts["sparsity"]) == pytest.approx(0.10)
    assert term.state_dict() is None and LossSet({"sparsity": term}).begin_step() == {}


def test_evaluation_without_gradients_does_not_move_lambda_and_a_batch_counts_once():
    term = constraint(multiplier_lr=0.1, multiplier_init=0.0, multiplier_decay=0.0)
    losses = LossSet({"sparsity": term})
    with torch.no_grad():
        losses(outputs_at(0.95, requires_grad=False))
    assert losses.begin_step() == {"sparsity_multiplier": 0.0}
    # two evaluations in one batch (MGR's generators): their mean violation, (0.40 + 0.20) / 2, in one update
    losses(outputs_at(0.55))
    losses(outputs_at(0.35))
    logged = losses.begin_step()
    assert logged["sparsity_multiplier"] == pytest.approx(0.1 * 0.30)
    # the rate the update read is logged beside λ: the batch's mean, (0.55 + 0.35) / 2 (the sample's rate:
    # constraint() sets multiplier_rate=sample)
    assert logged["sparsity_multiplier_rate"] == pytest.approx(0.45)
    # with λ = 0.03 a training loss at rate 0.55 is 1·0.40 + 0.03·0.40; the evaluation's is the penalty alone
    # (a validation loss that moved with λ would rank checkpoints by how far λ pushes them)
    training, _ = losses(outputs_at(0.55))
    assert float(training.detach()) == pytest.approx(0.40 + 0.03 * 0.40, abs=1e-7)
    with torch.no_grad():
        evaluated, _ = losses(outputs_at(0.55, requires_grad=False))
    assert float(evaluated) == pytest.approx(0.40, abs=1e-7)


def test_the_threshold_rate_moves_lambda_and_the_sample_still_carries_the_gradient():
    term = constraint(multiplier_rate="threshold", multiplier_lr=1.0, multiplier_init=0.0, multiplier_decay=0.0)
    outputs = outputs_at(0.35)  # the sample keeps 7 of 20 words ...
    keep_logit = torch.full((1, WORDS + 4), -1.0)
    keep_logit[0, :2] = 0.5  # ... but only 2 have p(keep) >= 0.5: the threshold rate is 0.10
    keep_logit[0, WORDS:] = 3.0  # padding does not count
    total, _ = LossSet({"sparsity": term})({**outputs, "keep_logit": keep_logit})
    logged = LossSet({"sparsity": term}).begin_step()
    assert logged["sparsity_multiplier"] == pytest.approx(0.10 - 0.15)
    assert logged["sparsity_multiplier_rate"] == pytest.approx(0.10)  # the threshold rate, not the sample's 0.35
    total.backward()
    assert outputs["mask"].grad is not None
    with pytest.raises(ValueError, match="keep_logit"):
        LossSet({"sparsity": term})(outputs_at(0.35))


def test_state_round_trip_includes_violations_not_yet_folded_in():
    a = constraint(multiplier_lr=0.3, multiplier_decay=0.6)
    multipliers(a, [0.5, 0.1, 0.3])
    LossSet({"sparsity": a})(outputs_at(0.7))  # recorded, not yet folded in (a checkpoint at a batch's end)
    b = constraint(multiplier_lr=0.3, multiplier_decay=0.6)
    b.load_state_dict(a.state_dict())
    assert LossSet({"sparsity": b}).begin_step() == LossSet({"sparsity": a}).begin_step()
    with pytest.raises(ValueError, match="penalty mode"):
        SparsityTerm().load_state_dict(a.state_dict())
    with pytest.raises(ValueError, match="no state of loss term 'sparsity'"):
        LossSet({"sparsity": constraint()}).load_state_dict({})


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="initial multiplier must be > 0"):
        constraint(multiplier_update="multiplicative", multiplier_init=0.0)
    with pytest.raises(ValueError, match="expected penalty or constraint"):
        SparsityTerm(mode="lagrangian")


def worker(rank: int, port: int, out: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    multiplier = RateMultiplier(lr=0.1, init=0.0, decay=0.0, bound=5.0, update="additive")
    multiplier.record([0.40, 0.20][rank])  # each process saw its own batch
    multiplier.update()
    first = multiplier.value
    if rank == 0:
        multiplier.record(0.10)  # a step in which only one process evaluated the term
    multiplier.update()
    multiplier.record([0.30, 0.50][rank])  # pending when a checkpoint is written: saved as their mean
    saved = multiplier.state_dict(shared=True)
    multiplier.update()
    restored = RateMultiplier(lr=0.1, init=0.0, decay=0.0, bound=5.0, update="additive")
    restored.load_state_dict(saved)
    restored.update()  # a resumed process folds in the saved mean, as the uninterrupted one did
    torch.save([first, saved["multiplier"], multiplier.value, restored.value], f"{out}/rank{rank}.pt")
    dist.destroy_process_group()


def test_every_process_holds_the_same_multiplier(tmp_path):
    run_ranks(worker, (free_port(), str(tmp_path)))
    values = [torch.load(tmp_path / f"rank{r}.pt") for r in (0, 1)]
    # the mean violation (0.40 + 0.20) / 2 = 0.30 on both; then the one process's 0.10; then (0.30 + 0.50) / 2,
    # by the running process and by one restored from the checkpoint alike
    assert values[0] == values[1] == pytest.approx([0.03, 0.04, 0.08, 0.08])


@pytest.mark.parametrize("model, extra, trained", [("rnp", [], 4), ("grat", ["model.pretrain_epochs=1"], 3)])
def test_a_warmup_lasting_every_trained_epoch_is_refused(model, extra, trained):
    # G-RAT's guider-only epochs do not train the sparsity term, so they do not count
    from pyhighlights.config.compose import compose_config
    from pyhighlights.config.resolve import ConfigError
    from pyhighlights.training.run import resolve_specs
    from pyhighlights.training.warmup import check_warmup

    def check(warmup):
        s = resolve_specs(compose_config([f"model={model}", *extra, "trainer.max_epochs=4",
                                          "model.losses.sparsity.mode=constraint",
                                          f"model.losses.sparsity.multiplier_warmup_epochs={warmup}"]))
        check_warmup(s.model, s.trainer)

    check(trained - 1)
    check(0)
    with pytest.raises(ConfigError, match=rf"multiplier_warmup_epochs={trained} >= the {trained} epochs"):
        check(trained)
