"""InvRat's registered defaults against numbers of the reference's step, on one padded batch, in float64.

How the constants below were produced. The reference, github.com/code-terminator/invariant_rationalization at
commit e88eaef67cb1a4c3c4b9be2f08eaa2b8e55e4c6f, is TensorFlow 1.14 (``tf.contrib``, ``CuDNNGRU``), which cannot
be installed on Python 3.11 (nor run on CPU: ``CuDNNGRU`` needs a GPU). So the numbers come from a faithful
plain-PyTorch transcription of its step, written beside (not in) this repository: ``model.py InvRNN.call``
(three embedding tables from one pretrained matrix, ``Bidirectional(CuDNNGRU)`` over the padded tensor, cuDNN's
GRU equations in Keras's weight layout -- kernel [in, 3H] and recurrent kernel [H, 3H] in gate order z, r, h,
bias [6H] = input then recurrent biases --, ``_independent_straight_through_sampling``, padding forced to
"drop", the environment one-hot joined to the aware encoder's rationale-masked embeddings, max-pooling with
-1e9 on padding), ``utils.py inv_rat_loss`` / ``cal_sparsity_loss`` / ``cal_continuity_loss``, ``train.py
train_imdb`` (``path = step % 7``: generator, three agnostic-predictor steps, three aware-predictor steps, each
gradient taken for its player's variables only) with ``imdb_demo.py``'s defaults (sparsity 0.2 x 1,
continuity x 5, diff_lambda 10, lr 1e-3), and three Keras Adams as TF 1.14's ``ApplyAdam`` computes them
(``lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)``, ``var -= lr_t m / (sqrt(v) + 1e-7)``). Inputs: the four documents
of tests/reference_draws.py (labels one-hot) padded to 300 (``imdb.py text2idx``, ``max_seq_length``),
environments (0, 1, 1, 0), vocabulary 20, embeddings 6, 4 GRU units per direction, every weight
``values(keras_name, keras_shape)`` (the embedding tables ``values("embedding")``), the generator's output bias
plus (0, 1) so that about half the words are kept at the start (with the values alone none is). Torch 2 on CPU.
Recorded per step: every loss term, the gradient norm of each stepped variable, every variable's (sum, norm)
after the step.

Our model is built from the registered defaults; its weights are the same tensors in PyTorch's layout (gates r,
z, n; the 6H bias split into ``bias_ih`` and ``bias_hh``), so norms and sums compare directly. Losses and
gradients agree to 1e-9. Parameters after a step agree to ``PARAMETER_TOLERANCE`` only: torch's Adam adds its
epsilon (1e-8) to sqrt(v̂), Keras's (1e-7) to sqrt(v), which on a first step is epsilon 1e-7 / sqrt(1 - 0.999)
= 3.2e-6 in torch's form -- a relative difference of about 3e-6 / |g| in each update, at most lr = 1e-3 per entry.
"""
from __future__ import annotations

import math

import pytest
import torch
from reference_draws import EMB, HIDDEN, VOCAB, examples, values
from reference_steps import StepRecorder
from torch.utils.data import DataLoader

from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import build
from pyhighlights.data.collate import BatchCollator
from pyhighlights.testing import quiet_cpu_trainer
from pyhighlights.training.run import resolve_specs

H = HIDDEN // 2
ENVIRONMENTS = [0, 1, 1, 0]
ENCODERS = {"selector_encoder": "generator", "predictor_encoder": "env_inv_encoder",
            "environment_encoder": "env_enable_encoder"}
EMBEDDINGS = {"selector_encoder": "gen_embed/embeddings", "predictor_encoder": "env_inv_embed/embeddings",
              "environment_encoder": "env_enable_embed/embeddings"}
HEADS = {"selector.scorer": "generator_fc", "predictor.net.1": "env_inv_fc", "environment_head.linear": "env_enable_fc"}
PLAYERS = {"generator": "generator", "agnostic": "env_inv", "aware": "env_enable"}
PARAMETER_TOLERANCE = 2e-5


def keras_weights(shapes):
    weights = {name: values(name, shape) for name, shape in shapes.items()}
    weights["generator_fc/bias"] = weights["generator_fc/bias"] + torch.tensor([0.0, 1.0], dtype=torch.float64)
    return weights


def keras_shapes():
    shapes = {}
    for encoder, inputs in (("generator", EMB), ("env_inv_encoder", EMB), ("env_enable_encoder", EMB + 2)):
        for direction in ("forward", "backward"):
            shapes[f"{encoder}/{direction}/kernel"] = (inputs, 3 * H)
            shapes[f"{encoder}/{direction}/recurrent_kernel"] = (H, 3 * H)
            shapes[f"{encoder}/{direction}/bias"] = (6 * H,)
    for head in HEADS.values():
        shapes[f"{head}/kernel"], shapes[f"{head}/bias"] = (2 * H, 2), (2,)
    return shapes


