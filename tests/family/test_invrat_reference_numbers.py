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
(``lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)``, ``var -= lr_t m / (sqrt(v) + 1e-7)``; our ``adam=keras``). Inputs: the four documents
of tests/reference_draws.py (labels one-hot) padded to 24 (``imdb.py text2idx`` pads to ``max_seq_length``, 300 by default; 24 here, and
``model.pad_to=24`` on our side, to keep the test short -- the padded width still enters the GRUs' backward
direction and the continuity term's mean),
environments (0, 1, 1, 0), vocabulary 20, embeddings 6, 4 GRU units per direction, every weight
``values(keras_name, keras_shape)`` (the embedding tables ``values("embedding")``), the generator's output bias
plus (0, 1) so that about half the words are kept at the start (with the values alone none is). Torch 2 on CPU.
Seven steps (one cycle of the schedule) on the same batch.
Recorded per step: every loss term, the gradient norm of each stepped variable, every variable's (sum, norm)
after the step.

Our model is built from the registered defaults; its weights are the same tensors in PyTorch's layout (gates r,
z, n; the 6H bias split into ``bias_ih`` and ``bias_hh``), so norms and sums compare directly; everything
agrees to 1e-9. (Our straight-through mask is ``hard + (z - z.detach())``, exactly 0/1, where the transcription
keeps the reference's ``stop_gradient(hard - z) + z``, 0/1 up to rounding: on this batch the two agree.)
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
ENVIRONMENTS = [0, 1, 1, 0]
ENCODERS = {"selector_encoder": "generator", "predictor_encoder": "env_inv_encoder",
            "environment_encoder": "env_enable_encoder"}
EMBEDDINGS = {"selector_encoder": "gen_embed/embeddings", "predictor_encoder": "env_inv_embed/embeddings",
              "environment_encoder": "env_enable_embed/embeddings"}
HEADS = {"selector.scorer": "generator_fc", "predictor.net.1": "env_inv_fc", "environment_head.linear": "env_enable_fc"}
PLAYERS = {"generator": "generator", "agnostic": "env_inv", "aware": "env_enable"}


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


def keras_to_ours(weights):
    """Our parameter name -> its value, and our name -> the Keras variable it is part of."""
    return ours_from_keras(weights, encoders=ENCODERS, heads=HEADS, embeddings=EMBEDDINGS, hidden=H)


def invrat_model(overrides=()):
    specs = resolve_specs(compose_config(["model=invrat", "embeddings.trainable=true",
                                          f"backbone.hidden_size={HIDDEN}", *overrides]))
    factory = BackboneFactory(specs.backbone, embedding_matrix=values("embedding", (VOCAB, EMB)),
                              freeze_embeddings=not specs.embeddings["trainable"])
    model = build("model", specs.model, path="model", backbone_factory=factory, num_classes=2).double()
    ours, variable = keras_to_ours(keras_weights(keras_shapes()))
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


def test_torch_adam_is_another_step():
    """The check above can fail: torch's Adam (eps on sqrt(v-hat)) moves some variable otherwise on step 1."""
    model, _, variable = invrat_model(["model.pad_to=24", "model.adam=torch"])
    recorder = train(model, steps=1)
    norms = per_variable({n: v for n, (_, v) in recorder.params[0].items()}, variable, "norm")
    assert max(abs(norms[name] - norm) for name, (_, norm) in REFERENCE[0]["parameters"].items()) > 1e-6


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
            assert abs(sums[name] - total) <= 1e-9, (step, name, sums[name], total)
            assert abs(norms[name] - norm) <= 1e-9, (step, name, norms[name], norm)


REFERENCE = [
    {
        "group": 'generator',
        "losses": {'env_inv_loss': 1.2553127321675643, 'env_enable_loss': 0.855925948761715, 'diff_loss': 0.3993867834058493, 'sparsity_loss': 0.3161290322580645, 'continuity_loss': 0.7608695652173914, 'gen_loss': 6.3261791637015135},
        "grad_norms": {'gen_embed/embeddings': 0.5502197095228044, 'generator/forward/kernel': 1.218790362796158, 'generator/forward/recurrent_kernel': 0.3957331221030002, 'generator/forward/bias': 1.0403803777588336, 'generator/backward/kernel': 0.11317413843918259, 'generator/backward/recurrent_kernel': 0.040196398783540574, 'generator/backward/bias': 0.07855878286605594, 'generator_fc/kernel': 0.709186357306557, 'generator_fc/bias': 0.3783886424411947},
        "parameters": {
            'gen_embed/embeddings': (-4.159025124998677, 5.855758485166259),
            'env_inv_embed/embeddings': (-4.162436567069923, 5.855781148605367),
            'env_enable_embed/embeddings': (-4.162436567069923, 5.855781148605367),
            'generator/forward/kernel': (-4.101437515558209, 3.7335112596483007),
            'generator/forward/recurrent_kernel': (-1.437816515079318, 4.066599107685431),
            'generator/forward/bias': (2.5477975878884647, 2.238988089198193),
            'generator/backward/kernel': (2.867436822936339, 4.319699755930827),
            'generator/backward/recurrent_kernel': (6.461282392163389, 3.34505648851588),
            'generator/backward/bias': (-1.396023375103403, 2.55155248429301),
            'env_inv_encoder/forward/kernel': (3.3766445323155523, 3.6976546989604673),
            'env_inv_encoder/forward/recurrent_kernel': (0.819844633915833, 2.999865561347937),
            'env_inv_encoder/forward/bias': (0.7988676254110888, 2.2415267777357957),
            'env_inv_encoder/backward/kernel': (-0.192810783197631, 4.04209486460561),
            'env_inv_encoder/backward/recurrent_kernel': (3.8227682469037183, 3.3256955948606195),
            'env_inv_encoder/backward/bias': (-2.9205686909288033, 2.397282115221102),
            'env_enable_encoder/forward/kernel': (2.8690208349881883, 5.267754455439658),
            'env_enable_encoder/forward/recurrent_kernel': (0.07861669123296089, 3.506599931981434),
            'env_enable_encoder/forward/bias': (-0.7394895968249379, 2.4773163974502204),
            'env_enable_encoder/backward/kernel': (-2.210750706482638, 4.593335731013625),
            'env_enable_encoder/backward/recurrent_kernel': (-3.4050639870603616, 3.9540055748097056),
            'env_enable_encoder/backward/bias': (0.3653979460741722, 2.1855915740706795),
            'generator_fc/kernel': (0.8068707897490598, 2.0164949857645746),
            'generator_fc/bias': (0.42249283733784315, 0.3156141414730414),
            'env_inv_fc/kernel': (3.4657223371594337, 2.6206447323809323),
            'env_inv_fc/bias': (-0.6268761916924069, 0.6114553599713146),
            'env_enable_fc/kernel': (-0.9167473857007498, 1.949651043325628),
            'env_enable_fc/bias': (-0.46700101926546, 0.3408802332291577),
        },
    },
    {
        "group": 'env_inv',
        "losses": {'env_inv_loss': 1.2553127321675643, 'env_enable_loss': 0.855925948761715, 'diff_loss': 0.3993867834058493, 'sparsity_loss': 0.3161290322580645, 'continuity_loss': 0.7608695652173914, 'gen_loss': 6.3261791637015135},
        "grad_norms": {'env_inv_embed/embeddings': 0.3054773517531489, 'env_inv_encoder/forward/kernel': 0.16315634182658617, 'env_inv_encoder/forward/recurrent_kernel': 0.1355285096588342, 'env_inv_encoder/forward/bias': 0.5120382540612527, 'env_inv_encoder/backward/kernel': 0.2732907618127635, 'env_inv_encoder/backward/recurrent_kernel': 0.1685198123087624, 'env_inv_encoder/backward/bias': 0.5236606996095271, 'env_inv_fc/kernel': 0.610452128429173, 'env_inv_fc/bias': 0.5466538069832008},
        "parameters": {
            'gen_embed/embeddings': (-4.159025124998677, 5.855758485166259),
            'env_inv_embed/embeddings': (-4.158433470091804, 5.855821301705906),
            'env_enable_embed/embeddings': (-4.162436567069923, 5.855781148605367),
            'generator/forward/kernel': (-4.101437515558209, 3.7335112596483007),
            'generator/forward/recurrent_kernel': (-1.437816515079318, 4.066599107685431),
            'generator/forward/bias': (2.5477975878884647, 2.238988089198193),
            'generator/backward/kernel': (2.867436822936339, 4.319699755930827),
            'generator/backward/recurrent_kernel': (6.461282392163389, 3.34505648851588),
            'generator/backward/bias': (-1.396023375103403, 2.55155248429301),
            'env_inv_encoder/forward/kernel': (3.3746908959189934, 3.699791891961279),
            'env_inv_encoder/forward/recurrent_kernel': (0.8238407086130999, 2.999321357959),
            'env_inv_encoder/forward/bias': (0.7948718522379143, 2.2393304041375073),
            'env_inv_encoder/backward/kernel': (-0.19673532478776457, 4.043467473982943),
            'env_inv_encoder/backward/recurrent_kernel': (3.8207180430647645, 3.32614185666254),
            'env_inv_encoder/backward/bias': (-2.922568290542398, 2.3966545777251116),
            'env_enable_encoder/forward/kernel': (2.8690208349881883, 5.267754455439658),
            'env_enable_encoder/forward/recurrent_kernel': (0.07861669123296089, 3.506599931981434),
            'env_enable_encoder/forward/bias': (-0.7394895968249379, 2.4773163974502204),
            'env_enable_encoder/backward/kernel': (-2.210750706482638, 4.593335731013625),
            'env_enable_encoder/backward/recurrent_kernel': (-3.4050639870603616, 3.9540055748097056),
            'env_enable_encoder/backward/bias': (0.3653979460741722, 2.1855915740706795),
            'generator_fc/kernel': (0.8068707897490598, 2.0164949857645746),
            'generator_fc/bias': (0.42249283733784315, 0.3156141414730414),
            'env_inv_fc/kernel': (3.4657223371594332, 2.6189130656537727),
            'env_inv_fc/bias': (-0.6268761916924068, 0.6104821013826076),
            'env_enable_fc/kernel': (-0.9167473857007498, 1.949651043325628),
            'env_enable_fc/bias': (-0.46700101926546, 0.3408802332291577),
        },
    },
    {
        "group": 'env_inv',
        "losses": {'env_inv_loss': 1.2448614962776736, 'env_enable_loss': 0.855925948761715, 'diff_loss': 0.3889355475159586, 'sparsity_loss': 0.3161290322580645, 'continuity_loss': 0.7608695652173914, 'gen_loss': 6.211215568912716},
        "grad_norms": {'env_inv_embed/embeddings': 0.30623406979252354, 'env_inv_encoder/forward/kernel': 0.16194930887950706, 'env_inv_encoder/forward/recurrent_kernel': 0.1338822703128922, 'env_inv_encoder/forward/bias': 0.5084972628821981, 'env_inv_encoder/backward/kernel': 0.2729729836466479, 'env_inv_encoder/backward/recurrent_kernel': 0.1671371133106919, 'env_inv_encoder/backward/bias': 0.5214752228251988, 'env_inv_fc/kernel': 0.6044655143182954, 'env_inv_fc/bias': 0.5433403798768046},
        "parameters": {
            'gen_embed/embeddings': (-4.159025124998677, 5.855758485166259),
            'env_inv_embed/embeddings': (-4.154425447342312, 5.855871579824894),
            'env_enable_embed/embeddings': (-4.162436567069923, 5.855781148605367),
            'generator/forward/kernel': (-4.101437515558209, 3.7335112596483007),
            'generator/forward/recurrent_kernel': (-1.437816515079318, 4.066599107685431),
            'generator/forward/bias': (2.5477975878884647, 2.238988089198193),
            'generator/backward/kernel': (2.867436822936339, 4.319699755930827),
            'generator/backward/recurrent_kernel': (6.461282392163389, 3.34505648851588),
            'generator/backward/bias': (-1.396023375103403, 2.55155248429301),
            'env_inv_encoder/forward/kernel': (3.3727255197159103, 3.701946829551468),
            'env_inv_encoder/forward/recurrent_kernel': (0.8278170050039242, 2.998793373636904),
            'env_inv_encoder/forward/bias': (0.7908757977210478, 2.2371426650792543),
            'env_inv_encoder/backward/kernel': (-0.2006825811542875, 4.0448610224015145),
            'env_inv_encoder/backward/recurrent_kernel': (3.8186652317336884, 3.326602784530346),
            'env_inv_encoder/backward/bias': (-2.9245464533842123, 2.396034911911061),
            'env_enable_encoder/forward/kernel': (2.8690208349881883, 5.267754455439658),
            'env_enable_encoder/forward/recurrent_kernel': (0.07861669123296089, 3.506599931981434),
            'env_enable_encoder/forward/bias': (-0.7394895968249379, 2.4773163974502204),
            'env_enable_encoder/backward/kernel': (-2.210750706482638, 4.593335731013625),
            'env_enable_encoder/backward/recurrent_kernel': (-3.4050639870603616, 3.9540055748097056),
            'env_enable_encoder/backward/bias': (0.3653979460741722, 2.1855915740706795),
            'generator_fc/kernel': (0.8068707897490598, 2.0164949857645746),
            'generator_fc/bias': (0.42249283733784315, 0.3156141414730414),
            'env_inv_fc/kernel': (3.4657223371594332, 2.617188525951675),
            'env_inv_fc/bias': (-0.6268761916924068, 0.6095107259776296),
            'env_enable_fc/kernel': (-0.9167473857007498, 1.949651043325628),
            'env_enable_fc/bias': (-0.46700101926546, 0.3408802332291577),
        },
    },
    {
        "group": 'env_inv',
        "losses": {'env_inv_loss': 1.2344772728755853, 'env_enable_loss': 0.855925948761715, 'diff_loss': 0.37855132411387027, 'sparsity_loss': 0.3161290322580645, 'continuity_loss': 0.7608695652173914, 'gen_loss': 6.096989111489744},
        "grad_norms": {'env_inv_embed/embeddings': 0.30695645757179835, 'env_inv_encoder/forward/kernel': 0.1607157170125679, 'env_inv_encoder/forward/recurrent_kernel': 0.13223308488538, 'env_inv_encoder/forward/bias': 0.5048962987677481, 'env_inv_encoder/backward/kernel': 0.2725853739971334, 'env_inv_encoder/backward/recurrent_kernel': 0.16573774391787743, 'env_inv_encoder/backward/bias': 0.5192031347550469, 'env_inv_fc/kernel': 0.5984615527775355, 'env_inv_fc/bias': 0.5399707070230855},
        "parameters": {
            'gen_embed/embeddings': (-4.159025124998677, 5.855758485166259),
            'env_inv_embed/embeddings': (-4.1504015828582075, 5.855931632363445),
            'env_enable_embed/embeddings': (-4.162436567069923, 5.855781148605367),
            'generator/forward/kernel': (-4.101437515558209, 3.7335112596483007),
            'generator/forward/recurrent_kernel': (-1.437816515079318, 4.066599107685431),
            'generator/forward/bias': (2.5477975878884647, 2.238988089198193),
            'generator/backward/kernel': (2.867436822936339, 4.319699755930827),
            'generator/backward/recurrent_kernel': (6.461282392163389, 3.34505648851588),
            'generator/backward/bias': (-1.396023375103403, 2.55155248429301),
            'env_inv_encoder/forward/kernel': (3.370756635303181, 3.704119009115353),
            'env_inv_encoder/forward/recurrent_kernel': (0.8317544263202087, 2.998285209257706),
            'env_inv_encoder/forward/bias': (0.7868810720751561, 2.2349638656510598),
            'env_inv_encoder/backward/kernel': (-0.20463986322037198, 4.0462739237812055),
            'env_inv_encoder/backward/recurrent_kernel': (3.81658760973308, 3.3270830012290964),
            'env_inv_encoder/backward/bias': (-2.9264669387181406, 2.395423917421849),
            'env_enable_encoder/forward/kernel': (2.8690208349881883, 5.267754455439658),
            'env_enable_encoder/forward/recurrent_kernel': (0.07861669123296089, 3.506599931981434),
            'env_enable_encoder/forward/bias': (-0.7394895968249379, 2.4773163974502204),
            'env_enable_encoder/backward/kernel': (-2.210750706482638, 4.593335731013625),
            'env_enable_encoder/backward/recurrent_kernel': (-3.4050639870603616, 3.9540055748097056),
            'env_enable_encoder/backward/bias': (0.3653979460741722, 2.1855915740706795),
            'generator_fc/kernel': (0.8068707897490598, 2.0164949857645746),
            'generator_fc/bias': (0.42249283733784315, 0.3156141414730414),
            'env_inv_fc/kernel': (3.4657223371594332, 2.6154727974375085),
            'env_inv_fc/bias': (-0.6268761916924068, 0.6085413525277464),
            'env_enable_fc/kernel': (-0.9167473857007498, 1.949651043325628),
            'env_enable_fc/bias': (-0.46700101926546, 0.3408802332291577),
        },
    },
    {
        "group": 'env_enable',
        "losses": {'env_inv_loss': 1.2238870212593989, 'env_enable_loss': 0.855925948761715, 'diff_loss': 0.36796107249768384, 'sparsity_loss': 0.3161290322580645, 'continuity_loss': 0.7608695652173914, 'gen_loss': 5.980496343711693},
        "grad_norms": {'env_enable_embed/embeddings': 0.21048935897314497, 'env_enable_encoder/forward/kernel': 0.10067533704338175, 'env_enable_encoder/forward/recurrent_kernel': 0.08449917139584133, 'env_enable_encoder/forward/bias': 0.08991857411553072, 'env_enable_encoder/backward/kernel': 0.18837316583926064, 'env_enable_encoder/backward/recurrent_kernel': 0.04727952108454794, 'env_enable_encoder/backward/bias': 0.06345933253539704, 'env_enable_fc/kernel': 0.16324544669291735, 'env_enable_fc/bias': 0.0069604893989938},
        "parameters": {
            'gen_embed/embeddings': (-4.159025124998677, 5.855758485166259),
            'env_inv_embed/embeddings': (-4.1504015828582075, 5.855931632363445),
            'env_enable_embed/embeddings': (-4.1584387599169155, 5.85536518060382),
            'generator/forward/kernel': (-4.101437515558209, 3.7335112596483007),
            'generator/forward/recurrent_kernel': (-1.437816515079318, 4.066599107685431),
            'generator/forward/bias': (2.5477975878884647, 2.238988089198193),
            'generator/backward/kernel': (2.867436822936339, 4.319699755930827),
            'generator/backward/recurrent_kernel': (6.461282392163389, 3.34505648851588),
            'generator/backward/bias': (-1.396023375103403, 2.55155248429301),
            'env_inv_encoder/forward/kernel': (3.370756635303181, 3.704119009115353),
            'env_inv_encoder/forward/recurrent_kernel': (0.8317544263202087, 2.998285209257706),
            'env_inv_encoder/forward/bias': (0.7868810720751561, 2.2349638656510598),
            'env_inv_encoder/backward/kernel': (-0.20463986322037198, 4.0462739237812055),
            'env_inv_encoder/backward/recurrent_kernel': (3.81658760973308, 3.3270830012290964),
            'env_inv_encoder/backward/bias': (-2.9264669387181406, 2.395423917421849),
            'env_enable_encoder/forward/kernel': (2.8668956709448468, 5.266939333019079),
            'env_enable_encoder/forward/recurrent_kernel': (0.08249635609187855, 3.5064559319463022),
            'env_enable_encoder/forward/bias': (-0.7434932749991874, 2.4754553418721277),
            'env_enable_encoder/backward/kernel': (-2.2140503784149983, 4.590813251714174),
            'env_enable_encoder/backward/recurrent_kernel': (-3.3933221456306937, 3.9534481182615973),
            'env_enable_encoder/backward/bias': (0.36944404301083744, 2.1853071458745412),
            'generator_fc/kernel': (0.8068707897490598, 2.0164949857645746),
            'generator_fc/bias': (0.42249283733784315, 0.3156141414730414),
            'env_inv_fc/kernel': (3.4657223371594332, 2.6154727974375085),
            'env_inv_fc/bias': (-0.6268761916924068, 0.6085413525277464),
            'env_enable_fc/kernel': (-0.9167473857007493, 1.9482483930363146),
            'env_enable_fc/bias': (-0.46700101926546, 0.3405322985718212),
        },
    },
    {
        "group": 'env_enable',
        "losses": {'env_inv_loss': 1.2238870212593989, 'env_enable_loss': 0.8518897535533941, 'diff_loss': 0.3719972677060047, 'sparsity_loss': 0.3161290322580645, 'continuity_loss': 0.7608695652173914, 'gen_loss': 6.020858295794903},
        "grad_norms": {'env_enable_embed/embeddings': 0.20878693169772886, 'env_enable_encoder/forward/kernel': 0.10055620848519194, 'env_enable_encoder/forward/recurrent_kernel': 0.08371788775825573, 'env_enable_encoder/forward/bias': 0.08897121199110211, 'env_enable_encoder/backward/kernel': 0.18692806367881742, 'env_enable_encoder/backward/recurrent_kernel': 0.04703744038361948, 'env_enable_encoder/backward/bias': 0.06462591666362799, 'env_enable_fc/kernel': 0.15911719249061324, 'env_enable_fc/bias': 0.004326963654636841},
        "parameters": {
            'gen_embed/embeddings': (-4.159025124998677, 5.855758485166259),
            'env_inv_embed/embeddings': (-4.1504015828582075, 5.855931632363445),
            'env_enable_embed/embeddings': (-4.154440015957366, 5.854960689336707),
            'generator/forward/kernel': (-4.101437515558209, 3.7335112596483007),
            'generator/forward/recurrent_kernel': (-1.437816515079318, 4.066599107685431),
            'generator/forward/bias': (2.5477975878884647, 2.238988089198193),
            'generator/backward/kernel': (2.867436822936339, 4.319699755930827),
            'generator/backward/recurrent_kernel': (6.461282392163389, 3.34505648851588),
            'generator/backward/bias': (-1.396023375103403, 2.55155248429301),
            'env_inv_encoder/forward/kernel': (3.370756635303181, 3.704119009115353),
            'env_inv_encoder/forward/recurrent_kernel': (0.8317544263202087, 2.998285209257706),
            'env_inv_encoder/forward/bias': (0.7868810720751561, 2.2349638656510598),
            'env_inv_encoder/backward/kernel': (-0.20463986322037198, 4.0462739237812055),
            'env_inv_encoder/backward/recurrent_kernel': (3.81658760973308, 3.3270830012290964),
            'env_inv_encoder/backward/bias': (-2.9264669387181406, 2.395423917421849),
            'env_enable_encoder/forward/kernel': (2.8632983032186017, 5.266249793981032),
            'env_enable_encoder/forward/recurrent_kernel': (0.08641600104371028, 3.506318141500416),
            'env_enable_encoder/forward/bias': (-0.7474939032221499, 2.4736009152470944),
            'env_enable_encoder/backward/kernel': (-2.2175592804451965, 4.588368035984269),
            'env_enable_encoder/backward/recurrent_kernel': (-3.3815306583308837, 3.952902042657006),
            'env_enable_encoder/backward/bias': (0.3737488406956422, 2.185069657229857),
            'generator_fc/kernel': (0.8068707897490598, 2.0164949857645746),
            'generator_fc/bias': (0.42249283733784315, 0.3156141414730414),
            'env_inv_fc/kernel': (3.4657223371594332, 2.6154727974375085),
            'env_inv_fc/bias': (-0.6268761916924068, 0.6085413525277464),
            'env_enable_fc/kernel': (-0.9167473857007497, 1.946851840245223),
            'env_enable_fc/bias': (-0.46700101926546, 0.3402027612481416),
        },
    },
    {
        "group": 'env_enable',
        "losses": {'env_inv_loss': 1.2238870212593989, 'env_enable_loss': 0.8478807295264688, 'diff_loss': 0.3760062917329301, 'sparsity_loss': 0.3161290322580645, 'continuity_loss': 0.7608695652173914, 'gen_loss': 6.060948536064156},
        "grad_norms": {'env_enable_embed/embeddings': 0.20710989855860398, 'env_enable_encoder/forward/kernel': 0.1004727237457424, 'env_enable_encoder/forward/recurrent_kernel': 0.08293757648337811, 'env_enable_encoder/forward/bias': 0.08802009209342962, 'env_enable_encoder/backward/kernel': 0.18550815771924845, 'env_enable_encoder/backward/recurrent_kernel': 0.04680567684712933, 'env_enable_encoder/backward/bias': 0.06577889469100832, 'env_enable_fc/kernel': 0.15509475282795493, 'env_enable_fc/bias': 0.0017541167161317754},
        "parameters": {
            'gen_embed/embeddings': (-4.159025124998677, 5.855758485166259),
            'env_inv_embed/embeddings': (-4.1504015828582075, 5.855931632363445),
            'env_enable_embed/embeddings': (-4.15042851542737, 5.854567977273165),
            'generator/forward/kernel': (-4.101437515558209, 3.7335112596483007),
            'generator/forward/recurrent_kernel': (-1.437816515079318, 4.066599107685431),
            'generator/forward/bias': (2.5477975878884647, 2.238988089198193),
            'generator/backward/kernel': (2.867436822936339, 4.319699755930827),
            'generator/backward/recurrent_kernel': (6.461282392163389, 3.34505648851588),
            'generator/backward/bias': (-1.396023375103403, 2.55155248429301),
            'env_inv_encoder/forward/kernel': (3.370756635303181, 3.704119009115353),
            'env_inv_encoder/forward/recurrent_kernel': (0.8317544263202087, 2.998285209257706),
            'env_inv_encoder/forward/bias': (0.7868810720751561, 2.2349638656510598),
            'env_inv_encoder/backward/kernel': (-0.20463986322037198, 4.0462739237812055),
            'env_inv_encoder/backward/recurrent_kernel': (3.81658760973308, 3.3270830012290964),
            'env_inv_encoder/backward/bias': (-2.9264669387181406, 2.395423917421849),
            'env_enable_encoder/forward/kernel': (2.8595189950635964, 5.265592887190177),
            'env_enable_encoder/forward/recurrent_kernel': (0.09035448261095969, 3.506189464105284),
            'env_enable_encoder/forward/bias': (-0.7514908011493122, 2.4717530427126686),
            'env_enable_encoder/backward/kernel': (-2.2211114385135757, 4.5859791045175875),
            'env_enable_encoder/backward/recurrent_kernel': (-3.369726331568284, 3.9523681331513196),
            'env_enable_encoder/backward/bias': (0.37892028906970476, 2.184962161946237),
            'generator_fc/kernel': (0.8068707897490598, 2.0164949857645746),
            'generator_fc/bias': (0.42249283733784315, 0.3156141414730414),
            'env_inv_fc/kernel': (3.4657223371594332, 2.6154727974375085),
            'env_inv_fc/bias': (-0.6268761916924068, 0.6085413525277464),
            'env_enable_fc/kernel': (-0.9167473857007495, 1.9454602693042224),
            'env_enable_fc/bias': (-0.46700101926546, 0.3399121804735605),
        },
    },
]
