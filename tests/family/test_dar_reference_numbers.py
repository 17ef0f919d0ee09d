"""DAR's registered defaults and its published-run setting against numbers the reference code computed, on one
padded batch: the phase that trains the rationaliser against the frozen teacher.

How the constants below were produced: github.com/jugechengzi/dar at commit
2729ed266756522b83312a60212a9d44fb09b958, its own loop ``train_util.py train_share(model, optimizer, loader,
cpu, args, writer, teacher)``, as ``teacher_beer.py`` calls it once the teacher is pre-trained, for three
batches, each the same batch: the four documents of tests/reference_draws.py (12, 9, 7 and 3 tokens) padded to
256 as ``beer.py`` pads (``max_length=256``), ``model.py GenEncNoShareModel`` (``--share 0``, the default) and
``model.py Teacher`` with vocabulary 20, embeddings 6, hidden 8, one GRU layer, dropout 0.2, in float64, every
weight ``values(name, shape)`` by the reference's parameter name (``model.<name>``, ``teacher.<name>``; the
frozen embedding matrix ``values("embedding")`` for both), the teacher in train mode and outside the optimiser
(``torch.load(...).train()``, ``Adam(model.parameters())``), dropout and Gumbel draws replaced by
``fixed_draws``. Arguments: ``model_dar``: teacher_beer.py's argparse defaults (lr 1e-4, s 0.1, λs 12, λc 10,
cls_lambda = tea_lambda = 0.9); ``dar_beer_appearance``: its readme line (``--dropout 0.2 --lr 0.0001
--sparsity_percentage 0.167 --sparsity_lambda 11 --continuity_lambda 12``). The recording wrapped
``F.cross_entropy`` (the predictor's, then the teacher's), ``get_sparsity_loss``, ``get_continuity_loss``,
``Tensor.backward`` (the total) and ``optimizer.step`` (gradient norms before, parameter sums and norms after).
The teacher's weights are fixed here rather than pre-trained: what is checked is the rationaliser's phase.
The reference's code is not part of this repository.
"""
from __future__ import annotations

import pytest
from reference_steps import compare_parameters, padded_batch, renamer, small_model, train_steps

RENAMES = [("selector_encoder.embedding.", "model.embedding_layer.embedding."),
           ("predictor_encoder.embedding.", "model.embedding_layer.embedding."),
           ("auxiliary_encoder.embedding.", "model.embedding_layer.embedding."),
           ("selector_encoder.", "model.gen.rnn."), ("predictor_encoder.", "model.cls.rnn."),
           ("auxiliary_encoder.", "teacher.tea.rnn."),
           ("selector.scorer.", "model.gen_fc."), ("predictor.net.1.", "model.cls_fc."),
           ("auxiliary_predictor.net.1.", "teacher.fc."),
           ("selector_norm.", "model.layernorm1."), ("predictor_norm.", "model.layernorm2."),
           ("auxiliary_norm.", "teacher.layernorm.")]


reference_name = renamer(RENAMES)


# The reference's embeddings are always frozen (model.py Embedding).
CONFIGS = {
    "model_dar": (["model=dar", "embeddings.trainable=false"],
                  dict(lr=1e-4, sparsity_percentage=0.1, sparsity_lambda=12.0, continuity_lambda=10.0,
                       cls_lambda=0.9, tea_lambda=0.9)),
    "dar_beer_appearance": (["experiment=dar_beer_appearance"],
                            dict(lr=1e-4, sparsity_percentage=0.167, sparsity_lambda=11.0, continuity_lambda=12.0,
                                 cls_lambda=0.9, tea_lambda=0.9)),
}


def check_arguments(specs, a):
    m, losses = specs.model, specs.model["losses"]
    assert (m["lr"], losses["task"]["weight"], losses["auxiliary_task"]["weight"]) == \
        (a["lr"], a["cls_lambda"], a["tea_lambda"])
    assert (losses["sparsity"]["target"], losses["sparsity"]["weight"], losses["continuity"]["weight"]) == \
        (a["sparsity_percentage"], a["sparsity_lambda"], a["continuity_lambda"])
    assert m["auxiliary_mode"] == "train"  # the reference's teacher keeps its dropout on
    assert specs.embeddings["trainable"] is False
    assert (m["recurrence"], m["pad_to"], m["bucket"]) == ("padded", 256, False)


