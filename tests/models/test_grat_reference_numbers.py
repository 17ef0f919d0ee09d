"""G-RAT's registered defaults against numbers the reference code computed, on one padded batch.

How the constants below were produced: github.com/shuaibo919/g-rat at commit
746113e8d462a97d7389005898323b68bd5bd15c, its own training loop ``train_utils.train_guide(model, optimizer,
guider, guider_optimizer, loader, cpu, configs, train_model=True)`` (the rationaliser phase, epoch >= 10 of
run_guide.py: guider step, then rationaliser step, with the annealer) for three batches, each the same batch:
the four documents of tests/reference_draws.py (12, 9, 7 and 3 tokens, padded to the longest, 12, as its
collate does), ``GuidanceBasedRationaleModule`` and ``GuidanceModule`` (model/model_st.py,
model/common/modules.py) with vocabulary 20, embeddings 6, hidden 8, dropout 0.2, noise sigma 1, in float64,
every weight ``values(name, shape)`` by the reference's parameter name (one embedding matrix
``values("embedding")`` given to both as ``pretrained_embedding``), Adam as run_guide.py builds it, and
dropout, Gumbel and normal draws replaced by ``fixed_draws``. The arguments were those of our composed
settings (below); the recording wrapped ``calculate_loss`` (the values it reports) and ``optimizer.step``
(gradient norms before, parameter sums and norms after). The reference's code is not part of this repository.
"""
from __future__ import annotations

import pytest
from reference_steps import compare_parameters, renamer, small_model, train_steps

# Ours -> the reference's parameter names (model.: GuidanceBasedRationaleModule, guider.: GuidanceModule).
RENAMES = [
    ("selector_encoder.embedding.", "model.embedding_layer."),  # one table for selector and predictor
    ("selector_encoder.", "model.selector_cell.rnn."), ("predictor_encoder.", "model.predictor_cell.rnn."),
    ("selector.scorer.", "model.selector_head."), ("predictor.net.1.", "model.predictor_head."),
    ("norm.", "model.layer_norm."),
    ("guider.encoder.embedding.", "guider.embedding_layer."), ("guider.encoder.", "guider.in_cell.rnn."),
    ("guider.residual.", "guider.convert_layer."), ("guider.norm.", "guider.layer_norm."),
    ("guider.scorer.", "guider.att_fc."), ("guider.projection.", "guider.prj_fc."),
    ("guider.pool_scorer.", "guider.pooling.attention."), ("guider.classifier.", "guider.out_head."),
]


reference_name = renamer(RENAMES)


# Each configuration: our overrides, and the reference arguments they amount to (run_guide.py names).
CONFIGS = {
    # model=grat on the embedded corpus: the registered defaults with the corpus preset's schedule
    # (model_dataset/grat_synth_beer.yaml), learned (trainable) embeddings
    "model_grat": (["model=grat"], dict(lr=0.002, sparsity=0.15, sparsity_lambda=2.0, continuity_lambda=2.0,
                                        guide_lambda=10.0, match_lambda=1.5, guide_decay=0.005, weight_decay=2e-6,
                                        fix_embedding=False)),
    # script/beer/guide/a0.sh
    "grat_beer_appearance": (["experiment=grat_beer_appearance"],
                             dict(lr=1e-4, sparsity=0.15, sparsity_lambda=10.0, continuity_lambda=10.0,
                                  guide_lambda=10.0, match_lambda=1.5, guide_decay=1e-5, weight_decay=2e-6,
                                  fix_embedding=True)),
}


