"""DMR's registered defaults against numbers of the reference's steps, on one padded batch, in float64.

How the constants below were produced. The reference, github.com/kochsnow/distribution-matching-rationality at
commit 95b40ec86f8f390ff3824b4e0afb1cccaae4d8bd, is TensorFlow 1.12 in eager mode (``tensorflow-gpu==1.12.0``,
``CuDNNGRU``), which cannot be installed on Python 3.11 (nor run on CPU: ``CuDNNGRU`` needs a GPU). So the
numbers come from a faithful plain-PyTorch transcription of its steps, written beside (not in) this repository:
``core/model.py``
``TargetRNN.call`` (two label-conditioned generators, each its own embedding table and ``Bidirectional(CuDNNGRU)``
over the padded tensor reading the embeddings joined with the masked label one-hot; a Dense(2) per word,
``independent_straight_through_sampling``, padding forced to "drop"; the discriminator reading the rationale-masked
embeddings, and the full text's, each joined with ``gen_idx`` at every position; max-pooling with -1e6 on
padding) and ``TeacherEncoder.call``; ``core/train_utils.py train_teacher`` (CE on the full text) and ``train``
(``path = dis_step_counter % 2``; the discriminator's gradient of 0.1 CE + 0.9 CE(softmax(teacher / 3)) +
0.01 CMD(pooled rationale, pooled text), the generator's of ``gen_nl_loss`` + 5 |rate - 0.08| + 10 continuity,
both taken before either step, then the generator's Adam and the discriminator's apply), ``core/distance.py``
``Distance.cmd`` (5 moments, ``moment_diff`` as written: ``sx * k``; ``l2diff``'s cast to float32 left out),
``core/metric.py``; ``scripts/run_beer_0.sh``'s weights and ``run.py``'s ``params_t`` 3; the four
``tf.train.AdamOptimizer`` (lr 1e-3; ``lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)``, ``var -= lr_t m / (sqrt(v) +
1e-8)``; our ``adam=tf``), cuDNN's GRU equations in Keras's weight layout (kernel [in, 3H], recurrent
kernel [H, 3H], gates z, r, h; bias [6H] = input then recurrent biases). Inputs: the four documents of
tests/reference_draws.py (labels one-hot) padded to 24 (``max_seq_length`` is 256 in the reference; 24 here, and
``model.pad_to=24`` on our side, to keep the test short -- the padded width still enters the GRUs' backward
direction and the continuity term's mean), vocabulary 20, embeddings 6, 4 GRU units per direction, every weight
``values(keras_name, keras_shape)`` (the four embedding tables ``values("embedding")``), the output biases of
the negative and the positive generator plus (0, 0.5) and (0, -1) so that each keeps some words but not all
(2-6 of each document). Torch 2 on CPU. Four steps on the same batch: two teacher steps (one pre-training epoch
of two batches; ``model.auxiliary_epochs=1``), then the game's first two batches, path 0 then path 1.
Recorded per step: every loss term, the gradient norm of each stepped variable, every variable's (sum, norm)
after the step.

Our model is built from the registered defaults; its weights are the same tensors in PyTorch's layout (gates r,
z, n; the 6H bias split into ``bias_ih`` and ``bias_hh``), so norms and sums compare directly.
"""
from __future__ import annotations

import math

import pytest
import torch
from reference_draws import EMB, HIDDEN, VOCAB, examples, values
from keras_layout import ours_from_keras
from reference_steps import StepRecorder
from torch.utils.data import DataLoader

from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import build
from pyhighlights.data.collate import BatchCollator
from pyhighlights.testing import quiet_cpu_trainer
from pyhighlights.training.run import resolve_specs

H = HIDDEN // 2
ENCODERS = {"generator_encoders.0": ("generator_neg", EMB + 2), "generator_encoders.1": ("generator_pos", EMB + 2),
            "predictor_encoder": ("discriminator", EMB + 2), "auxiliary_encoder": ("discriminator_teacher", EMB)}