def rationaliser_phase(overrides):
    """Our model with the teacher's weights set and frozen, as after its pre-training; three steps. No
    pre-training epochs: the first epoch's start freezes the teacher with the weights it was given."""
    model, specs = small_model(overrides, reference_name)
    model.auxiliary_epochs = 0
    return model, specs, train_steps(model)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_dar_equals_the_reference_on_a_padded_batch(config):
    overrides, a = CONFIGS[config]
    expected = REFERENCE[config]
    model, specs, recorder = rationaliser_phase(overrides)
    check_arguments(specs, a)
    assert padded_batch(model).input_ids.shape[1] == 256
    for step, (got, want) in enumerate(zip(recorder.values, expected["losses"])):
        task, teacher, sparsity, continuity, total = want
        # train_share: cls_lambda·CE + λs·|rate - s| + λc·continuity + tea_lambda·CE(teacher(Z))
        assert total == pytest.approx(a["cls_lambda"] * task + a["sparsity_lambda"] * sparsity
                                      + a["continuity_lambda"] * continuity + a["tea_lambda"] * teacher, abs=1e-9)
        for key, value in (("train/loss/task", task), ("train/loss/auxiliary_task", teacher),
                           ("train/loss/sparsity", sparsity), ("train/loss/continuity", continuity),
                           ("train/loss", total)):
            assert got[key] == pytest.approx(value, abs=1e-6), (step + 1, key, got[key], value)
    assert len(recorder.grads) == 3  # one rationaliser step per batch; the teacher is never stepped
    compared = compare_parameters(model, recorder, expected["parameters"], reference_name,
                                  lambda r, step: r.grads[step])
    assert compared == len(expected["parameters"])


def test_a_teacher_without_dropout_computes_other_numbers():
    """The check above can fail: with the frozen teacher in eval mode (``auxiliary_mode=eval``, a named
    departure) the teacher's loss on the same batch, weights and draws is another."""
    model, _, recorder = rationaliser_phase(["model=dar", "embeddings.trainable=false", "model.auxiliary_mode=eval"])
    want = REFERENCE["model_dar"]["losses"][0][1]
    assert abs(recorder.values[0]["train/loss/auxiliary_task"] - want) > 1e-3


def test_packed_layout_computes_other_numbers():
    """Under ``layout=packed`` (each row read within its length, padded to the batch's longest) the
    padding-counted sparsity of the same batch, weights and draws is another."""
    _, _, recorder = rationaliser_phase(["model=dar", "embeddings.trainable=false", "layout=packed"])
    assert abs(recorder.values[0]["train/loss/sparsity"] - REFERENCE["model_dar"]["losses"][0][2]) > 1.0


