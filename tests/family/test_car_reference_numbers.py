"""CAR's registered defaults against numbers of the reference's step, on one padded batch, in float64.

How the constants below were produced. The reference, github.com/code-terminator/classwise_rationale at commit
9da3d7014f04a5645f4085efcb9151cbf7300919, is TensorFlow 1.12 in eager mode (``CuDNNGRU``, ``tf.train``
optimisers), which cannot be installed on Python 3.11 (nor run on CPU: ``CuDNNGRU`` needs a GPU). So the numbers
come from a faithful plain-PyTorch transcription of its training step, written beside (not in) this repository:
``core/model.py TargetRNN.call`` (three embedding tables from one pretrained matrix; per path the generator's
masked embeddings joined with the masked label one-hot, ``Bidirectional(CuDNNGRU)`` over the padded tensor with
cuDNN's GRU equations in Keras's weight layout -- kernel [in, 3H] and recurrent kernel [H, 3H] in gate order z,
r, h, bias [6H] = input then recurrent biases --, ``Dense(2)``, ``independent_straight_through_sampling``,
padding forced to [1, 0]; the discriminator's rationale-masked embeddings joined with ``gen_idx`` on every
position, its BiGRU, -1e6 on padding, max-pooling, ``Dense(2)``), ``core/metric.py get_sparsity_loss`` /
``get_continuity_loss``, ``core/train_utils.py gen_nl_loss`` and ``train`` (``path = dis_step % 2``; the
discriminator's CE gradient for its variables and the path's generator loss gradient for that generator's
variables, both at the batch's parameters; the generator's Adam steps, then the discriminator's) with
``run_beer.py``'s defaults (sparsity 0.2 x 1, continuity x 4, lr 1e-3), and three ``tf.train.AdamOptimizer``
as TF's ``ApplyAdam`` computes them (``lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)``, ``var -= lr_t m / (sqrt(v) +
1e-8)``, each optimiser counting its own steps; its sparse update of the embedding rows is the dense one, as
TF1's non-lazy Adam decays every row). Inputs: the four documents of tests/reference_draws.py (labels one-hot)
padded to 24 (``convert_single_text`` pads to ``max_seq_length``, 256 by default; 24 here, and
``model.pad_to=24`` on our side, to keep the test short -- the padded width still enters the GRUs' backward
direction, the generator one-hot on padding and the continuity term's mean), vocabulary 20, embeddings 6, 4 GRU
units per direction, every weight ``values(keras_name, keras_shape)`` (the embedding tables
``values("embedding")``), the negative generator's output bias plus (0, 0.5) and the positive one's plus
(0, -1) so that each keeps some words and drops others (15, 8, then 14 of the 31 words). Torch 2 on CPU.
Three batches on the same batch (paths 0, 1, 0: the second step of generator 0 is its Adam's t = 2).
Recorded per step: every loss term, the gradient norm of each stepped variable, every variable's (sum, norm)
after the step.

Our model is built from the registered defaults; its weights are the same tensors in PyTorch's layout (gates r,
z, n; the 6H bias split into ``bias_ih`` and ``bias_hh``), so norms and sums compare directly.
"""
from __future__ import annotations

import math

import pytest
import torch
from reference_draws import EMB, HIDDEN, VOCAB, values
from keras_layout import ours_from_keras
from reference_steps import StepRecorder, padded_batch
from torch.utils.data import DataLoader

from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import build
from pyhighlights.testing import quiet_cpu_trainer
from pyhighlights.training.run import resolve_specs

H = HIDDEN // 2
ENCODERS = {"generator_encoders.0": "generator_neg", "generator_encoders.1": "generator_pos",
            "predictor_encoder": "discriminator"}
EMBEDDINGS = {"generator_encoders.0": "gen_neg_embedding/embeddings",
              "generator_encoders.1": "gen_pos_embedding/embeddings", "predictor_encoder": "dis_embedding/embeddings"}
HEADS = {"generators.0.scorer": "generator_neg_fc", "generators.1.scorer": "generator_pos_fc",
         "predictor.net.1": "discriminator_fc"}
KEEP_BIAS = {"generator_neg_fc": 0.5, "generator_pos_fc": -1.0}