EMBEDDINGS = {"generator_encoders.0": "gen_neg_embedding/embeddings",
              "generator_encoders.1": "gen_pos_embedding/embeddings",
              "predictor_encoder": "dis_embedding/embeddings", "auxiliary_encoder": "dis_teacher_embedding/embeddings"}
HEADS = {"generators.0.scorer": "generator_neg_fc", "generators.1.scorer": "generator_pos_fc",
         "predictor.net.1": "discriminator_fc", "auxiliary_predictor.net.1": "discriminator_teacher_fc"}
BIASES = {"generator_neg_fc/bias": (0.0, 0.5), "generator_pos_fc/bias": (0.0, -1.0)}


def keras_weights():
    shapes = {}
    for keras, inputs in ENCODERS.values():
        for direction in ("forward", "backward"):
            shapes[f"{keras}/{direction}/kernel"] = (inputs, 3 * H)
            shapes[f"{keras}/{direction}/recurrent_kernel"] = (H, 3 * H)
            shapes[f"{keras}/{direction}/bias"] = (6 * H,)
    for head in HEADS.values():
        shapes[f"{head}/kernel"], shapes[f"{head}/bias"] = (2 * H, 2), (2,)
    weights = {name: values(name, shape) for name, shape in shapes.items()}
    for name, shift in BIASES.items():
        weights[name] = weights[name] + torch.tensor(shift, dtype=torch.float64)
    return weights


def keras_to_ours(weights):
    """Our parameter name -> its value, and our name -> the Keras variable it is part of."""
    encoders = {encoder: keras for encoder, (keras, _) in ENCODERS.items()}
    return ours_from_keras(weights, encoders=encoders, heads=HEADS, embeddings=EMBEDDINGS, hidden=H)


def dmr_model(overrides=()):
    specs = resolve_specs(compose_config(["model=dmr", "embeddings.trainable=true", f"backbone.hidden_size={HIDDEN}",
                                          "model.pad_to=24", "model.auxiliary_epochs=1", *overrides]))
    factory = BackboneFactory(specs.backbone, embedding_matrix=values("embedding", (VOCAB, EMB)),
                              freeze_embeddings=not specs.embeddings["trainable"])
    model = build("model", specs.model, path="model", backbone_factory=factory, num_classes=2).double()
    ours, variable = keras_to_ours(keras_weights())
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name in ours:
                p.copy_(ours[name])
    return model, specs, variable


def train(model):
    """One pre-training epoch and one game epoch, each two copies of the batch."""
    recorder = StepRecorder()
    batch = BatchCollator(0, model.pad_to)(examples())
    loader = DataLoader([batch] * 2, batch_size=None, collate_fn=lambda b: b)
    quiet_cpu_trainer(2, callbacks=[recorder]).fit(model, train_dataloaders=loader)
    return recorder


def per_variable(ours: dict, variable: dict, kind: str):
    """Our per-parameter norms (or sums) combined into the Keras variables' (a Keras GRU bias is two of ours)."""
    combined: dict[str, float] = {}
    for name, value in ours.items():
        key = variable[name]
        combined[key] = combined.get(key, 0.0) + (value ** 2 if kind == "norm" else value)
    return {key: math.sqrt(v) if kind == "norm" else v for key, v in combined.items()}


# our logged term -> (the reference's loss, its weight in the reference's value)
GAME_TERMS = {"target_likelihood": ("class_loss", 1.0), "sparsity": ("sparsity_loss", 5.0),
              "continuity": ("continuity_loss", 10.0), "task": ("dis_hard_loss", 1.0),
              "distillation": ("dis_soft_loss", 1.0), "feature_match": ("dis_fm_loss", 1.0)}


def check_parameters(recorder, variable, step, want):
    sums = per_variable({n: s for n, (s, _) in recorder.params[step].items()}, variable, "sum")
    norms = per_variable({n: v for n, (_, v) in recorder.params[step].items()}, variable, "norm")
    assert set(sums) == set(want["parameters"])
    for name, (total, norm) in want["parameters"].items():
        assert abs(sums[name] - total) <= 1e-9, (step, name, sums[name], total)
        assert abs(norms[name] - norm) <= 1e-9, (step, name, norms[name], norm)