def torch_gates(keras: torch.Tensor) -> torch.Tensor:
    """Keras's gate blocks (z, r, h) along the last dim -> PyTorch's rows (r, z, n)."""
    z, r, h = keras.split(H, dim=-1)
    return torch.cat([r, z, h], dim=-1).T if keras.dim() == 2 else torch.cat([r, z, h])


def ours_from_keras(weights):
    """Our parameter name -> its value, and our name -> the Keras variable it is part of."""
    ours, variable = {}, {}
    for encoder, keras in ENCODERS.items():
        for layer, direction in (("forward_layers", "forward"), ("backward_layers", "backward")):
            prefix, name = f"{encoder}.{layer}.0.", f"{keras}/{direction}"
            bias = weights[f"{name}/bias"]
            for suffix, value, source in (("weight_ih_l0", torch_gates(weights[f"{name}/kernel"]), "kernel"),
                                          ("weight_hh_l0", torch_gates(weights[f"{name}/recurrent_kernel"]),
                                           "recurrent_kernel"),
                                          ("bias_ih_l0", torch_gates(bias[:3 * H]), "bias"),
                                          ("bias_hh_l0", torch_gates(bias[3 * H:]), "bias")):
                ours[prefix + suffix], variable[prefix + suffix] = value, f"{name}/{source}"
        variable[f"{encoder}.embedding.weight"] = EMBEDDINGS[encoder]
    for head, keras in HEADS.items():
        ours[f"{head}.weight"], variable[f"{head}.weight"] = weights[f"{keras}/kernel"].T, f"{keras}/kernel"
        ours[f"{head}.bias"], variable[f"{head}.bias"] = weights[f"{keras}/bias"], f"{keras}/bias"
    return ours, variable


def invrat_model(overrides=()):
    specs = resolve_specs(compose_config(["model=invrat", "embeddings.trainable=true",
                                          f"backbone.hidden_size={HIDDEN}", *overrides]))
    factory = BackboneFactory(specs.backbone, embedding_matrix=values("embedding", (VOCAB, EMB)),
                              freeze_embeddings=not specs.embeddings["trainable"])
    model = build("model", specs.model, path="model", backbone_factory=factory, num_classes=2).double()
    ours, variable = ours_from_keras(keras_weights(keras_shapes()))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name in ours:
                p.copy_(ours[name])
    return model, specs, variable


def environment_batch(model):
    documents = examples()
    for document, environment in zip(documents, ENVIRONMENTS):
        document.environment = environment
    return BatchCollator(0, model.pad_to)(documents)


def train(model, steps):
    recorder = StepRecorder()
    loader = DataLoader([environment_batch(model)] * steps, batch_size=None, collate_fn=lambda b: b)
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
TERMS = {"task": ("env_inv_loss", 1.0), "env_task": ("env_enable_loss", 1.0), "invariance": ("diff_loss", 1.0),
         "sparsity": ("sparsity_loss", 1.0), "continuity": ("continuity_loss", 5.0)}
PHASE_TERMS = {"generator": ("task", "invariance", "sparsity", "continuity"), "env_inv": ("task",),
               "env_enable": ("env_task",)}


def test_invrat_equals_the_reference_step_on_a_padded_batch():
    model, specs, variable = invrat_model(["model.pad_to=24"])
    assert (specs.model["recurrence"], specs.model["pad_to"], specs.model["bucket"]) == ("padded", 24, False)
    assert environment_batch(model).input_ids.shape[1] == 24
    recorder = train(model, steps=len(REFERENCE))
    assert len(recorder.grads) == len(REFERENCE)
    names = {id(p): n for n, p in model.named_parameters()}
    del names
    for step, want in enumerate(REFERENCE):
        got = recorder.values[step]
        for term in PHASE_TERMS[want["group"]]:
            reference, weight = TERMS[term]
            assert got[f"train/loss/{term}"] * weight == pytest.approx(want["losses"][reference], abs=1e-9), \
                (step, term)
        grads = per_variable({n: g for n, g in recorder.grads[step].items() if g is not None}, variable, "norm")
        assert set(grads) == set(want["grad_norms"]), (step, set(grads) ^ set(want["grad_norms"]))
        for name, norm in want["grad_norms"].items():
            assert grads[name] == pytest.approx(norm, abs=1e-9), (step, name)
        sums = per_variable({n: s for n, (s, _) in recorder.params[step].items()}, variable, "sum")
        norms = per_variable({n: v for n, (_, v) in recorder.params[step].items()}, variable, "norm")
        for name, (total, norm) in want["parameters"].items():
            assert abs(sums[name] - total) <= PARAMETER_TOLERANCE, (step, name, sums[name], total)
            assert abs(norms[name] - norm) <= PARAMETER_TOLERANCE, (step, name, norms[name], norm)


import json  # noqa: E402

REFERENCE = json.load(open("/work/scratch/invrat/rec24.json"))
