"""Inter-RAT's registered defaults against numbers the reference code computed, on one padded batch.

How the constants below were produced: github.com/yuelinan/Codes-of-Inter-RAT at commit
416f63ce570a40f054d9f214f6452505a23d0091. Its ``model.py`` was imported unchanged and its class ``InterRAT``
built with ``embed_dim`` 6, ``lstm_hidden_dim`` 8 (a bidirectional GRU of 2 x 4), one layer, ``class_num`` 2,
``alpha_rationle`` 0.2, ``abs`` 1, ``dataset_type`` "beer" (the prior 0.05 / 0.95; "movie": 0.5 / 0.5), on CPU
with torch's default dtype float64; its embedding an ``nn.Embedding`` holding ``values("embedding")``, frozen
(``train.py``: ``vectors.weight.requires_grad = False``), every other weight ``values(name, shape)`` by the
reference's parameter name (tests/reference_draws.py). Then three iterations of ``train.py``'s loop body, as
written, on the four documents of tests/reference_draws.py padded with 0 to their longest (12, as
``utils.py seq2tensor``; ``sent_len`` the documents' lengths): ``optimizer.zero_grad()``, the forward, loss =
CE + 0.05 ``infor_loss`` + 0.01 ``regular`` (``run.sh``: ``--infor_loss 0.05 --regular 0.01``), backward,
``step()`` of ``optim.Adam(model.parameters(), lr=0.001, weight_decay=0)``, in train mode, under
``fixed_draws`` (``MaskGRU``'s two dropouts of 0.2 and the Gumbel sample). The recording read the CE and the
model's ``infor_loss`` and ``regular`` after each forward, every parameter's gradient norm before each step and
its sum and norm after it. The reference's code is not part of this repository.

``extract_encoder`` and ``Transformation_first`` are built by ``InterRAT`` but used by no forward (no gradient;
we have no counterpart). The reference's ``mask`` is ``float32`` (``torch.sign(documents).float()``), so its
``mask.sum(1) + 1e-8`` loses the eps there; ours keeps it in float64, a difference of 7e-11 in the sparsity term.
"""
from __future__ import annotations

import pytest
from reference_steps import compare_parameters, padded_batch, renamer, small_model, train_steps

RENAMES = [("selector_encoder.embedding.", "embs."), ("selector_encoder.", "encoder.gru_module."),
           ("predictor_encoder.embedding.", "embs."), ("predictor_encoder.", "re_encoder.gru_module."),
           ("selector.scorer.", "x_2_prob_z."), ("predictor.net.1.", "ChargeClassifier."),
           ("confounder.entries.", "lab_embed_layer."), ("confounder.projection.", "label2label.")]
reference_name = renamer(RENAMES)
UNUSED = ("extract_encoder.", "Transformation_first.")
#: The experiments' embeddings (frozen GloVe); the embedding group is not part of the model's configuration.
FROZEN = "embeddings.trainable=false"


def used(expected):
    return {name: value for name, value in expected.items() if not name.startswith(UNUSED)}


def test_registered_defaults_are_the_references():
    _, specs = small_model(["model=inter_rat", FROZEN], reference_name)
    m, losses = specs.model, specs.model["losses"]
    assert (m["lr"], m["weight_decay"], m["lr_decay"], m["min_lr"]) == (1e-3, 0.0, 0.97, 5e-5)
    assert (m["encoder_dropout"], m["encoder_output_dropout"], m["recurrence"], m["bucket"], m["pad_to"]) == \
        (0.2, False, "padded", False, None)
    assert (m["selector"]["name"], m["selector"]["evaluation"], m["predictor"]["dropout"]) == ("gumbel", "sample", 0.0)
    assert (losses["sparsity"]["name"], losses["sparsity"]["weight"], losses["sparsity"]["target"],
            losses["sparsity"]["penalty"]) == ("document_sparsity", 0.05, 0.2, "abs")
    assert (losses["continuity"]["name"], losses["continuity"]["weight"]) == ("document_continuity", 0.01)
    assert m["confounder"]["prior"] == [0.05, 0.95] and m["confounder"]["projected_keys"] == ["selector"]
    assert m["rationale_pool"] == "sum_per_kept"


