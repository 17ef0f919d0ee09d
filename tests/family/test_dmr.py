"""DMR's parts by hand: the central moment discrepancy, the distillation cross-entropy, the generator's
likelihood, the discriminator's one-hot on padding, the factual rationale at evaluation, and the turns."""
from __future__ import annotations

import math

import pytest
import torch
from reference_draws import EMB, HIDDEN, VOCAB, examples, values
from torch.utils.data import DataLoader

from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.components.backbones.recurrent import RecurrentBackbone
from pyhighlights.components.distribution_matching import (CMDTerm, SoftCrossEntropyTerm,
                                                           central_moment_discrepancy)
from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import build
from pyhighlights.data.collate import BatchCollator
from pyhighlights.testing import quiet_cpu_trainer
from pyhighlights.training.run import resolve_specs

F64 = torch.float64


def test_cmd_as_the_reference_matches_only_the_means():
    x1 = torch.tensor([[1.0, 0.0], [3.0, 0.0]], dtype=F64)
    x2 = torch.tensor([[0.0, 0.0], [0.0, 4.0]], dtype=F64)
    # means (2, 0) and (0, 2): ||(2, -2)|| = 2 sqrt 2; mean(k (x - mean)) is 0 for every k
    assert float(central_moment_discrepancy(x1, x2)) == pytest.approx(2 * math.sqrt(2), abs=1e-12)
    # the central moments: x1 - mean = (+-1, 0), x2 - mean = (0, +-2); k = 2: (1, 0) vs (0, 4), k = 4: (1, 0) vs
    # (0, 16), the odd ones vanish
    powered = 2 * math.sqrt(2) + math.sqrt(1 + 16) + math.sqrt(1 + 256)
    assert float(central_moment_discrepancy(x1, x2, central="powered")) == pytest.approx(powered, abs=1e-12)
    assert float(central_moment_discrepancy(x1, x2, moments=2, central="powered")) == \
        pytest.approx(2 * math.sqrt(2) + math.sqrt(17), abs=1e-12)


def test_cmd_term_reads_both_sides_and_has_a_zero_gradient_at_a_zero_difference():
    term = CMDTerm(weight=1.0, p="rationale_features", q="text_features")
    x1 = torch.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=F64, requires_grad=True)
    x2 = torch.tensor([[0.0, 2.0], [2.0, 2.0]], dtype=F64, requires_grad=True)
    term({"rationale_features": x1, "text_features": x2}).backward()
    # d||m1 - m2|| / dx1 = (m1 - m2) / ||m1 - m2|| / B per row; m1 - m2 = (1, 1.5)
    unit = torch.tensor([1.0, 1.5], dtype=F64) / math.sqrt(1 + 2.25)
    assert torch.allclose(x1.grad, (unit / 2).expand(2, 2), atol=1e-12)
    assert torch.allclose(x2.grad, (-unit / 2).expand(2, 2), atol=1e-12)
    same = torch.ones(3, 2, dtype=F64, requires_grad=True)
    term({"rationale_features": same, "text_features": same.detach().clone()}).backward()
    assert torch.equal(same.grad, torch.zeros_like(same))  # the reference's sqrt gives NaN here


def test_soft_cross_entropy_softens_the_teacher_only():
    term = SoftCrossEntropyTerm(temperature=3.0, p="logits", q="teacher_logits")
    student = torch.tensor([[math.log(3.0), 0.0]], dtype=F64, requires_grad=True)  # p = (3/4, 1/4)
    teacher = torch.tensor([[3 * math.log(2.0), 0.0]], dtype=F64, requires_grad=True)  # softmax(q / 3) = (2/3, 1/3)
    value = term({"logits": student, "teacher_logits": teacher})
    assert float(value) == pytest.approx(-(2 / 3 * math.log(3 / 4) + 1 / 3 * math.log(1 / 4)), abs=1e-12)
    value.backward()
    assert teacher.grad is None  # the teacher is read detached
    assert torch.allclose(student.grad, torch.tensor([[3 / 4 - 2 / 3, 1 / 4 - 1 / 3]], dtype=F64), atol=1e-12)