def check_arguments(specs, a):
    m = specs.model
    assert (m["lr"], m["decay"], m["weight_decay"]) == (a["lr"], a["guide_decay"], a["weight_decay"])
    losses = m["losses"]
    assert (losses["sparsity"]["target"], losses["sparsity"]["weight"]) == (a["sparsity"], a["sparsity_lambda"])
    assert (losses["continuity"]["weight"], losses["guide"]["weight"], losses["match"]["weight"]) == \
        (a["continuity_lambda"], a["guide_lambda"], a["match_lambda"])
    assert specs.embeddings["trainable"] is not a["fix_embedding"]
    # The reference's batching: nn.GRU over the padded batch, padded to its longest, random batches.
    assert (m["recurrence"], m["pad_to"], m["bucket"], m["shared_embeddings"]) == ("padded", None, False, True)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_grat_equals_the_reference_on_a_padded_batch(config):
    overrides, arguments = CONFIGS[config]
    expected = REFERENCE[config]
    model, specs = small_model(overrides, reference_name)
    check_arguments(specs, arguments)
    assert model.predictor_encoder.embedding is model.selector_encoder.embedding
    model.pretrain_epochs = 0  # the recorded steps are the rationaliser phase (run_guide.py: epoch >= 10)
    recorder = train_steps(model)
    assert padded_width(model) == 12
    s = specs.model["losses"]["sparsity"]["target"]
    for step, (got, want) in enumerate(zip(recorder.values, expected["losses"])):
        pairs = {"guider": ("train/guider_loss", want["guider"]), "task": ("train/loss/task", want["task"]),
                 "sparsity": ("train/loss/sparsity", abs(want["rate"] - s)),
                 "continuity": ("train/loss/continuity", want["continuity"]),
                 "guide": ("train/loss/guide", want["guide"]), "match": ("train/loss/match", want["match"]),
                 "total": ("train/loss", want["total"])}
        for term, (key, value) in pairs.items():
            assert got[key] == pytest.approx(value, abs=1e-6), (step + 1, term, got[key], value)
    # Two optimisers per batch: the guider's step, then the rationaliser's.
    compared = compare_parameters(model, recorder, expected["parameters"], reference_name,
                                  lambda r, step: {**r.grads[2 * step], **r.grads[2 * step + 1]})
    assert compared == 50  # 23 rationaliser parameters (one embedding table), 27 of the guider


def test_our_packed_layout_computes_another_loss_on_the_same_batch():
    """The check above can fail: with ``layout=packed`` (GRU within each length, padded states zeroed) the
    same batch, weights and draws give another task loss and selection rate than the reference."""
    model, _ = small_model(["model=grat", "layout=packed"], reference_name)
    model.pretrain_epochs = 0
    first = train_steps(model, steps=1).values[0]
    want = REFERENCE["model_grat"]["losses"][0]
    assert first["train/guider_loss"] != pytest.approx(want["guider"], abs=1e-3)
    assert first["train/loss"] != pytest.approx(want["total"], abs=1e-3)


def padded_width(model):
    from reference_steps import padded_batch

    return padded_batch(model).input_ids.shape[1]