@pytest.mark.parametrize("name, dataset, batch, sparsity, prior", [
    ("inter_rat_beer_appearance", "beer", 256, 0.05, [0.05, 0.95]),  # run.sh, first block
    ("inter_rat_movies", "movies", 16, 0.01, None),  # run.sh, the commented block (dataset_type=movie)
])
def test_the_experiments_are_run_sh(name, dataset, batch, sparsity, prior):
    """run.sh: lr 0.001, embed_dim 100 (frozen GloVe), lstm_hidden_dim 200, 20 epochs, alpha_rationle 0.2,
    regular 0.01; utils.py: at most 300 (Beer) or 1024 (movies) words."""
    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import resolve_specs

    specs = resolve_specs(compose_config([f"experiment={name}"]))
    m, losses = specs.model, specs.model["losses"]
    assert (specs.dataset["name"], specs.trainer["batch_size"], specs.trainer["max_epochs"]) == (dataset, batch, 20)
    assert specs.dataset["max_length"] == (300 if dataset == "beer" else 1024)
    assert (specs.embeddings["trainable"], specs.embeddings["vocabulary"]) == (False, "vectors")
    assert (specs.backbone["hidden_size"], m["lr"], m["confounder"]["prior"]) == (200, 1e-3, prior)
    assert (losses["sparsity"]["weight"], losses["sparsity"]["target"], losses["continuity"]["weight"]) == \
        (sparsity, 0.2, 0.01)
    if dataset == "beer":
        assert (specs.dataset["aspect"], specs.dataset["variant"], specs.dataset["balance"]) == \
            ("appearance", "correlated", False)


@pytest.mark.parametrize("overrides, losses, expected", [
    ([], "beer", "beer"),
    (["model.confounder.prior=null"], "movie", "movie"),  # dataset_type "movie": the uniform prior
])
def test_inter_rat_equals_the_reference_on_a_padded_batch(overrides, losses, expected):
    model, _ = small_model(["model=inter_rat", FROZEN, *overrides], reference_name)
    assert padded_batch(model).input_ids.shape[1] == 12
    recorder = train_steps(model)
    want_losses = {"beer": BEER_LOSSES, "movie": MOVIE_LOSSES}[losses]
    for step, (got, want) in enumerate(zip(recorder.values, want_losses)):
        for term, value in want.items():
            assert got[f"train/loss/{term}"] == pytest.approx(value, abs=1e-9), (step + 1, term)
    assert len(recorder.grads) == 3  # one optimiser step per batch
    expected = used({"beer": BEER, "movie": MOVIE}[expected])
    assert compare_parameters(model, recorder, expected, reference_name,
                              lambda recorder, step: recorder.grads[step], tolerance=1e-9) == len(expected)


def test_the_check_can_fail_with_a_max_pooled_rationale():
    """The same batch and draws with the predictor max-pooling its states (``rationale_pool=max``) give the
    predictor's head another gradient in the first step."""
    model, _ = small_model(["model=inter_rat", FROZEN, "model.rationale_pool=max"], reference_name)
    recorder = train_steps(model, steps=1)
    assert recorder.grads[0]["predictor.net.1.weight"] != pytest.approx(BEER["ChargeClassifier.weight"][0], abs=1e-4)