def test_the_discriminators_one_hot_reaches_the_padding():
    """With extra_on_padding the padded positions read the one-hot too: the backward direction, which starts at
    the end of the padding, then differs from the masked one, and equals an nn.GRU over the explicit input."""
    torch.manual_seed(0)
    matrix = torch.randn(10, 3, dtype=F64)
    kw = dict(embedding_matrix=matrix, hidden_size=4, dropout=0.0, recurrence="padded", extra_inputs=2)
    on, off = RecurrentBackbone(**kw, extra_on_padding=True).double(), RecurrentBackbone(**kw).double()
    off.load_state_dict(on.state_dict())
    ids = torch.tensor([[3, 4, 0, 0]])
    real = torch.tensor([[1, 1, 0, 0]])
    hot = torch.tensor([0.0, 1.0], dtype=F64).expand(1, 4, 2)
    explicit = torch.cat([matrix[ids] * real.unsqueeze(-1), hot], dim=-1)
    backward = on.backward_layers[0](torch.flip(explicit, [1]))[0].flip(1)
    states = on(ids, real, extra=hot)
    assert torch.allclose(states[..., 2:], backward, atol=1e-12)
    assert not torch.allclose(off(ids, real, extra=hot)[0, 0, 2:], states[0, 0, 2:], atol=1e-6)


def tiny_dmr(*overrides):
    specs = resolve_specs(compose_config(["model=dmr", f"backbone.hidden_size={HIDDEN}", "model.pad_to=14",
                                          "model.auxiliary_epochs=1", *overrides]))
    factory = BackboneFactory(specs.backbone, embedding_matrix=values("embedding", (VOCAB, EMB)),
                              freeze_embeddings=True)
    return build("model", specs.model, path="model", backbone_factory=factory, num_classes=2).double()


def decided(model):
    """Generator 0 keeps every word, generator 1 none (their keep logits +-100); the teacher says class 1."""
    with torch.no_grad():
        for c, shift in ((0, 100.0), (1, -100.0)):
            model.generators[c].scorer.weight.zero_()
            model.generators[c].scorer.bias.copy_(torch.tensor([0.0, shift]))
        model.auxiliary_predictor.net[1].weight.zero_()
        model.auxiliary_predictor.net[1].bias.copy_(torch.tensor([0.0, 5.0]))
    return model.eval()


def test_evaluation_explains_each_document_by_the_generator_of_its_label():
    batch = BatchCollator(0, 14)(examples())  # labels 1, 0, 1, 0
    with torch.no_grad():
        mask = decided(tiny_dmr())(batch)["mask"]
    assert mask.sum(1).tolist() == [0.0, 9.0, 0.0, 3.0]  # the label-0 documents (9 and 3 words): generator 0
    with torch.no_grad():
        mask = decided(tiny_dmr("model.evaluation_label=teacher"))(batch)["mask"]
    assert mask.sum().item() == 0.0  # the teacher says 1 for every document: generator 1 keeps nothing


def test_the_teacher_pretrains_then_the_generators_take_turns():
    """One pre-training epoch of 3 batches, then 3 game batches: generator 0, 1, 0 (the teacher's batches are not
    counted), the discriminator every game batch, the teacher never again."""
    model = tiny_dmr()
    batch = BatchCollator(0, model.pad_to)(examples())
    trainer = quiet_cpu_trainer(2)
    trainer.fit(model, train_dataloaders=DataLoader([batch] * 3, batch_size=None, collate_fn=lambda b: b))
    steps = {name: max(state["step"] for state in optimiser.state.values())
             for name, optimiser in zip(model._optimiser_names, trainer.optimizers)}
    assert int(model.game_steps) == 3
    assert steps == {"auxiliary": 3, "discriminator": 3, "generator0": 2, "generator1": 1}