REFERENCE = {
    'model_grat': {
        "losses": [
            {'guider': 0.6098735897271363, 'task': 0.8221751761947574, 'rate': 1.2258064516129032, 'continuity': 0.3181818181818182, 'guide': 1.0511852808733602, 'match': 0.027912208493841417, 'total': 14.122004524517802, 'annealing': 1.0},
            {'guider': 0.7544717491551611, 'task': 1.1244499170842188, 'rate': 1.1935483870967742, 'continuity': 0.45454545454545453, 'guide': 1.0251892667679219, 'match': 0.06130727512365437, 'total': 14.372530268047896, 'annealing': 1.0},
            {'guider': 0.844891258848412, 'task': 1.1810902423407255, 'rate': 1.096774193548387, 'continuity': 0.5227272727272727, 'guide': 0.9504645703574992, 'match': 0.0791686554693799, 'total': 13.577809414865182, 'annealing': 0.995},
        ],
        # reference parameter: (|grad| step 1, |grad| step 3, sum after 1, norm after 1, sum after 3, norm after 3)
        "parameters": {
            'guider.embedding_layer.weight': (0.052518884053803006, 0.05436867184529227, -4.177704864466761, 5.851826228931797, -4.226554417293965, 5.847311313119242),
            'guider.convert_layer.weight': (0.07503233582177221, 0.06757934698724932, -1.0477789375503905, 3.200315488868748, -1.071974315961135, 3.1971750680260316),
            'guider.convert_layer.bias': (0.0433059230329764, 0.07064316576774342, -1.536952798263059, 1.1004788589019376, -1.5189624329784797, 1.0937104940654756),
            'guider.in_cell.rnn.weight_ih_l0': (0.013891900484985563, 0.015083048240236412, 0.800473641901606, 4.281393073909246, 0.7669182600376144, 4.281837316214316),
            'guider.in_cell.rnn.weight_hh_l0': (0.003944321987022206, 0.004491552163913289, -2.140183248381163, 3.960033295068964, -2.142117156156095, 3.952146196781),
            'guider.in_cell.rnn.bias_ih_l0': (0.006921607470625582, 0.010542736748145574, -0.9686564003502374, 1.9440999255795932, -0.9609317852577961, 1.947457193920912),
            'guider.in_cell.rnn.bias_hh_l0': (0.004054656977991394, 0.006466480483918442, -1.009671704844212, 1.8132181521569286, -1.0014828925068922, 1.8072926433450096),
            'guider.in_cell.rnn.weight_ih_l0_reverse': (0.05512453625637524, 0.04820054354479905, -3.1762236482091355, 3.74702425761622, -3.192026133996868, 3.7559391488499196),
            'guider.in_cell.rnn.weight_hh_l0_reverse': (0.028242672650937172, 0.04160999578087905, 0.6573963179575877, 3.5278393194455693, 0.6374130973169343, 3.53002992192137),
            'guider.in_cell.rnn.bias_ih_l0_reverse': (0.03195268783010872, 0.05119673487692781, 3.1032063399515297, 2.1898447856900836, 3.095232906410956, 2.185845137884603),
            'guider.in_cell.rnn.bias_hh_l0_reverse': (0.025553811744990933, 0.03672817066972223, 3.233656465800463, 1.9690710512246934, 3.2252872901661314, 1.9639358168810273),
            'guider.att_fc.0.weight': (0.02334906124865258, 0.013014107110130187, 3.6305296783585135, 3.9326794971731998, 3.6305537580601506, 3.9351584832208313),
            'guider.att_fc.0.bias': (0.005042130797331658, 0.0046412797321933146, -2.1013230969327505, 1.7049166972046972, -2.1022295674582305, 1.7075774069272884),
            'guider.att_fc.2.weight': (0.007590950809023869, 0.00756148972926867, 0.5038578020543978, 1.3435323811076763, 0.5045741620857822, 1.3461441046961147),
            'guider.att_fc.2.bias': (8.673617379884035e-19, 8.673617379884035e-18, -0.7670706438361862, 0.7670706438361862, -0.7630970290914412, 0.7630970290914412),
            'guider.prj_fc.weight': (0.07372211673589742, 0.07178816191442265, -3.802602234395239, 3.826277483869543, -3.8019502457425687, 3.82542317772792),
            'guider.prj_fc.bias': (0.2819793710413977, 0.5524440115527256, -0.13242956857922306, 1.043104977932287, -0.1402317659082666, 1.0482529999308807),
            'guider.pooling.attention.0.weight': (0.001969350371556408, 0.008684134519510845, 6.040339810595336, 3.6660904311665172, 6.063874456744204, 3.6625355865256757),
            'guider.pooling.attention.0.bias': (0.0006251589498400054, 0.003362255904259359, -0.5115984172251956, 1.8402073175091487, -0.5160981485260601, 1.8427388371076656),
            'guider.pooling.attention.1.weight': (0.001266937609458852, 0.007391969804283069, 0.47736864100549636, 1.2394639301903607, 0.4821513225458401, 1.2448879330586267),
            'guider.pooling.attention.1.bias': (0.0009734470564791159, 0.0069052563128063375, 1.1940383875615665, 0.6863600996780054, 1.1921863833460165, 0.6889175399379007),
            'guider.pooling.attention.3.weight': (0.0012879413096912287, 0.00780993025979738, 0.01758021639904092, 1.1005783021832796, 0.012635761741409651, 1.0981390987339656),
            'guider.pooling.attention.3.bias': (3.382710778154774e-17, 7.112366251504909e-17, -0.18628330295873446, 0.18628330295873446, -0.18238963275654374, 0.18238963275654374),
            'guider.out_head.weight': (0.3183876917196295, 0.4733398630162717, 0.18692270887878987, 1.586147560092755, 0.18692274991171087, 1.5804727598283215),
            'guider.out_head.bias': (0.2123244428789907, 0.30959018033305946, 0.9270020553555633, 0.6573832103755659, 0.9270020550041586, 0.6578366498334798),
            'guider.layer_norm.weight': (0.45064716756546497, 0.43032459283330904, -1.176567827228184, 1.366566495967399, -1.1633272733217785, 1.3648979294366486),
            'guider.layer_norm.bias': (0.3519872382393733, 0.39596448151814484, 0.5638890984061298, 1.2684205417040415, 0.5775679936861643, 1.2656893345030122),
            'model.embedding_layer.weight': (0.5254271508949816, 0.5880068884618328, -4.225697968539864, 5.8543290508919865, -4.374317188665925, 5.8494845237014905),
            'model.selector_cell.rnn.weight_ih_l0': (0.49070710724633976, 0.3958316500478245, -6.309873487938144, 4.305900075623861, -6.2986640248542525, 4.309673977949494),
            'model.selector_cell.rnn.weight_hh_l0': (0.9201674195411494, 0.8641154962590976, -4.232855554891012, 3.4016446019463165, -4.238776162224057, 3.4064185131883598),
            'model.selector_cell.rnn.bias_ih_l0': (2.422255362913056, 2.242668665512878, -0.04643321038971665, 1.6700456586111543, -0.0308592870193099, 1.669876688192785),
            'model.selector_cell.rnn.bias_hh_l0': (1.395964953923761, 1.2815059121891854, -0.7848097224965174, 1.9620149684774613, -0.7692316254287456, 1.9585170951569522),
            'model.selector_cell.rnn.weight_ih_l0_reverse': (0.43945018611894154, 0.27346645050858326, -4.801302156081434, 4.256008361359379, -4.78598560987337, 4.255436321200202),
            'model.selector_cell.rnn.weight_hh_l0_reverse': (0.9029314684981927, 0.7808276321362069, 0.4454106113952436, 3.5382051022992207, 0.41578114162601176, 3.537211610486099),
            'model.selector_cell.rnn.bias_ih_l0_reverse': (2.333018077647975, 2.023798522969881, -1.031468948371617, 1.9723530734371983, -1.0397205439362345, 1.96968527960214),
            'model.selector_cell.rnn.bias_hh_l0_reverse': (1.3457606027858542, 1.1731242752171747, -1.0943080711185336, 1.8842826562210822, -1.1025378727259987, 1.883070170965625),
            'model.predictor_cell.rnn.weight_ih_l0': (0.07771998431052593, 0.09373299956760954, 4.426122007341176, 4.257171780367611, 4.446667071901556, 4.258200961253122),
            'model.predictor_cell.rnn.weight_hh_l0': (0.038978117272855446, 0.040608841179455846, -4.9644922339171815, 3.4494515388760814, -4.956396658577035, 3.447228724027421),
            'model.predictor_cell.rnn.bias_ih_l0': (0.14888701003223112, 0.2220102037677377, 0.2115283225631921, 1.4109475366154345, 0.20213349810734726, 1.4173250676623221),
            'model.predictor_cell.rnn.bias_hh_l0': (0.06672414483029815, 0.12920765147535546, 1.1394805066259972, 1.4536689713261366, 1.1299772831672354, 1.4533201279923713),
            'model.predictor_cell.rnn.weight_ih_l0_reverse': (0.16568499206911905, 0.278140512280121, 4.183208876952193, 4.147372096479537, 4.204548501462515, 4.146813428471912),
            'model.predictor_cell.rnn.weight_hh_l0_reverse': (0.07635006781612233, 0.2210001668967309, -1.1445658711822526, 3.5884307578117727, -1.1543920916316122, 3.5843467877059),
            'model.predictor_cell.rnn.bias_ih_l0_reverse': (0.16611935411041756, 0.37356217170802203, 6.178484732865516, 2.6837106281904903, 6.176072871103091, 2.6827605578507083),
            'model.predictor_cell.rnn.bias_hh_l0_reverse': (0.11139399266221632, 0.2566150404126998, -1.1495467350957835, 2.749701820458835, -1.1460708870960938, 2.7496223417280685),
            'model.selector_head.weight': (10.368858925529752, 9.245638370194017, 0.4091247296975503, 1.4901270715116688, 0.40924583597622716, 1.4914483349701937),
            'model.selector_head.bias': (4.103624077984363, 3.60819039868195, 0.4079861924585985, 0.7713519222171583, 0.40798679292873097, 0.7661323568393169),
            'model.predictor_head.weight': (1.3711103420573125, 1.562410787479923, 3.9059293102497845, 2.380500894946952, 3.9059292871014435, 2.379330062327825),
            'model.predictor_head.bias': (0.439921358892484, 0.589411293509518, 1.2605630504291645, 0.892229788774209, 1.2605630501944407, 0.8924983928198057),
            'model.layer_norm.weight': (5.760169218815884, 5.05512396295921, 0.48620706561040106, 1.3164755627892364, 0.48974434991932525, 1.3164324413808923),
            'model.layer_norm.bias': (5.220509271301015, 4.5124472512904, 1.8569021168532212, 1.8380253390299093, 1.8487401349522934, 1.8352255618978068),
        },
    },
    'grat_beer_appearance': {
        "losses": [
            {'guider': 0.6098735897271363, 'task': 0.8221751761947574, 'rate': 1.2258064516129032, 'continuity': 0.3181818181818182, 'guide': 1.05153170154483, 'match': 0.02584131380001963, 'total': 25.277374889590273, 'annealing': 1.0},
            {'guider': 0.7670121643250956, 'task': 1.1411013145685702, 'rate': 1.1935483870967742, 'continuity': 0.45454545454545453, 'guide': 1.0391237655805838, 'match': 0.05487052428004725, 'total': 26.513277386796695, 'annealing': 1.0},
            {'guider': 0.8651639538114612, 'task': 1.199234935243716, 'rate': 1.1290322580645162, 'continuity': 0.4772727272727273, 'guide': 0.9782777701290204, 'match': 0.06869771847242295, 'total': 25.54496569259512, 'annealing': 0.99999},
        ],
        # reference parameter: (|grad| step 1, |grad| step 3, sum after 1, norm after 1, sum after 3, norm after 3)
        "parameters": {
            'guider.embedding_layer.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'guider.convert_layer.weight': (0.07503233582177221, 0.0659333580245871, -1.036379087606681, 3.2031156754241175, -1.0377101636263792, 3.2029580270448843),
            'guider.convert_layer.bias': (0.0433059230329764, 0.07975870158188282, -1.5445527577278404, 1.1044731615059407, -1.5436322298234755, 1.1041392226013849),
            'guider.in_cell.rnn.weight_ih_l0': (0.013891900484985563, 0.014507670467508834, 0.8194691186413187, 4.28180932957597, 0.8178481168373913, 4.281833381693281),
            'guider.in_cell.rnn.weight_hh_l0': (0.003944321987022206, 0.004979942505682435, -2.1401850449849293, 3.96432563204372, -2.140130884732563, 3.9639293755835587),
            'guider.in_cell.rnn.bias_ih_l0': (0.006921607470625582, 0.012025268337782533, -0.9724566199964384, 1.9445896246691092, -0.9720685724475313, 1.9447573655856791),
            'guider.in_cell.rnn.bias_hh_l0': (0.004054656977991394, 0.00731729500587634, -1.017271800459263, 1.8151745048557033, -1.0168636494544874, 1.8148730172931387),
            'guider.in_cell.rnn.weight_ih_l0_reverse': (0.05512453625637524, 0.04958600668902322, -3.164824440140573, 3.7441791648633522, -3.1655323151812276, 3.744612558732049),
            'guider.in_cell.rnn.weight_hh_l0_reverse': (0.028242672650937172, 0.04463715846308065, 0.664994331139118, 3.5258771200328645, 0.6640378605062609, 3.525985269375437),
            'guider.in_cell.rnn.bias_ih_l0_reverse': (0.03195268783010872, 0.05813893837173479, 3.114606002987408, 2.1931701788997655, 3.1142033866167944, 2.1929687013549217),
            'guider.in_cell.rnn.bias_hh_l0_reverse': (0.025553811744990933, 0.04108781930714376, 3.2450561084644916, 1.973340516068594, 3.2446360956271487, 1.9730835114495793),
            'guider.att_fc.0.weight': (0.02334906124865258, 0.012939649597966386, 3.6343292001346073, 3.929900675011301, 3.6341452868278425, 3.930018359016914),
            'guider.att_fc.0.bias': (0.005042130797331658, 0.003808021210534773, -2.0975231162032912, 1.7023417906805887, -2.097609948822294, 1.702486260922684),
            'guider.att_fc.2.weight': (0.007590950809023869, 0.008700690770037984, 0.5076577126082098, 1.34269420841564, 0.5077291465093894, 1.3428189051391346),
            'guider.att_fc.2.bias': (8.673617379884035e-19, 5.204170427930421e-18, -0.7689583708496965, 0.7689583708496965, -0.7687596640942645, 0.7687596640942645),
            'guider.prj_fc.weight': (0.07372211673589742, 0.07544601068405703, -3.795002301553573, 3.827360473384225, -3.7950623561914067, 3.827301509971091),
            'guider.prj_fc.bias': (0.2819793710413977, 0.6051139502278764, -0.12862956985587282, 1.0404256683066124, -0.12902057999221667, 1.040676070150929),
            'guider.pooling.attention.0.weight': (0.001969350371556408, 0.008732466632620693, 6.032697303956582, 3.667800503761958, 6.033796541098191, 3.6676037175862),
            'guider.pooling.attention.0.bias': (0.0006251589498400054, 0.003388541893579053, -0.5077984537966613, 1.8393977347147343, -0.5080278628616177, 1.8395338432625068),
            'guider.pooling.attention.1.weight': (0.001266937609458852, 0.007309714761899202, 0.4773687921528513, 1.2351195543169273, 0.4776150343883381, 1.235391469624958),
            'guider.pooling.attention.1.bias': (0.0009734470564791159, 0.007165739356010192, 1.1978116592258905, 0.6861844436276541, 1.1977471188980782, 0.6863148314450512),
            'guider.pooling.attention.3.weight': (0.0012879413096912287, 0.007643876132506793, 0.01758975271448554, 1.1028352556692553, 0.017321276405551006, 1.1027125120528183),
            'guider.pooling.attention.3.bias': (3.382710778154774e-17, 5.898059818321144e-17, -0.18813413914504382, 0.18813413914504382, -0.18793932107058053, 0.18793932107058053),
            'guider.out_head.weight': (0.3183876917196295, 0.5118934750119681, 0.18692270887853207, 1.5889084070642978, 0.1869227101473151, 1.5886147275640108),
            'guider.out_head.bias': (0.2123244428789907, 0.3351237068941971, 0.9270020553555649, 0.6571848621615276, 0.9270020553270583, 0.6572051921421928),
            'guider.layer_norm.weight': (0.45064716756546497, 0.46565835503372555, -1.1803678127031398, 1.3646414465486056, -1.1796875526729007, 1.3645476263727758),
            'guider.layer_norm.bias': (0.3519872382393733, 0.42440048492652654, 0.5524891153208064, 1.2682097745946248, 0.5531731913804832, 1.2680710783864038),
            'model.embedding_layer.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.selector_cell.rnn.weight_ih_l0': (0.7807097069828768, 0.5616269323021645, -6.326473460955739, 4.303203656718215, -6.327764271497468, 4.303422172190055),
            'model.selector_cell.rnn.weight_hh_l0': (1.1739173903256148, 1.1092744193493318, -4.236855431258479, 3.399468919591645, -4.237359327369889, 3.399678708133749),
            'model.selector_cell.rnn.bias_ih_l0': (3.260367322047636, 2.923532530003856, -0.05423319852572994, 1.6703245786417802, -0.053535480753832576, 1.670326273189595),
            'model.selector_cell.rnn.bias_hh_l0': (1.8888070894108504, 1.7063212851480472, -0.7926097104567702, 1.9634379011048115, -0.7919115887472352, 1.9632307209807724),
            'model.selector_cell.rnn.weight_ih_l0_reverse': (0.830716176160462, 0.5777311176026757, -4.8164999958999895, 4.2557363425615105, -4.815057635933462, 4.25567316305871),
            'model.selector_cell.rnn.weight_hh_l0_reverse': (1.427797007915022, 1.230156165826707, 0.45661066547440576, 3.537784121898067, 0.4550069756700683, 3.5376247491112784),
            'model.selector_cell.rnn.bias_ih_l0_reverse': (3.676606907207628, 3.1854361820071686, -1.0280689412152118, 1.9740703013673566, -1.0288973098751713, 1.9741225048538389),
            'model.selector_cell.rnn.bias_hh_l0_reverse': (2.0987355934101335, 1.8145816852797627, -1.0909080640067248, 1.8847567272985213, -1.0917320551433451, 1.8847042246493462),
            'model.predictor_cell.rnn.weight_ih_l0': (0.07771998431052593, 0.09394455325502526, 4.448920775737816, 4.255916871702038, 4.449919996180338, 4.255958609594898),
            'model.predictor_cell.rnn.weight_hh_l0': (0.038978117272855446, 0.04080287392568432, -4.968292276841474, 3.4522565411743464, -4.967886774967305, 3.4521426808756432),
            'model.predictor_cell.rnn.bias_ih_l0': (0.14888701003223112, 0.22478370631467234, 0.21912829859464789, 1.40824377417155, 0.21864228004817643, 1.4085526826341925),
            'model.predictor_cell.rnn.bias_hh_l0': (0.06672414483029815, 0.1301350284970209, 1.1470804775728642, 1.4542521689614807, 1.1465889879959863, 1.4542292064089184),
            'model.predictor_cell.rnn.weight_ih_l0_reverse': (0.16568499206911905, 0.27266058527713777, 4.168008370091517, 4.147413826178332, 4.1690698844303675, 4.147380798413212),
            'model.predictor_cell.rnn.weight_hh_l0_reverse': (0.07635006781612233, 0.2188099209653623, -1.121765716318806, 3.591259804909717, -1.1222424520159522, 3.591052592491288),
            'model.predictor_cell.rnn.bias_ih_l0_reverse': (0.16611935411041756, 0.36503956951569794, 6.18608473766699, 2.6839069224078167, 6.185956887317126, 2.683856863039615),
            'model.predictor_cell.rnn.bias_hh_l0_reverse': (0.11139399266221632, 0.2524300335563402, -1.145746719425944, 2.751340484647645, -1.1455746538437532, 2.751334255483551),
            'model.selector_head.weight': (14.63173590221817, 13.26458495016437, 0.40912472942817607, 1.489560611035387, 0.40913488993296654, 1.489617995831096),
            'model.selector_head.bias': (5.935287464137297, 5.243356013280033, 0.407986192505356, 0.7738445751339496, 0.40798581291955943, 0.7735832041756605),
            'model.predictor_head.weight': (1.3711103420573125, 1.5791058182605353, 3.9059293102500083, 2.380184179103367, 3.9059293091192813, 2.3801214932817807),
            'model.predictor_head.bias': (0.439921358892484, 0.5939702635026428, 1.2605630504291652, 0.8921147128152358, 1.2605630504166991, 0.8921264411151325),
            'model.layer_norm.weight': (8.241882688277153, 7.302595295231042, 0.48220706569046773, 1.3158521376627297, 0.4821648868590852, 1.3158813789709436),
            'model.layer_norm.bias': (7.853728024148789, 6.921189931420209, 1.8609021167525832, 1.8394771983886335, 1.8608947014129165, 1.8395009392968567),
        },
    },
}