BEER_LOSSES = [
    {'task': 4.240094557696513, 'sparsity': 0.2, 'continuity': 0.0},
    {'task': 4.183531614265801, 'sparsity': 0.2, 'continuity': 0.0},
    {'task': 4.127492780925477, 'sparsity': 0.14345238095238097, 'continuity': 0.12878787860766758},
]
# reference parameter: (|grad| step 1, |grad| step 3, sum after 1, norm after 1, sum after 3, norm after 3)
BEER = {
    'embs.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
    'encoder.gru_module.weight_ih_l0': (1.039944648847615, 3.2734408622765803, 1.6160378537429354, 4.140797536128424, 1.61895782398966, 4.142659599836241),
    'encoder.gru_module.weight_hh_l0': (0.48094617083806745, 1.34970259261373, -1.3270153917173868, 3.485291256123673, -1.3222249897756546, 3.4837178113461977),
    'encoder.gru_module.bias_ih_l0': (1.5851563164775757, 3.5874859380294746, 1.079184444597383, 1.473356170599583, 1.0787344969514563, 1.4717388746954787),
    'encoder.gru_module.bias_hh_l0': (1.0041568508505898, 2.108183305550603, 1.7833421301845624, 2.0392250011588584, 1.7828722040042129, 2.0381304077341045),
    'encoder.gru_module.weight_ih_l0_reverse': (0.5040357363470505, 1.25300613045473, -11.700907948928958, 4.430689462820542, -11.702406621689963, 4.430905829049494),
    'encoder.gru_module.weight_hh_l0_reverse': (0.18490704424632207, 0.4138088448402107, -1.6158220588269432, 3.2581384897214583, -1.6199819740827388, 3.257636739447133),
    'encoder.gru_module.bias_ih_l0_reverse': (0.7161502987230189, 1.6025606202509888, -0.08903868815788346, 2.0088089600599908, -0.08881747638499088, 2.008632223924486),
    'encoder.gru_module.bias_hh_l0_reverse': (0.43556184876848164, 0.9380804565980376, 2.159438839518974, 2.1645329583951773, 2.1597287496546906, 2.1641296183646355),
    'x_2_prob_z.weight': (1.631561615008304, 3.650360413573339, 3.0242033489588422, 2.8984298126532964, 3.024203348958842, 2.894499141576716),
    'x_2_prob_z.bias': (1.5991237660918673, 3.5304151326897224, -0.2383110315661217, 0.6765736367696991, -0.2383110315661217, 0.6739423845094766),
    'label2label.weight': (0.6219630342703204, 1.3954704456736786, 2.7436545124363225, 3.920821139683849, 2.743786703725608, 3.9220839528480593),
    'label2label.bias': (4.163336342344337e-17, 1.3597399555105182e-16, 0.3512314533712959, 0.7597848575964364, 0.35123145336255307, 0.7597848576003233),
    'extract_encoder.weight_ih_l0': (None, None, 4.512221286872903, 3.660481449347439, 4.512221286872903, 3.660481449347439),
    'extract_encoder.weight_hh_l0': (None, None, -1.094119988339532, 3.274343884072156, -1.094119988339532, 3.274343884072156),
    'extract_encoder.bias_ih_l0': (None, None, 1.087618438992899, 1.4229670179222014, 1.087618438992899, 1.4229670179222014),
    'extract_encoder.bias_hh_l0': (None, None, 1.9845198841310752, 1.7095949097327188, 1.9845198841310752, 1.7095949097327188),
    'extract_encoder.weight_ih_l0_reverse': (None, None, 0.08100121696842577, 3.78102916473565, 0.08100121696842577, 3.78102916473565),
    'extract_encoder.weight_hh_l0_reverse': (None, None, -4.071630902539988, 3.6712216832653826, -4.071630902539988, 3.6712216832653826),
    'extract_encoder.bias_ih_l0_reverse': (None, None, -0.7203400405470779, 1.5059959153013687, -0.7203400405470779, 1.5059959153013687),
    'extract_encoder.bias_hh_l0_reverse': (None, None, 0.320077699136871, 2.3176849335248626, 0.320077699136871, 2.3176849335248626),
    're_encoder.gru_module.weight_ih_l0': (0.0, 8.974506540202793e-05, -0.39721833498076986, 4.312692259025723, -0.3970077833482679, 4.313752884164213),
    're_encoder.gru_module.weight_hh_l0': (1.2033379445151127, 1.1896019958025343, -3.2859810482849907, 2.907136198753514, -3.2764998874464357, 2.9065106562775997),
    're_encoder.gru_module.bias_ih_l0': (4.537776233984417, 4.52873936422116, -0.0897623973224796, 1.0000116453683845, -0.08976683160275901, 0.9949778613192004),
    're_encoder.gru_module.bias_hh_l0': (2.253316052120845, 2.242683836849297, -1.0504472101254183, 1.1416667403118872, -1.0504519631576406, 1.138701620359582),
    're_encoder.gru_module.weight_ih_l0_reverse': (0.0, 0.00015284908117807515, 7.845041345371719, 3.6870284955132844, 7.845162615156553, 3.6868535382150505),
    're_encoder.gru_module.weight_hh_l0_reverse': (1.9049513126884061, 1.8899408784348812, 1.5498157124862237, 3.648338605842871, 1.5484284530915886, 3.6476411815120513),
    're_encoder.gru_module.bias_ih_l0_reverse': (6.4053592665955845, 6.351477845306322, -1.973290516092535, 1.399630260717027, -1.9733374483866442, 1.3977513375922337),
    're_encoder.gru_module.bias_hh_l0_reverse': (2.5912838100750415, 2.576675874378787, 0.7555478566710703, 2.11135670927375, 0.7555014357556258, 2.110694897638959),
    'ChargeClassifier.weight': (4.456403897657452, 4.430259815863635, -2.0490959382239007, 3.4773408407308426, -2.049095938223901, 3.4749600185279004),
    'ChargeClassifier.bias': (0.6974907351115178, 0.6963139804309788, 0.6423435098881792, 0.4809342063565765, 0.6423435098881791, 0.48187136705812844),
    'lab_embed_layer.weight': (1.7495364774715803, 3.4933541983088943, -1.8318053108791672, 1.8676712836840217, -1.8282832551391097, 1.8649804451421284),
    'Transformation_first.weight': (None, None, -0.48892043644437555, 3.6831889967487617, -0.48892043644437555, 3.6831889967487617),
    'Transformation_first.bias': (None, None, 0.6051182137609445, 1.277863120787453, 0.6051182137609445, 1.277863120787453),
}