def keras_weights():
    shapes = {}
    for encoder in ENCODERS.values():
        for direction in ("forward", "backward"):
            shapes[f"{encoder}/{direction}/kernel"] = (EMB + 2, 3 * H)
            shapes[f"{encoder}/{direction}/recurrent_kernel"] = (H, 3 * H)
            shapes[f"{encoder}/{direction}/bias"] = (6 * H,)
    for head in HEADS.values():
        shapes[f"{head}/kernel"], shapes[f"{head}/bias"] = (2 * H, 2), (2,)
    weights = {name: values(name, shape) for name, shape in shapes.items()}
    for head, bias in KEEP_BIAS.items():
        weights[f"{head}/bias"] = weights[f"{head}/bias"] + torch.tensor([0.0, bias], dtype=torch.float64)
    return weights


def keras_to_ours(weights):
    """Our parameter name -> its value, and our name -> the Keras variable it is part of."""
    return ours_from_keras(weights, encoders=ENCODERS, heads=HEADS, embeddings=EMBEDDINGS, hidden=H)


def car_model(overrides=(), reference_weights=True):
    """Our model from the registered defaults (dims small), its weights the transcription's unless
    ``reference_weights`` is false (a setting whose shapes differ: torch's initialisation)."""
    specs = resolve_specs(compose_config(["model=car", "embeddings.trainable=true", f"backbone.hidden_size={HIDDEN}",
                                          "model.pad_to=24", *overrides]))
    factory = BackboneFactory(specs.backbone, embedding_matrix=values("embedding", (VOCAB, EMB)),
                              freeze_embeddings=not specs.embeddings["trainable"])
    model = build("model", specs.model, path="model", backbone_factory=factory, num_classes=2).double()
    ours, variable = keras_to_ours(keras_weights())
    if not reference_weights:
        return model, specs, None
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(ours[name]) if name in ours else None
    assert set(variable) == {name for name, _ in model.named_parameters()}
    return model, specs, variable


def train(model, steps):
    recorder = StepRecorder()
    loader = DataLoader([padded_batch(model)] * steps, batch_size=None, collate_fn=lambda b: b)
    quiet_cpu_trainer(1, callbacks=[recorder]).fit(model, train_dataloaders=loader)
    return recorder


def per_variable(ours: dict, variable: dict, kind: str):
    """Our per-parameter norms (or sums) combined into the Keras variables' (a Keras GRU bias is two of ours)."""
    combined: dict[str, float] = {}
    for name, value in ours.items():
        key = variable[name]
        combined[key] = combined.get(key, 0.0) + (value ** 2 if kind == "norm" else value)
    return {key: math.sqrt(v) if kind == "norm" else v for key, v in combined.items()}


# our term -> (the reference's loss, its weight in the reference's value)
TERMS = {"task": ("dis_loss", 1.0), "likelihood": ("class_loss", 1.0), "sparsity": ("sparsity_loss", 1.0),
         "continuity": ("continuity_loss", 4.0)}


def step_grads(recorder, step):
    """The gradient norms of a batch's two optimiser steps (the path's generator, then the discriminator)."""
    grads = {**recorder.grads[2 * step], **recorder.grads[2 * step + 1]}
    return {name: g for name, g in grads.items() if g is not None}


def check(recorder, variable, steps=None, tolerance=1e-9):
    for step, want in enumerate(REFERENCE[:steps]):
        got = recorder.values[step]
        for term, (reference, weight) in TERMS.items():
            assert got[f"train/loss/{term}"] * weight == pytest.approx(want["losses"][reference], abs=tolerance), \
                (step, term)
        grads = per_variable(step_grads(recorder, step), variable, "norm")
        assert set(grads) == set(want["grad_norms"]), (step, set(grads) ^ set(want["grad_norms"]))
        for name, norm in want["grad_norms"].items():
            assert grads[name] == pytest.approx(norm, abs=tolerance), (step, name)
        sums = per_variable({n: s for n, (s, _) in recorder.params[step].items()}, variable, "sum")
        norms = per_variable({n: v for n, (_, v) in recorder.params[step].items()}, variable, "norm")
        for name, (total, norm) in want["parameters"].items():
            assert abs(sums[name] - total) <= tolerance, (step, name, sums[name], total)
            assert abs(norms[name] - norm) <= tolerance, (step, name, norms[name], norm)