REFERENCE = {
    'model_dar': {
        # per batch: (predictor CE, teacher CE on the rationale, |rate - s| over the padded width,
        # continuity, the total)
        "losses": [
            (0.7109310815784303, 1.3326199651830715, 22.029032258064515, 0.45098039215686275, 270.6973869604281),
            (0.8259041440614376, 1.3768122376576324, 21.416129032258063, 0.4980392156862745, 263.95638528750675),
            (0.9321601528652251, 1.1816808894908144, 22.125806451612902, 0.4196078431372549, 271.6082127888478),
        ],
        # |grad| before steps 1 and 3, (sum, norm) after steps 1 and 3; the teacher: never stepped
        "parameters": {
            'model.embedding_layer.embedding.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.gen.rnn.weight_ih_l0': (0.3268907455924911, 0.3571082031493397, -6.668377603309059, 3.964906484134784, -6.666770687633324, 3.9648369818655826),
            'model.gen.rnn.weight_hh_l0': (18.33348229786672, 18.37599736814477, -3.1224605027178924, 3.69904050867644, -3.122498487055873, 3.6988593645955468),
            'model.gen.rnn.bias_ih_l0': (31.00471165537769, 30.94048242689611, 1.633720506442821, 1.6136195886313542, 1.6337557164285754, 1.6134897646763122),
            'model.gen.rnn.bias_hh_l0': (21.816527436937516, 21.913486918873733, 1.7244768016213174, 1.6619836063041646, 1.724511832576847, 1.661970655088208),
            'model.gen.rnn.weight_ih_l0_reverse': (0.28744253506772927, 0.2893124185730272, 2.542334335683949, 4.536417690064255, 2.5434534466890915, 4.536315647996798),
            'model.gen.rnn.weight_hh_l0_reverse': (18.153667083445075, 18.21728756680655, -6.095469388751989, 3.921183722003939, -6.09598818933696, 3.92114793622863),
            'model.gen.rnn.bias_ih_l0_reverse': (31.90586827864629, 32.010867447815315, -2.552138353982402, 2.3244521142133396, -2.552494042935484, 2.324880179614683),
            'model.gen.rnn.bias_hh_l0_reverse': (15.832265070658838, 15.864812096059723, 0.756304843850042, 1.9576249701939588, 0.75594911711065, 1.9576586976357888),
            'model.cls.rnn.weight_ih_l0': (0.10220084177791602, 0.060067827187044176, 2.1408437653151076, 4.377891068528354, 2.1411660234045216, 4.377758098136735),
            'model.cls.rnn.weight_hh_l0': (0.028001131403961464, 0.03708584476546081, 2.413444841466757, 3.4607042995795982, 2.4128406295993177, 3.460724834137058),
            'model.cls.rnn.bias_ih_l0': (0.03018482648106044, 0.0596874925064372, -0.48011608992493526, 1.8823559109512675, -0.4802121166791956, 1.8823779070026),
            'model.cls.rnn.bias_hh_l0': (0.027484009790291884, 0.03110616749553824, -4.759079260444761, 2.2643411709728265, -4.759074755900195, 2.26437344700326),
            'model.cls.rnn.weight_ih_l0_reverse': (0.19200079519412777, 0.1195372073733386, -3.113697776311258, 3.771854898339563, -3.113284768666563, 3.7719117419428243),
            'model.cls.rnn.weight_hh_l0_reverse': (0.044275961581869985, 0.07688000404532835, -0.8123208421519282, 3.8876135325721326, -0.8111328184314206, 3.887658422308086),
            'model.cls.rnn.bias_ih_l0_reverse': (0.058750894817390015, 0.326961969004258, -0.7064934144100299, 1.4447425627222248, -0.7067246203640327, 1.4448054608619314),
            'model.cls.rnn.bias_hh_l0_reverse': (0.03863590186793171, 0.13344209619598227, 1.3911797032132611, 1.622348105839672, 1.3909016983053473, 1.6221974022427261),
            'model.gen_fc.weight': (155.52737301189714, 149.89510535017388, 3.6785602331279064, 2.1278636322558433, 3.678560233127906, 2.1277393436427747),
            'model.gen_fc.bias': (88.31728474854248, 86.97695068510956, -0.4665234529646851, 0.3424984995497902, -0.4665234529646851, 0.34242256824828776),
            'model.cls_fc.weight': (0.3010733603741285, 0.7746310011295392, 1.1963453076780473, 2.4319253291858463, 1.196345307678047, 2.4318432253624866),
            'model.cls_fc.bias': (0.05936102495158334, 0.3533629509242161, -0.48715172145384755, 0.5906833277288491, -0.4871517214538476, 0.5908921704645158),
            'model.layernorm1.weight': (188.41199036043992, 184.4544553075248, -0.8284664965412043, 1.6429129906034359, -0.8284671975189334, 1.6426238705935647),
            'model.layernorm1.bias': (125.27882496966498, 123.97307339026425, 2.1354663998139127, 1.1790665699624432, 2.135465826451073, 1.1787453292082608),
            'model.layernorm2.weight': (0.5019098202916594, 0.8452094763012112, -0.8924013009480765, 1.3881278739195524, -0.8929033368030348, 1.3881269147211515),
            'model.layernorm2.bias': (0.27265726318303396, 0.8431862062118413, 0.18888270007216285, 1.1389767103363326, 0.18882508229233308, 1.1389524299196154),
            'teacher.tea.rnn.weight_ih_l0': (None, None, -8.497245459362084, 4.009110531126344, -8.497245459362084, 4.009110531126344),
            'teacher.tea.rnn.weight_hh_l0': (None, None, 1.782887986093891, 3.538443157054121, 1.782887986093891, 3.538443157054121),
            'teacher.tea.rnn.bias_ih_l0': (None, None, -0.6091515998521342, 1.4957859516574445, -0.6091515998521342, 1.4957859516574445),
            'teacher.tea.rnn.bias_hh_l0': (None, None, -1.9078874789203732, 2.0435972278355146, -1.9078874789203732, 2.0435972278355146),
            'teacher.tea.rnn.weight_ih_l0_reverse': (None, None, -0.7341046998596186, 4.195574537463223, -0.7341046998596186, 4.195574537463223),
            'teacher.tea.rnn.weight_hh_l0_reverse': (None, None, 4.45295215410019, 3.109429393386357, 4.45295215410019, 3.109429393386357),
            'teacher.tea.rnn.bias_ih_l0_reverse': (None, None, 0.662061685658144, 1.7252623709526684, 0.662061685658144, 1.7252623709526684),
            'teacher.tea.rnn.bias_hh_l0_reverse': (None, None, 0.6795668215400066, 1.9138533397378805, 0.6795668215400066, 1.9138533397378805),
            'teacher.fc.weight': (None, None, -1.974660029526873, 2.10577939051122, -1.974660029526873, 2.10577939051122),
            'teacher.fc.bias': (None, None, 0.2857237337959879, 0.20614888764343806, 0.2857237337959879, 0.20614888764343806),
            'teacher.layernorm.weight': (None, None, -0.788640709662675, 1.091301422002263, -0.788640709662675, 1.091301422002263),
            'teacher.layernorm.bias': (None, None, -1.7577026465112129, 1.2827275744356366, -1.7577026465112129, 1.2827275744356366),
        },
    },
    'dar_beer_appearance': {
        # per batch: (predictor CE, teacher CE on the rationale, |rate - s| over the padded width,
        # continuity, the total)
        "losses": [
            (0.7109310815784303, 1.3326199651830715, 21.962032258064514, 0.45098039215686275, 248.83331548667735),
            (0.8259041440614376, 1.3768122376576324, 21.349129032258062, 0.4980392156862745, 242.7993346866211),
            (0.9321601528652251, 1.1816808894908144, 22.058806451612902, 0.4196078431372549, 249.5846220235094),
        ],
        # |grad| before steps 1 and 3, (sum, norm) after steps 1 and 3; the teacher: never stepped
        "parameters": {
            'model.embedding_layer.embedding.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.gen.rnn.weight_ih_l0': (0.29918929107592773, 0.3269582247830358, -6.668577550443338, 3.9648748274321455, -6.666979477617166, 3.964804270316913),
            'model.gen.rnn.weight_hh_l0': (16.802485189445097, 16.83808925298287, -3.122261042384469, 3.699052766205627, -3.122298752665329, 3.6988715729945993),
            'model.gen.rnn.bias_ih_l0': (28.41204371853407, 28.347258719839548, 1.6337205064664997, 1.6136195886322726, 1.6337558278717663, 1.6134897802347858),
            'model.gen.rnn.bias_hh_l0': (19.994336988910355, 20.079113503487154, 1.7244768016449634, 1.6619836063049152, 1.7245119429411098, 1.6619707641549895),
            'model.gen.rnn.weight_ih_l0_reverse': (0.2624553855011298, 0.2639926816802343, 2.542334335921445, 4.536417690072938, 2.543429431846377, 4.5363148878491275),
            'model.gen.rnn.weight_hh_l0_reverse': (16.64031557424405, 16.691156513319537, -6.095469389093207, 3.9211837220087187, -6.095988328067797, 3.9211478738573518),
            'model.gen.rnn.bias_ih_l0_reverse': (29.24561683610116, 29.328495584564084, -2.5521383539488345, 2.3244521142081442, -2.5524932893437047, 2.3248801933854844),
            'model.gen.rnn.bias_hh_l0_reverse': (14.512500885713813, 14.535668595434123, 0.7563048438835575, 1.957624970183958, 0.7559498719003407, 1.957658671797077),
            'model.cls.rnn.weight_ih_l0': (0.10220084177791602, 0.060067827187044176, 2.1408437653151076, 4.377891068528354, 2.1411660234045216, 4.377758098136735),
            'model.cls.rnn.weight_hh_l0': (0.028001131403961464, 0.03708584476546081, 2.413444841466757, 3.4607042995795982, 2.4128406295993177, 3.460724834137058),
            'model.cls.rnn.bias_ih_l0': (0.03018482648106044, 0.0596874925064372, -0.48011608992493526, 1.8823559109512675, -0.4802121166791956, 1.8823779070026),
            'model.cls.rnn.bias_hh_l0': (0.027484009790291884, 0.03110616749553824, -4.759079260444761, 2.2643411709728265, -4.759074755900195, 2.26437344700326),
            'model.cls.rnn.weight_ih_l0_reverse': (0.19200079519412777, 0.1195372073733386, -3.113697776311258, 3.771854898339563, -3.113284768666563, 3.7719117419428243),
            'model.cls.rnn.weight_hh_l0_reverse': (0.044275961581869985, 0.07688000404532835, -0.8123208421519282, 3.8876135325721326, -0.8111328184314206, 3.887658422308086),
            'model.cls.rnn.bias_ih_l0_reverse': (0.058750894817390015, 0.326961969004258, -0.7064934144100299, 1.4447425627222248, -0.7067246203640327, 1.4448054608619314),
            'model.cls.rnn.bias_hh_l0_reverse': (0.03863590186793171, 0.13344209619598227, 1.3911797032132611, 1.622348105839672, 1.3909016983053473, 1.6221974022427261),
            'model.gen_fc.weight': (142.52507944812263, 137.30652056191494, 3.6785602331279064, 2.1278636322559543, 3.678560233127906, 2.127739344007697),
            'model.gen_fc.bias': (80.92214728704116, 79.67739917846065, -0.4665234529646852, 0.34249849954979084, -0.46652345296468517, 0.3424225687267369),
            'model.cls_fc.weight': (0.3010733603741285, 0.7746310011295392, 1.1963453076780473, 2.4319253291858463, 1.196345307678047, 2.4318432253624866),
            'model.cls_fc.bias': (0.05936102495158334, 0.3533629509242161, -0.48715172145384755, 0.5906833277288491, -0.4871517214538476, 0.5908921704645158),
            'model.layernorm1.weight': (172.63606949279256, 168.99933342602597, -0.8284664965413189, 1.6429129906035282, -0.8284671989271729, 1.6426238772305346),
            'model.layernorm1.bias': (114.79401408798114, 113.58107487080561, 2.135466399813844, 1.179066569962477, 2.1354658223619265, 1.1787453306346956),
            'model.layernorm2.weight': (0.5019098202916594, 0.8452094763012112, -0.8924013009480765, 1.3881278739195524, -0.8929033368030348, 1.3881269147211515),
            'model.layernorm2.bias': (0.27265726318303396, 0.8431862062118413, 0.18888270007216285, 1.1389767103363326, 0.18882508229233308, 1.1389524299196154),
            'teacher.tea.rnn.weight_ih_l0': (None, None, -8.497245459362084, 4.009110531126344, -8.497245459362084, 4.009110531126344),
            'teacher.tea.rnn.weight_hh_l0': (None, None, 1.782887986093891, 3.538443157054121, 1.782887986093891, 3.538443157054121),
            'teacher.tea.rnn.bias_ih_l0': (None, None, -0.6091515998521342, 1.4957859516574445, -0.6091515998521342, 1.4957859516574445),
            'teacher.tea.rnn.bias_hh_l0': (None, None, -1.9078874789203732, 2.0435972278355146, -1.9078874789203732, 2.0435972278355146),
            'teacher.tea.rnn.weight_ih_l0_reverse': (None, None, -0.7341046998596186, 4.195574537463223, -0.7341046998596186, 4.195574537463223),
            'teacher.tea.rnn.weight_hh_l0_reverse': (None, None, 4.45295215410019, 3.109429393386357, 4.45295215410019, 3.109429393386357),
            'teacher.tea.rnn.bias_ih_l0_reverse': (None, None, 0.662061685658144, 1.7252623709526684, 0.662061685658144, 1.7252623709526684),
            'teacher.tea.rnn.bias_hh_l0_reverse': (None, None, 0.6795668215400066, 1.9138533397378805, 0.6795668215400066, 1.9138533397378805),
            'teacher.fc.weight': (None, None, -1.974660029526873, 2.10577939051122, -1.974660029526873, 2.10577939051122),
            'teacher.fc.bias': (None, None, 0.2857237337959879, 0.20614888764343806, 0.2857237337959879, 0.20614888764343806),
            'teacher.layernorm.weight': (None, None, -0.788640709662675, 1.091301422002263, -0.788640709662675, 1.091301422002263),
            'teacher.layernorm.bias': (None, None, -1.7577026465112129, 1.2827275744356366, -1.7577026465112129, 1.2827275744356366),
        },
    },
}