MOVIE_LOSSES = [
    {'task': 4.35321295638564, 'sparsity': 0.14345238095238097, 'continuity': 0.08712121201044536},
    {'task': 4.2982873149030105, 'sparsity': 0.2, 'continuity': 0.0},
    {'task': 4.243883352833483, 'sparsity': 0.14345238095238097, 'continuity': 0.12878787860766758},
]
# reference parameter: (|grad| step 1, |grad| step 3, sum after 1, norm after 1, sum after 3, norm after 3)
MOVIE = {
    'embs.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
    'encoder.gru_module.weight_ih_l0': (1.2877546315505592, 3.7373347699109143, 1.6160378750647209, 4.1407975393287515, 1.6200503878207746, 4.142480673003823),
    'encoder.gru_module.weight_hh_l0': (0.6037671816509015, 1.6048889900092296, -1.3250153627631458, 3.485567994103946, -1.3200776054117402, 3.4839475895188268),
    'encoder.gru_module.bias_ih_l0': (2.0713174023162266, 4.311211370759154, 1.0791844447753858, 1.4733561705156153, 1.0797368793269821, 1.4715058198272175),
    'encoder.gru_module.bias_hh_l0': (1.2930434119913445, 2.5705655994929915, 1.7833421303557504, 2.0392250010676216, 1.7838725234434405, 2.0380047339328318),
    'encoder.gru_module.weight_ih_l0_reverse': (0.6851987330166822, 1.611156908424205, -11.702907794781138, 4.43079317397941, -11.704842162870385, 4.431123223097803),
    'encoder.gru_module.weight_hh_l0_reverse': (0.2550493106225985, 0.5293816779273829, -1.615822046562268, 3.2581384986482522, -1.619649556325513, 3.2576809769020545),
    'encoder.gru_module.bias_ih_l0_reverse': (1.0324536033189768, 2.0831195024228246, -0.08903869090867866, 2.00880896264935, -0.09157932059985174, 2.0101280926459677),
    'encoder.gru_module.bias_hh_l0_reverse': (0.5853762473365364, 1.1538477267247238, 2.159438836961222, 2.164532957328412, 2.1569611366129977, 2.1633953165959636),
    'x_2_prob_z.weight': (2.0826054283520725, 4.294405047573082, 3.0242033489588422, 2.8984298129274424, 3.0242033489588422, 2.8944583407456737),
    'x_2_prob_z.bias': (2.1192923401866888, 4.296060367266423, -0.23831103156612166, 0.676573636766726, -0.2383110315661216, 0.6739156031593938),
    'label2label.weight': (0.3217230518928735, 0.6703852727042121, 2.7436545124120375, 3.920821139706296, 2.74377926808533, 3.922096035451503),
    'label2label.bias': (3.3993498887762956e-17, 9.205483015737869e-17, 0.3512314533671326, 0.7597848575964132, 0.35123145338054623, 0.7597848575808585),
    'extract_encoder.weight_ih_l0': (None, None, 4.512221286872903, 3.660481449347439, 4.512221286872903, 3.660481449347439),
    'extract_encoder.weight_hh_l0': (None, None, -1.094119988339532, 3.274343884072156, -1.094119988339532, 3.274343884072156),
    'extract_encoder.bias_ih_l0': (None, None, 1.087618438992899, 1.4229670179222014, 1.087618438992899, 1.4229670179222014),
    'extract_encoder.bias_hh_l0': (None, None, 1.9845198841310752, 1.7095949097327188, 1.9845198841310752, 1.7095949097327188),
    'extract_encoder.weight_ih_l0_reverse': (None, None, 0.08100121696842577, 3.78102916473565, 0.08100121696842577, 3.78102916473565),
    'extract_encoder.weight_hh_l0_reverse': (None, None, -4.071630902539988, 3.6712216832653826, -4.071630902539988, 3.6712216832653826),
    'extract_encoder.bias_ih_l0_reverse': (None, None, -0.7203400405470779, 1.5059959153013687, -0.7203400405470779, 1.5059959153013687),
    'extract_encoder.bias_hh_l0_reverse': (None, None, 0.320077699136871, 2.3176849335248626, 0.320077699136871, 2.3176849335248626),
    're_encoder.gru_module.weight_ih_l0': (0.00011199841637068475, 8.182076049657541e-05, -0.3989636160243095, 4.312058617090337, -0.40211974793686833, 4.312216331695914),
    're_encoder.gru_module.weight_hh_l0': (1.2262126351407359, 1.2124399410340914, -3.2859810303683465, 2.9071361984283848, -3.2765876250226693, 2.906512384860381),
    're_encoder.gru_module.bias_ih_l0': (4.592075383004898, 4.5850498912657915, -0.08976239715511994, 1.0000116453807382, -0.08976643816339956, 0.9949777236929604),
    're_encoder.gru_module.bias_hh_l0': (2.301494052402962, 2.291346072072547, -1.0504472099549194, 1.1416667403363416, -1.0504515645476165, 1.1387016163688226),
    're_encoder.gru_module.weight_ih_l0_reverse': (3.917897595843182e-05, 0.00013916677068492845, 7.842698417702179, 3.6875885202600567, 7.84039232740867, 3.6880282809981106),
    're_encoder.gru_module.weight_hh_l0_reverse': (1.9105638849783746, 1.8955420072548723, 1.5498157884293626, 3.6483385914236846, 1.5486349057296849, 3.6476541461072447),
    're_encoder.gru_module.bias_ih_l0_reverse': (6.500670335790893, 6.446682368546374, -1.973290516003178, 1.3996302607169124, -1.9733365424974252, 1.397751311005026),
    're_encoder.gru_module.bias_hh_l0_reverse': (2.6018839722202585, 2.5871823308908084, 0.7555478567601273, 2.1113567092681196, 0.7555023400817367, 2.1106948156581224),
    'ChargeClassifier.weight': (4.444544127759018, 4.4182060804891785, -2.0490959382239002, 3.477340840595969, -2.0490959382239002, 3.474960063826673),
    'ChargeClassifier.bias': (0.699216403304889, 0.698314151577678, 0.6423435098881791, 0.4809342063565997, 0.6423435098881792, 0.48187137629698373),
    'lab_embed_layer.weight': (1.5598193901958302, 3.1385550103979787, -1.8298053107390244, 1.8683572461491549, -1.8239436465769645, 1.8667011291382256),
    'Transformation_first.weight': (None, None, -0.48892043644437555, 3.6831889967487617, -0.48892043644437555, 3.6831889967487617),
    'Transformation_first.bias': (None, None, 0.6051182137609445, 1.277863120787453, 0.6051182137609445, 1.277863120787453),
}