def test_car_equals_the_reference_step_on_a_padded_batch():
    model, specs, variable = car_model()
    assert (specs.model["recurrence"], specs.model["pad_to"], specs.model["bucket"]) == ("padded", 24, False)
    assert padded_batch(model).input_ids.shape[1] == 24
    recorder = train(model, steps=len(REFERENCE))
    assert len(recorder.grads) == 2 * len(REFERENCE)
    check(recorder, variable)


@pytest.mark.parametrize("override", ["model.adam=torch", "model.index_on_padding=false"])
def test_the_departures_are_other_steps(override):
    """The check above can fail: torch's Adam (eps on sqrt(v-hat)), or the generator one-hot kept off the padding,
    move some variable otherwise on the first step."""
    model, _, variable = car_model([override])
    recorder = train(model, steps=1)
    with pytest.raises(AssertionError):
        check(recorder, variable, steps=1)


REFERENCE = [
    {
        "path": 0,
        "losses": {'dis_loss': 0.8487477527414825, 'class_loss': -0.21512300906206644, 'sparsity_loss': 0.2838709677419355, 'continuity_loss': 0.5652173913043478, 'gen_loss': 0.6339653499842168},
        "grad_norms": {'generator_neg/forward/kernel': 0.12201645172128142, 'generator_neg/forward/recurrent_kernel': 0.022223338439343553, 'generator_neg/forward/bias': 0.15288362143988765, 'generator_neg/backward/kernel': 0.24244158580650627, 'generator_neg/backward/recurrent_kernel': 0.07865693304724906, 'generator_neg/backward/bias': 0.34731461585143475, 'generator_neg_fc/kernel': 0.24832285987082622, 'generator_neg_fc/bias': 0.43261394034262496, 'gen_neg_embedding/embeddings': 0.08769198668315101, 'discriminator/forward/kernel': 0.20587207070548572, 'discriminator/forward/recurrent_kernel': 0.022648252144866272, 'discriminator/forward/bias': 0.20396172071851432, 'discriminator/backward/kernel': 0.484905461214103, 'discriminator/backward/recurrent_kernel': 0.25824983087129655, 'discriminator/backward/bias': 0.43501178741329083, 'discriminator_fc/kernel': 0.5773570679651453, 'discriminator_fc/bias': 0.40287690419246286, 'dis_embedding/embeddings': 0.14553106782559322},
        "parameters": {
            'generator_neg/forward/kernel': (6.168859438801501, 5.212705667942275),
            'generator_neg/forward/recurrent_kernel': (-3.8875366195418417, 3.248506692872527),
            'generator_neg/forward/bias': (0.5613051687721873, 2.3801156512958026),
            'generator_neg/backward/kernel': (-3.6150583696008125, 4.667735369047752),
            'generator_neg/backward/recurrent_kernel': (-1.2183174816234215, 2.9696908973989027),
            'generator_neg/backward/bias': (-0.4917541849978492, 2.3958150992870384),
            'generator_pos/forward/kernel': (11.246453305748302, 4.453092096777397),
            'generator_pos/forward/recurrent_kernel': (-5.451384081821265, 3.306494256647679),
            'generator_pos/forward/bias': (-2.153287554607451, 2.466160309359673),
            'generator_pos/backward/kernel': (-1.049250171547493, 4.359409264624121),
            'generator_pos/backward/recurrent_kernel': (-0.8006000163739186, 3.1946866537089864),
            'generator_pos/backward/bias': (-0.8552875009602569, 2.879615183544513),
            'discriminator/forward/kernel': (0.17275117502102433, 4.129092361833895),
            'discriminator/forward/recurrent_kernel': (-1.0650198044518175, 3.3868661776839586),
            'discriminator/forward/bias': (-2.1040717350195224, 2.0429607837357993),
            'discriminator/backward/kernel': (-7.398836682649717, 5.330089786656907),
            'discriminator/backward/recurrent_kernel': (1.246320858368719, 3.431485535544747),
            'discriminator/backward/bias': (1.450544092157236, 2.553496965766996),
            'generator_neg_fc/kernel': (0.1846839849596813, 1.7400505939756623),
            'generator_neg_fc/bias': (-0.8516122643334405, 0.6246547283067232),
            'generator_pos_fc/kernel': (4.029469505769988, 1.8822362188258976),
            'generator_pos_fc/bias': (0.07587290360719685, 0.10735931119796159),
            'discriminator_fc/kernel': (-1.8600840079756367, 2.121580364372094),
            'discriminator_fc/bias': (0.5199264525308405, 0.8254060703171165),
            'gen_neg_embedding/embeddings': (-4.202419093322114, 5.854582212548179),
            'gen_pos_embedding/embeddings': (-4.162436567069923, 5.855781148605367),
            'dis_embedding/embeddings': (-4.1604369705352955, 5.855128407612402),
        },
    },
    {
        "path": 1,
        "losses": {'dis_loss': 1.1656895189901388, 'class_loss': -0.8849903219251208, 'sparsity_loss': 0.05806451612903224, 'continuity_loss': 0.43478260869565216, 'gen_loss': -0.3921431971004365},
        "grad_norms": {'generator_pos/forward/kernel': 0.03641629689855607, 'generator_pos/forward/recurrent_kernel': 0.009953388550239726, 'generator_pos/forward/bias': 0.04162378884817234, 'generator_pos/backward/kernel': 0.30087594227943076, 'generator_pos/backward/recurrent_kernel': 0.15778415964226308, 'generator_pos/backward/bias': 0.5325859300077899, 'generator_pos_fc/kernel': 0.27959506422210534, 'generator_pos_fc/bias': 0.3262782825669041, 'gen_pos_embedding/embeddings': 0.0725682263207557, 'discriminator/forward/kernel': 0.42734723170569494, 'discriminator/forward/recurrent_kernel': 0.08394027616663477, 'discriminator/forward/bias': 0.3233474857214935, 'discriminator/backward/kernel': 0.7715227197008026, 'discriminator/backward/recurrent_kernel': 0.287721847204901, 'discriminator/backward/bias': 0.8747673285073816, 'discriminator_fc/kernel': 0.7015951430749485, 'discriminator_fc/bias': 0.5444585346488897, 'dis_embedding/embeddings': 0.30012067976084345},
        "parameters": {
            'generator_neg/forward/kernel': (6.168859438801501, 5.212705667942275),
            'generator_neg/forward/recurrent_kernel': (-3.8875366195418417, 3.248506692872527),
            'generator_neg/forward/bias': (0.5613051687721873, 2.3801156512958026),
            'generator_neg/backward/kernel': (-3.6150583696008125, 4.667735369047752),
            'generator_neg/backward/recurrent_kernel': (-1.2183174816234215, 2.9696908973989027),
            'generator_neg/backward/bias': (-0.4917541849978492, 2.3958150992870384),
            'generator_pos/forward/kernel': (11.246455322877061, 4.453288159930065),
            'generator_pos/forward/recurrent_kernel': (-5.4495163796014054, 3.3063215592738904),
            'generator_pos/forward/bias': (-2.1532929132563976, 2.466917964653876),
            'generator_pos/backward/kernel': (-1.052549543494203, 4.359578625925511),
            'generator_pos/backward/recurrent_kernel': (-0.8006037131535346, 3.1965597118398454),
            'generator_pos/backward/bias': (-0.8492855860740692, 2.8802020180976586),
            'discriminator/forward/kernel': (0.16432008156393074, 4.128890733522091),
            'discriminator/forward/recurrent_kernel': (-1.0733017308445783, 3.3857351057730174),
            'discriminator/forward/bias': (-2.1135115501839787, 2.0436064863381023),
            'discriminator/backward/kernel': (-7.3915557553781435, 5.328748603376598),
            'discriminator/backward/recurrent_kernel': (1.2469988168150223, 3.4315964780705905),
            'discriminator/backward/bias': (1.454074028050248, 2.5538302995170143),
            'generator_neg_fc/kernel': (0.1846839849596813, 1.7400505939756623),
            'generator_neg_fc/bias': (-0.8516122643334405, 0.6246547283067232),
            'generator_pos_fc/kernel': (4.029469505769988, 1.8814219691670069),
            'generator_pos_fc/bias': (0.07587290360719685, 0.10613669730125802),
            'discriminator_fc/kernel': (-1.8600840079756364, 2.1212512044981886),
            'discriminator_fc/bias': (0.5199264525308404, 0.8241442767958995),
            'gen_neg_embedding/embeddings': (-4.202419093322114, 5.854582212548179),
            'gen_pos_embedding/embeddings': (-4.176425402826439, 5.854575629180725),
            'dis_embedding/embeddings': (-4.165948194280762, 5.854326860448338),
        },
    },
    {
        "path": 0,
        "losses": {'dis_loss': 0.8428088287888689, 'class_loss': -0.2275123417282247, 'sparsity_loss': 0.25161290322580643, 'continuity_loss': 0.6521739130434783, 'gen_loss': 0.67627447454106},
        "grad_norms": {'generator_neg/forward/kernel': 0.12220419308226783, 'generator_neg/forward/recurrent_kernel': 0.022255717749412797, 'generator_neg/forward/bias': 0.15269273850531773, 'generator_neg/backward/kernel': 0.2511732946257304, 'generator_neg/backward/recurrent_kernel': 0.07658878433117178, 'generator_neg/backward/bias': 0.34021167364454696, 'generator_neg_fc/kernel': 0.23450959841466, 'generator_neg_fc/bias': 0.42950096634750107, 'gen_neg_embedding/embeddings': 0.0897566196913841, 'discriminator/forward/kernel': 0.19936216132615547, 'discriminator/forward/recurrent_kernel': 0.02248311684884926, 'discriminator/forward/bias': 0.19589092678978706, 'discriminator/backward/kernel': 0.4760082929700808, 'discriminator/backward/recurrent_kernel': 0.24841118018709185, 'discriminator/backward/bias': 0.41829731437322415, 'discriminator_fc/kernel': 0.5520869853370375, 'discriminator_fc/bias': 0.38535574190722993, 'dis_embedding/embeddings': 0.1431437260250086},
        "parameters": {
            'generator_neg/forward/kernel': (6.172747621650238, 5.212410370766452),
            'generator_neg/forward/recurrent_kernel': (-3.8954274522172803, 3.249001198945349),
            'generator_neg/forward/bias': (0.5612739223707718, 2.380129932050826),
            'generator_neg/backward/kernel': (-3.616427380662035, 4.6665064544808965),
            'generator_neg/backward/recurrent_kernel': (-1.219018694751468, 2.971230933187981),
            'generator_neg/backward/bias': (-0.48442394527852445, 2.395424384261477),
            'generator_pos/forward/kernel': (11.246455322877061, 4.453288159930065),
            'generator_pos/forward/recurrent_kernel': (-5.4495163796014054, 3.3063215592738904),
            'generator_pos/forward/bias': (-2.1532929132563976, 2.466917964653876),
            'generator_pos/backward/kernel': (-1.052549543494203, 4.359578625925511),
            'generator_pos/backward/recurrent_kernel': (-0.8006037131535346, 3.1965597118398454),
            'generator_pos/backward/bias': (-0.8492855860740692, 2.8802020180976586),
            'discriminator/forward/kernel': (0.15611705972729173, 4.129108855987593),
            'discriminator/forward/recurrent_kernel': (-1.0792820929823763, 3.3851679455049855),
            'discriminator/forward/bias': (-2.124414650344012, 2.044208497778127),
            'discriminator/backward/kernel': (-7.38339648918454, 5.327652361712157),
            'discriminator/backward/recurrent_kernel': (1.247321989476762, 3.4316123156797502),
            'discriminator/backward/bias': (1.458309315209843, 2.5543264000318913),
            'generator_neg_fc/kernel': (0.1846839849596813, 1.7394149392413778),
            'generator_neg_fc/bias': (-0.8516122643334404, 0.6242803593684811),
            'generator_pos_fc/kernel': (4.029469505769988, 1.8814219691670069),
            'generator_pos_fc/bias': (0.07587290360719685, 0.10613669730125802),
            'discriminator_fc/kernel': (-1.8600840079756364, 2.1209687655950584),
            'discriminator_fc/bias': (0.5199264525308404, 0.8228970075218975),
            'gen_neg_embedding/embeddings': (-4.241034345174864, 5.853370612578449),
            'gen_pos_embedding/embeddings': (-4.176425402826439, 5.854575629180725),
            'dis_embedding/embeddings': (-4.169022836984556, 5.85354862777826),
        },
    },
]