def test_dmr_equals_the_reference_steps_on_a_padded_batch():
    model, specs, variable = dmr_model()
    assert (specs.model["recurrence"], specs.model["bucket"], specs.model["adam"]) == ("padded", False, "tf")
    recorder = train(model)
    # optimiser steps: teacher, teacher, then per game batch the generator's and the discriminator's
    assert len(recorder.grads) == 6 and len(recorder.values) == 4
    optimiser_step = {0: [0], 1: [1], 2: [2, 3], 3: [4, 5]}
    for step, want in enumerate(REFERENCE):
        got = recorder.values[step]
        if want["step"] == "teacher":
            assert got["train/auxiliary_loss"] == pytest.approx(want["losses"]["dis_loss"], abs=1e-9), step
        else:
            for term, (reference, weight) in GAME_TERMS.items():
                assert got[f"train/loss/{term}"] * weight == pytest.approx(want["losses"][reference], abs=1e-9), \
                    (step, term)
        for index, (player, norms) in zip(optimiser_step[step], want["grad_norms"].items()):
            grads = per_variable({n: g for n, g in recorder.grads[index].items() if g is not None}, variable, "norm")
            assert set(grads) == set(norms), (step, player, set(grads) ^ set(norms))
            for name, norm in norms.items():
                assert grads[name] == pytest.approx(norm, abs=1e-9), (step, name)
        check_parameters(recorder, variable, step, want)


def test_torch_adam_is_another_step():
    """The check above can fail: torch's Adam (eps on sqrt(v-hat)) moves some variable otherwise on step 1."""
    model, _, variable = dmr_model(["model.adam=torch"])
    recorder = train(model)
    norms = per_variable({n: v for n, (_, v) in recorder.params[3].items()}, variable, "norm")
    assert max(abs(norms[name] - norm) for name, (_, norm) in REFERENCE[3]["parameters"].items()) > 1e-9


