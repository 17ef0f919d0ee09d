"""The sparsity constraint's ``multiplier_rate=evaluated``: each training batch's rate as the evaluation selects it,
read by a gradient-free evaluation-mode pass of the selector path."""
import lightning.pytorch as pl
import pytest
import torch
from family_helpers import SHORT_PADDING, experiment, trainer

from pyhighlights.components.losses import LossSet, SparsityTerm

CONSTRAINT = ("model.losses.sparsity.mode=constraint", "model.losses.sparsity.multiplier_rate=evaluated",
              "model.losses.sparsity.multiplier_warmup_epochs=0")


ENCODER_DROPOUT = ("model.encoder_dropout=0.5", "model.selector.dropout=0")


def first_batch(exp, seed=0):
    datamodule = exp.datamodule(seed)
    datamodule.setup("fit")
    return next(iter(datamodule.train_dataloader()))


def test_the_term_records_the_given_rate_once_per_batch_by_hand():
    term = SparsityTerm(mode="constraint", target=0.15, multiplier_rate="evaluated", multiplier_lr=1.0,
                        multiplier_init=0.0, multiplier_decay=0.0, multiplier_warmup_epochs=0)
    losses = LossSet({"sparsity": term})
    mask = torch.zeros(1, 20, requires_grad=True)  # the sample keeps nothing: its rate is not what moves λ
    outputs = {"mask": mask, "word_mask": torch.ones(1, 20), "raw_mask": mask}
    with pytest.raises(ValueError, match="no evaluation-mode selection rate"):
        losses(outputs)
    term.give_evaluated_rate(torch.tensor(0.40))
    losses(outputs)
    losses(outputs)  # a second evaluation in the same batch (MGR's generators) records nothing more
    logged = losses.begin_step()
    # decay 0 and lr 1: λ = 0 + 1·(0.40 - 0.15)
    assert logged["sparsity_multiplier"] == pytest.approx(0.25)
    assert logged["sparsity_multiplier_rate"] == pytest.approx(0.40)


def test_the_rate_is_the_evaluation_modes_and_training_is_left_as_it_was(family_tiny_dir):
    # FR with dropout 0.5 on the encoder's embeddings and states (FR's own is 0) and none before the selector head:
    # the train-mode logits differ from the eval-mode ones through the encoder alone
    exp = experiment(family_tiny_dir, "fr", SHORT_PADDING, *ENCODER_DROPOUT, *CONSTRAINT)
    pl.seed_everything(0, verbose=False)
    model = exp.model().train()
    batch = first_batch(exp)
    state = torch.get_rng_state()
    rate = model.evaluated_selection_rate(batch)
    assert torch.equal(torch.get_rng_state(), state)  # no draw taken from the training's stream
    assert all(module.training for module in model.modules())
    # a second reading: the whole model in eval mode, the share of real words with p(keep) >= 0.5
    model.eval()
    with torch.no_grad():
        probability = model.select(batch).keep_probability
    words = batch.word_mask.float()
    assert float(rate) == pytest.approx(float(((probability >= 0.5).float() * words).sum() / words.sum()), abs=1e-7)
    model.train()
    with torch.no_grad():
        noisy = model.select(batch).keep_probability
    assert not torch.equal((noisy >= 0.5) & (words > 0), (probability >= 0.5) & (words > 0))


def test_training_moves_lambda_from_the_evaluated_rate(family_tiny_dir):
    # with encoder dropout the training batch's threshold rate is not the evaluated one: λ must follow the latter
    exp = experiment(family_tiny_dir, "fr", SHORT_PADDING, *ENCODER_DROPOUT, *CONSTRAINT)
    pl.seed_everything(0, verbose=False)
    model = exp.model()
    seen = []
    original = model.evaluated_selection_rate

    def spy(batch):
        # an independent reading of the same batch: the whole model in eval mode, outside the training's stream
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            model.eval()
            probability = model.select(batch).keep_probability
            model.train()
        words = batch.word_mask.float()
        seen.append(float(((probability >= 0.5).float() * words).sum() / words.sum()))
        return original(batch)

    model.evaluated_selection_rate = spy
    trainer(limit_train_batches=3).fit(model, datamodule=exp.datamodule(0))
    term = model.losses.terms["sparsity"]
    multiplier = term.multiplier
    assert len(seen) == 3
    # λ from 1e-5 by the additive rule over the first two batches' rates (the third is folded in at the next start)
    c, integral = 0.0, 1e-5
    for rate in seen[:2]:
        c = 0.5 * c + 0.5 * (rate - term.target)
        integral += 0.2 * c
    assert multiplier.integral == pytest.approx(integral, abs=1e-6)
