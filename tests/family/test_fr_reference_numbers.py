"""FR's registered defaults against numbers the reference code computed, on one padded batch.

How the constants below were produced: github.com/jugechengzi/FR at commit
971e6da8c27dbd18022aa904e47f4c7f434140de, its own training loop ``code/train_util.py train_share(model,
optimizer, loader, cpu, args, writer)`` for three batches, each the same batch: the four documents of
tests/reference_draws.py (12, 9, 7 and 3 tokens) padded to 256 as ``code/beer.py`` pads every document
(``max_length=256``), ``code/model.py GenEncShareModel`` with vocabulary 20, embeddings 6, hidden 8, one GRU
layer, dropout 0.2, tau 1, in float64, every weight ``values(name, shape)`` by the reference's parameter name
(the frozen embedding matrix ``values("embedding")`` given as ``pretrained_embedding``), Adam as
``run_share_beer.py`` builds it, and dropout and Gumbel draws replaced by ``fixed_draws``. The arguments were
those of our composed settings (below); the recording wrapped ``F.cross_entropy``, ``get_sparsity_loss``,
``get_continuity_loss`` (the values train_share reads) and ``optimizer.step`` (gradient norms before, parameter
sums and norms after). The reference's code is not part of this repository.
"""
from __future__ import annotations

import pytest
from reference_steps import compare_parameters, padded_batch, renamer, small_model, train_steps

RENAMES = [("encoder.embedding.", "model.embedding_layer.embedding."), ("encoder.", "model.enc.rnn."),
           ("selector.scorer.", "model.gen_fc."), ("predictor.net.1.", "model.cls_fc."),
           ("selector_norm.", "model.layernorm.")]  # one LayerNorm on both paths: listed once, as selector_norm


reference_name = renamer(RENAMES)


# The reference's embeddings are always frozen (code/model.py Embedding); the embedded corpus's learned
# embeddings are trainable unless told otherwise, so model=fr is composed with them frozen.
CONFIGS = {
    "model_fr": (["model=fr", "embeddings.trainable=false"],
                 dict(lr=1e-4, sparsity_percentage=0.1, sparsity_lambda=12.0, continuity_lambda=10.0, cls_lambda=0.9)),
    "fr_beer_appearance": (["experiment=fr_beer_appearance"],
                           dict(lr=1e-4, sparsity_percentage=0.15, sparsity_lambda=10.0, continuity_lambda=10.0,
                                cls_lambda=0.9)),
}


def check_arguments(specs, a):
    m, losses = specs.model, specs.model["losses"]
    assert (m["lr"], losses["task"]["weight"]) == (a["lr"], a["cls_lambda"])
    assert (losses["sparsity"]["target"], losses["sparsity"]["weight"], losses["continuity"]["weight"]) == \
        (a["sparsity_percentage"], a["sparsity_lambda"], a["continuity_lambda"])
    assert specs.embeddings["trainable"] is False
    # The reference's batching: nn.GRU over a batch padded to 256, random batches.
    assert (m["recurrence"], m["pad_to"], m["bucket"]) == ("padded", 256, False)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_fr_equals_the_reference_on_a_padded_batch(config):
    overrides, a = CONFIGS[config]
    expected = REFERENCE[config]
    model, specs = small_model(overrides, reference_name)
    check_arguments(specs, a)
    assert padded_batch(model).input_ids.shape[1] == 256
    recorder = train_steps(model)
    for step, (got, want) in enumerate(zip(recorder.values, expected["losses"])):
        # train_share: loss = cls_lambda * CE + sparsity_lambda * |rate - s| + continuity_lambda * continuity
        total = a["cls_lambda"] * want["task"] + a["sparsity_lambda"] * want["sparsity"] + \
            a["continuity_lambda"] * want["continuity"]
        for key, value in (("train/loss/task", want["task"]), ("train/loss/sparsity", want["sparsity"]),
                           ("train/loss/continuity", want["continuity"]), ("train/loss", total)):
            assert got[key] == pytest.approx(value, abs=1e-6), (step + 1, key, got[key], value)
    compared = compare_parameters(model, recorder, expected["parameters"], reference_name,
                                  lambda r, step: r.grads[step])
    assert compared == 15  # embeddings (frozen), 8 GRU tensors, two heads, one LayerNorm


def test_batch_longest_width_computes_another_loss():
    """The check above can fail: padded to the batch's longest (12) instead of 256, the padding-counted
    sparsity and continuity of the same batch, weights and draws are others."""
    model, _ = small_model(["model=fr", "embeddings.trainable=false", "model.pad_to=null"], reference_name)
    first = train_steps(model, steps=1).values[0]
    want = REFERENCE["model_fr"]["losses"][0]
    assert first["train/loss/sparsity"] != pytest.approx(want["sparsity"], abs=1e-3)