REFERENCE = [
    {
        "step": 'teacher',
        "losses": {'dis_loss': 0.9482979212333337},
        "grad_norms": {
            'dis_teacher': {'dis_teacher_embedding/embeddings': 0.21519559908116365, 'discriminator_teacher/forward/kernel': 0.2059466323637223, 'discriminator_teacher/forward/recurrent_kernel': 0.08754650008351965, 'discriminator_teacher/forward/bias': 0.19084890404119179, 'discriminator_teacher/backward/kernel': 0.3030015372185204, 'discriminator_teacher/backward/recurrent_kernel': 0.08398425157230384, 'discriminator_teacher/backward/bias': 0.22547691045913434, 'discriminator_teacher_fc/kernel': 0.4607086036297187, 'discriminator_teacher_fc/bias': 0.3428610444636571},
        },
        "parameters": {
            'gen_neg_embedding/embeddings': (-4.162436567069923, 5.855781148605367),
            'gen_pos_embedding/embeddings': (-4.162436567069923, 5.855781148605367),
            'dis_embedding/embeddings': (-4.162436567069923, 5.855781148605367),
            'dis_teacher_embedding/embeddings': (-4.17235627186201, 5.854993762401477),
            'generator_neg/forward/kernel': (6.164827912912142, 5.213016050862746),
            'generator_neg/forward/recurrent_kernel': (-3.879529160102883, 3.248021538995395),
            'generator_neg/forward/bias': (0.5613053012386711, 2.3801066933061215),
            'generator_neg/backward/kernel': (-3.615046697974802, 4.6683937458723666),
            'generator_neg/backward/recurrent_kernel': (-1.2163259684591756, 2.96799710622987),
            'generator_neg/backward/bias': (-0.4997483367171575, 2.3962861608671924),
            'generator_pos/forward/kernel': (11.246453305748302, 4.453092096777397),
            'generator_pos/forward/recurrent_kernel': (-5.451384081821265, 3.306494256647679),
            'generator_pos/forward/bias': (-2.153287554607451, 2.466160309359673),
            'generator_pos/backward/kernel': (-1.049250171547493, 4.359409264624121),
            'generator_pos/backward/recurrent_kernel': (-0.8006000163739186, 3.1946866537089864),
            'generator_pos/backward/bias': (-0.8552875009602569, 2.879615183544513),
            'discriminator/forward/kernel': (0.1823856904761465, 4.127044332000337),
            'discriminator/forward/recurrent_kernel': (-1.0669995099573129, 3.3854475078862323),
            'discriminator/forward/bias': (-2.0885030445943285, 2.041916485432379),
            'discriminator/backward/kernel': (-7.404836477832289, 5.330165588525847),
            'discriminator/backward/recurrent_kernel': (1.2463196845629776, 3.4314742601586268),
            'discriminator/backward/bias': (1.442544343936563, 2.5524063979094924),
            'discriminator_teacher/forward/kernel': (-9.872905974071966, 3.980299217579195),
            'discriminator_teacher/forward/recurrent_kernel': (4.784388245823875, 3.7534607162676665),
            'discriminator_teacher/forward/bias': (1.0054966675605534, 2.8828773903885283),
            'discriminator_teacher/backward/kernel': (0.41825866007332646, 4.518757999934808),
            'discriminator_teacher/backward/recurrent_kernel': (3.0248173734945807, 3.24594769844211),
            'discriminator_teacher/backward/bias': (-0.9885428067905448, 1.8932725009697853),
            'generator_neg_fc/kernel': (0.18468398495968136, 1.7407850772607287),
            'generator_neg_fc/bias': (-0.8516122643334405, 0.6250321452853498),
            'generator_pos_fc/kernel': (4.029469505769988, 1.8822362188258976),
            'generator_pos_fc/bias': (0.07587290360719685, 0.10735931119796159),
            'discriminator_fc/kernel': (-1.8600840079756367, 2.1214743614307516),
            'discriminator_fc/bias': (0.5199264525308405, 0.8266724925931748),
            'discriminator_teacher_fc/kernel': (0.9156303673062598, 1.9593935982829034),
            'discriminator_teacher_fc/bias': (0.023185031124273572, 0.19078965678432236),
        },
    },
    {
        "step": 'teacher',
        "losses": {'dis_loss': 0.9410821074741569},
        "grad_norms": {
            'dis_teacher': {'dis_teacher_embedding/embeddings': 0.21406661134161395, 'discriminator_teacher/forward/kernel': 0.20492109060136296, 'discriminator_teacher/forward/recurrent_kernel': 0.08660312384098408, 'discriminator_teacher/forward/bias': 0.1886283225221189, 'discriminator_teacher/backward/kernel': 0.3021266743217791, 'discriminator_teacher/backward/recurrent_kernel': 0.08285771714926748, 'discriminator_teacher/backward/bias': 0.22318219743108636, 'discriminator_teacher_fc/kernel': 0.45358278443437877, 'discriminator_teacher_fc/bias': 0.3389515746543518},
        },
        "parameters": {
            'gen_neg_embedding/embeddings': (-4.162436567069923, 5.855781148605367),
            'gen_pos_embedding/embeddings': (-4.162436567069923, 5.855781148605367),
            'dis_embedding/embeddings': (-4.162436567069923, 5.855781148605367),
            'dis_teacher_embedding/embeddings': (-4.182333774556158, 5.854231060977632),
            'generator_neg/forward/kernel': (6.164827912912142, 5.213016050862746),
            'generator_neg/forward/recurrent_kernel': (-3.879529160102883, 3.248021538995395),
            'generator_neg/forward/bias': (0.5613053012386711, 2.3801066933061215),
            'generator_neg/backward/kernel': (-3.615046697974802, 4.6683937458723666),
            'generator_neg/backward/recurrent_kernel': (-1.2163259684591756, 2.96799710622987),
            'generator_neg/backward/bias': (-0.4997483367171575, 2.3962861608671924),
            'generator_pos/forward/kernel': (11.246453305748302, 4.453092096777397),
            'generator_pos/forward/recurrent_kernel': (-5.451384081821265, 3.306494256647679),
            'generator_pos/forward/bias': (-2.153287554607451, 2.466160309359673),
            'generator_pos/backward/kernel': (-1.049250171547493, 4.359409264624121),
            'generator_pos/backward/recurrent_kernel': (-0.8006000163739186, 3.1946866537089864),
            'generator_pos/backward/bias': (-0.8552875009602569, 2.879615183544513),
            'discriminator/forward/kernel': (0.1823856904761465, 4.127044332000337),
            'discriminator/forward/recurrent_kernel': (-1.0669995099573129, 3.3854475078862323),
            'discriminator/forward/bias': (-2.0885030445943285, 2.041916485432379),
            'discriminator/backward/kernel': (-7.404836477832289, 5.330165588525847),
            'discriminator/backward/recurrent_kernel': (1.2463196845629776, 3.4314742601586268),
            'discriminator/backward/bias': (1.442544343936563, 2.5524063979094924),
            'discriminator_teacher/forward/kernel': (-9.87719940117025, 3.9790942786423193),
            'discriminator_teacher/forward/recurrent_kernel': (4.780396062438032, 3.7532782075189624),
            'discriminator_teacher/forward/bias': (1.0094939901157993, 2.8834419520593393),
            'discriminator_teacher/backward/kernel': (0.4143072661670666, 4.517895101501198),
            'discriminator_teacher/backward/recurrent_kernel': (3.0149105062209873, 3.2432045581111906),
            'discriminator_teacher/backward/bias': (-0.9885571732323193, 1.89279033873676),
            'generator_neg_fc/kernel': (0.18468398495968136, 1.7407850772607287),
            'generator_neg_fc/bias': (-0.8516122643334405, 0.6250321452853498),
            'generator_pos_fc/kernel': (4.029469505769988, 1.8822362188258976),
            'generator_pos_fc/bias': (0.07587290360719685, 0.10735931119796159),
            'discriminator_fc/kernel': (-1.8600840079756367, 2.1214743614307516),
            'discriminator_fc/bias': (0.5199264525308405, 0.8266724925931748),
            'discriminator_teacher_fc/kernel': (0.9156303673062598, 1.9574222735183429),
            'discriminator_teacher_fc/bias': (0.02318503112427356, 0.18938115857689025),
        },
    },
    {
        "step": 'gen_neg',
        "losses": {'dis_hard_loss': 0.8487477527414825, 'dis_soft_loss': 0.7845726341222179, 'dis_fm_loss': 0.22189098376285335, 'dis_loss': 0.7932090558217728, 'class_loss': -0.21512300906206644, 'sparsity_loss': 2.0193548387096776, 'continuity_loss': 1.4130434782608694, 'gen_loss': 3.217275307908481},
        "grad_norms": {
            'gen_neg': {'gen_neg_embedding/embeddings': 0.3740607023228345, 'generator_neg/forward/kernel': 0.5436035322398921, 'generator_neg/forward/recurrent_kernel': 0.09679850262386124, 'generator_neg/forward/bias': 0.6767728416146129, 'generator_neg/backward/kernel': 1.046039217814697, 'generator_neg/backward/recurrent_kernel': 0.33739079268020633, 'generator_neg/backward/bias': 1.5196368084257363, 'generator_neg_fc/kernel': 1.0772779881769152, 'generator_neg_fc/bias': 1.8898099857979724},
            'dis': {'dis_embedding/embeddings': 0.07784301790817014, 'discriminator/forward/kernel': 0.19064213213700695, 'discriminator/forward/recurrent_kernel': 0.02490316483214702, 'discriminator/forward/bias': 0.1832842955594823, 'discriminator/backward/kernel': 0.277866412728953, 'discriminator/backward/recurrent_kernel': 0.15625065666136076, 'discriminator/backward/bias': 0.28885195907524136, 'discriminator_fc/kernel': 0.4422539204176522, 'discriminator_fc/bias': 0.2936166369053463},
        },
        "parameters": {
            'gen_neg_embedding/embeddings': (-4.206436212759239, 5.85436540528047),
            'gen_pos_embedding/embeddings': (-4.162436567069923, 5.855781148605367),
            'dis_embedding/embeddings': (-4.194631377172343, 5.8542664073751665),
            'dis_teacher_embedding/embeddings': (-4.182333774556158, 5.854231060977632),
            'generator_neg/forward/kernel': (6.168409910308819, 5.212646486512085),
            'generator_neg/forward/recurrent_kernel': (-3.8875256087268966, 3.2485080435587266),
            'generator_neg/forward/bias': (0.5613052006542522, 2.3801156071711467),
            'generator_neg/backward/kernel': (-3.6170430112317, 4.667464154341252),
            'generator_neg/backward/recurrent_kernel': (-1.2183247006452884, 2.969692213978654),
            'generator_neg/backward/bias': (-0.49974737025629357, 2.3958998804121516),
            'generator_pos/forward/kernel': (11.246453305748302, 4.453092096777397),
            'generator_pos/forward/recurrent_kernel': (-5.451384081821265, 3.306494256647679),
            'generator_pos/forward/bias': (-2.153287554607451, 2.466160309359673),
            'generator_pos/backward/kernel': (-1.049250171547493, 4.359409264624121),
            'generator_pos/backward/recurrent_kernel': (-0.8006000163739186, 3.1946866537089864),
            'generator_pos/backward/bias': (-0.8552875009602569, 2.879615183544513),
            'discriminator/forward/kernel': (0.16094690568019265, 4.126137252931954),
            'discriminator/forward/recurrent_kernel': (-1.0670234318337375, 3.385055437304367),
            'discriminator/forward/bias': (-2.1044997266372696, 2.0430810200574134),
            'discriminator/backward/kernel': (-7.40273968103876, 5.328879269869641),
            'discriminator/backward/recurrent_kernel': (1.2463213381419385, 3.431485432600055),
            'discriminator/backward/bias': (1.4505425162656749, 2.553496704307675),
            'discriminator_teacher/forward/kernel': (-9.87719940117025, 3.9790942786423193),
            'discriminator_teacher/forward/recurrent_kernel': (4.780396062438032, 3.7532782075189624),
            'discriminator_teacher/forward/bias': (1.0094939901157993, 2.8834419520593393),
            'discriminator_teacher/backward/kernel': (0.4143072661670666, 4.517895101501198),
            'discriminator_teacher/backward/recurrent_kernel': (3.0149105062209873, 3.2432045581111906),
            'discriminator_teacher/backward/bias': (-0.9885571732323193, 1.89279033873676),
            'generator_neg_fc/kernel': (0.1846839849596813, 1.741491790323332),
            'generator_neg_fc/bias': (-0.8516122643334405, 0.6246547280070684),
            'generator_pos_fc/kernel': (4.029469505769988, 1.8822362188258976),
            'generator_pos_fc/bias': (0.07587290360719685, 0.10735931119796159),
            'discriminator_fc/kernel': (-1.8600840079756367, 2.122378442728208),
            'discriminator_fc/bias': (0.5199264525308405, 0.8254060708401384),
            'discriminator_teacher_fc/kernel': (0.9156303673062598, 1.9574222735183429),
            'discriminator_teacher_fc/bias': (0.02318503112427356, 0.18938115857689025),
        },
    },
    {
        "step": 'gen_pos',
        "losses": {'dis_hard_loss': 1.1630266227523962, 'dis_soft_loss': 0.9697904774648035, 'dis_fm_loss': 0.3997803833410862, 'dis_loss': 0.9931118958269737, 'class_loss': -0.8844083252230659, 'sparsity_loss': 0.8903225806451611, 'continuity_loss': 1.0869565217391304, 'gen_loss': 1.0928707771612256},
        "grad_norms": {
            'gen_pos': {'gen_pos_embedding/embeddings': 0.37901139326719174, 'generator_pos/forward/kernel': 0.17069611485368316, 'generator_pos/forward/recurrent_kernel': 0.05014340671693845, 'generator_pos/forward/bias': 0.21116709352512725, 'generator_pos/backward/kernel': 1.5002788413517227, 'generator_pos/backward/recurrent_kernel': 0.8173817350259817, 'generator_pos/backward/bias': 2.770793396227678, 'generator_pos_fc/kernel': 1.4163318715072784, 'generator_pos_fc/bias': 1.668860002336117},
            'dis': {'dis_embedding/embeddings': 0.1357842174513974, 'discriminator/forward/kernel': 0.33327439014261906, 'discriminator/forward/recurrent_kernel': 0.07239325113287502, 'discriminator/forward/bias': 0.3025900006081368, 'discriminator/backward/kernel': 0.605188852158816, 'discriminator/backward/recurrent_kernel': 0.23932875753997454, 'discriminator/backward/bias': 0.700993494098501, 'discriminator_fc/kernel': 0.5792600977719188, 'discriminator_fc/bias': 0.43437519973247074},
        },
        "parameters": {
            'gen_neg_embedding/embeddings': (-4.206436212759239, 5.85436540528047),
            'gen_pos_embedding/embeddings': (-4.172444644210596, 5.853953897003226),
            'dis_embedding/embeddings': (-4.214934039792751, 5.8534760534996835),
            'dis_teacher_embedding/embeddings': (-4.182333774556158, 5.854231060977632),
            'generator_neg/forward/kernel': (6.168409910308819, 5.212646486512085),
            'generator_neg/forward/recurrent_kernel': (-3.8875256087268966, 3.2485080435587266),
            'generator_neg/forward/bias': (0.5613052006542522, 2.3801156071711467),
            'generator_neg/backward/kernel': (-3.6170430112317, 4.667464154341252),
            'generator_neg/backward/recurrent_kernel': (-1.2183247006452884, 2.969692213978654),
            'generator_neg/backward/bias': (-0.49974737025629357, 2.3958998804121516),
            'generator_pos/forward/kernel': (11.238470001156534, 4.453560678794164),
            'generator_pos/forward/recurrent_kernel': (-5.451376315906353, 3.306346922416309),
            'generator_pos/forward/bias': (-2.1532883046099838, 2.466917783654808),
            'generator_pos/backward/kernel': (-1.0492425775897773, 4.360022748873063),
            'generator_pos/backward/recurrent_kernel': (-0.7986026743203658, 3.1963015509296415),
            'generator_pos/backward/bias': (-0.8532868542799259, 2.8801349685808617),
            'discriminator/forward/kernel': (0.14933501398843785, 4.124227547443423),
            'discriminator/forward/recurrent_kernel': (-1.070037337461418, 3.3838382009592274),
            'discriminator/forward/bias': (-2.1148801388130423, 2.0441358106808156),
            'discriminator/backward/kernel': (-7.397861671349571, 5.327176728691423),
            'discriminator/backward/recurrent_kernel': (1.2461380196092022, 3.431606428622412),
            'discriminator/backward/bias': (1.4533064006283154, 2.5537613595494695),
            'discriminator_teacher/forward/kernel': (-9.87719940117025, 3.9790942786423193),
            'discriminator_teacher/forward/recurrent_kernel': (4.780396062438032, 3.7532782075189624),
            'discriminator_teacher/forward/bias': (1.0094939901157993, 2.8834419520593393),
            'discriminator_teacher/backward/kernel': (0.4143072661670666, 4.517895101501198),
            'discriminator_teacher/backward/recurrent_kernel': (3.0149105062209873, 3.2432045581111906),
            'discriminator_teacher/backward/bias': (-0.9885571732323193, 1.89279033873676),
            'generator_neg_fc/kernel': (0.1846839849596813, 1.741491790323332),
            'generator_neg_fc/bias': (-0.8516122643334405, 0.6246547280070684),
            'generator_pos_fc/kernel': (4.029469505769987, 1.8814219329021118),
            'generator_pos_fc/bias': (0.07587290360719687, 0.10613669595573659),
            'discriminator_fc/kernel': (-1.8600840079756369, 2.122086230997335),
            'discriminator_fc/bias': (0.5199264525308405, 0.8241506156292931),
            'discriminator_teacher_fc/kernel': (0.9156303673062598, 1.9574222735183429),
            'discriminator_teacher_fc/bias': (0.02318503112427356, 0.18938115857689025),
        },
    },
]