REFERENCE = {
    'model_fr': {
        "losses": [
            {'task': 0.7123171751336791, 'sparsity': 25.51290322580645, 'continuity': 0.3558823529411765},
            {'task': 0.773870002399837, 'sparsity': 25.641935483870967, 'continuity': 0.34509803921568627},
            {'task': 0.8052781298861447, 'sparsity': 25.9, 'continuity': 0.33725490196078434},
        ],
        # reference parameter: (|grad| step 1, |grad| step 3, sum after 1, norm after 1, sum after 3, norm after 3)
        "parameters": {
            'model.embedding_layer.embedding.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.enc.rnn.weight_ih_l0': (0.6401333993691122, 0.697091170953786, 0.5885174844691937, 4.099002569136056, 0.5885689855515837, 4.099211476259156),
            'model.enc.rnn.weight_hh_l0': (23.227545338801132, 23.433659927655164, 5.412623505048676, 3.809346031015757, 5.412414507473705, 3.8092598787909213),
            'model.enc.rnn.bias_ih_l0': (79.9034783831695, 80.90875199786855, 1.0038807010339297, 1.5638759354407765, 1.0035644411610847, 1.5638394662468857),
            'model.enc.rnn.bias_hh_l0': (42.850209635932565, 43.36167734648962, 2.136915526485005, 1.5994418077603452, 2.1365941962405843, 1.5994385318672746),
            'model.enc.rnn.weight_ih_l0_reverse': (0.5941348192861274, 0.6696730971961764, 9.805858590801721, 3.8730994495074866, 9.803678069927996, 3.8731577071391956),
            'model.enc.rnn.weight_hh_l0_reverse': (33.67357934399649, 33.019257978330614, -0.8864339987503207, 3.1563262435117383, -0.8859906777724638, 3.1563849538600945),
            'model.enc.rnn.bias_ih_l0_reverse': (127.91240697379394, 125.8749658612274, -0.37461633116827925, 1.340018484526211, -0.37364021647461676, 1.3399289893667345),
            'model.enc.rnn.bias_hh_l0_reverse': (87.19739568336412, 85.74790450400405, 3.773711079770779, 1.5503196889167854, 3.774687186185548, 1.5505275478782223),
            'model.gen_fc.weight': (130.7015987201294, 129.5194180787683, 3.6785602331279064, 2.127779277992871, 3.6785602331279064, 2.1274860969718272),
            'model.gen_fc.bias': (76.48745827716346, 76.79046517641248, -0.46652345296468517, 0.34249849954979117, -0.4665234529646851, 0.34242252172494286),
            'model.cls_fc.weight': (0.17874560336144027, 0.41112010011409017, 1.1963453076780466, 2.431787450236397, 1.1963453076780468, 2.4317929527903455),
            'model.cls_fc.bias': (0.15331448935288128, 0.27902428066477514, -0.4871517214538476, 0.5904535833130232, -0.48715172145384766, 0.5902256314928914),
            'model.layernorm.weight': (77.57451909457946, 77.1235227574632, -0.0519797519785859, 1.2039868454631752, -0.05183599104027986, 1.2038055335777396),
            'model.layernorm.bias': (106.29828480589777, 105.47859147191447, -1.2219611607126137, 1.1044021449162065, -1.2219620324383946, 1.1040877384664523),
        },
    },
    'fr_beer_appearance': {
        "losses": [
            {'task': 0.7123171751336791, 'sparsity': 25.462903225806453, 'continuity': 0.3558823529411765},
            {'task': 0.7738782777369506, 'sparsity': 25.59193548387097, 'continuity': 0.34509803921568627},
            {'task': 0.8052671700305201, 'sparsity': 25.85, 'continuity': 0.33725490196078434},
        ],
        # reference parameter: (|grad| step 1, |grad| step 3, sum after 1, norm after 1, sum after 3, norm after 3)
        "parameters": {
            'model.embedding_layer.embedding.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.enc.rnn.weight_ih_l0': (0.5389799180455149, 0.5857407659191582, 0.5883174820141681, 4.099035538025454, 0.588395296815959, 4.099238933339723),
            'model.enc.rnn.weight_hh_l0': (19.34669186209885, 19.52035534121159, 5.412423517430536, 3.8093281476572947, 5.412082692688957, 3.809220222833595),
            'model.enc.rnn.bias_ih_l0': (66.54103635627736, 67.40026907953118, 1.0038807012398916, 1.5638759353675342, 1.0035877701771607, 1.5638186969173573),
            'model.enc.rnn.bias_hh_l0': (35.68354458208809, 36.12132012008245, 2.1369155266913875, 1.5994418078097654, 2.1366193006965064, 1.599448559092174),
            'model.enc.rnn.weight_ih_l0_reverse': (0.5185031365152942, 0.5991185049367916, 9.805858593722974, 3.8730994495304514, 9.80365243501608, 3.873156969711357),
            'model.enc.rnn.weight_hh_l0_reverse': (28.031407526092845, 27.50828960735691, -0.8864339991653577, 3.1563262434965083, -0.8858634769177413, 3.1563738450016805),
            'model.enc.rnn.bias_ih_l0_reverse': (106.47207643226163, 104.85138482482445, -0.37461633116737125, 1.3400184845259686, -0.3736963911358484, 1.3399179046207825),
            'model.enc.rnn.bias_hh_l0_reverse': (72.56975998444047, 71.43015305817963, 3.7737110797716773, 1.5503196889171003, 3.7746310094706343, 1.5505107802931457),
            'model.gen_fc.weight': (108.83483554938691, 107.85670298265958, 3.6785602331279064, 2.127779277992891, 3.678560233127906, 2.1274860978795274),
            'model.gen_fc.bias': (63.688661651853586, 63.93606282675668, -0.46652345296468517, 0.3424984995497926, -0.4665234529646851, 0.34242252190771927),
            'model.cls_fc.weight': (0.17874560336144027, 0.4111067170349144, 1.1963453076780466, 2.431787450236397, 1.1963453076780468, 2.4317929548030133),
            'model.cls_fc.bias': (0.15331448935288128, 0.2790071320039509, -0.4871517214538476, 0.5904535833130232, -0.4871517214538476, 0.5902256304784862),
            'model.layernorm.weight': (64.591322468298, 64.2011587330577, -0.05197975197814886, 1.2039868454633544, -0.05180781852905236, 1.2038155349178532),
            'model.layernorm.bias': (88.51320168804111, 87.80689691477282, -1.2219611607126035, 1.1044021449162496, -1.2219621429161647, 1.104087828502977),
        },
    },
}
