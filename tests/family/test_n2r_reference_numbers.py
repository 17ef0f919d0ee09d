"""N2R's registered defaults against numbers the reference code computed, on one padded batch.

How the constants below were produced: github.com/jugechengzi/Rationalization-N2R at commit
3576d4aabc06e760e4d5ebea4476e3a33be3fed0, its own training loops ``train_util.py train_pred_mochang`` (N2R+RNP,
as ``mochang.py`` runs it) and ``train_pred_mochang_withoutacc`` (N2R alone, ``mochang_noacc.py``) for three
batches, each the same batch: the four documents of tests/reference_draws.py (12, 9, 7 and 3 tokens) padded to
256 as ``beer.py`` pads, ``model.py Mochangmodel`` with vocabulary 20, embeddings 6, hidden 8, dropout 0.2, in
float64, every weight ``values(name, shape)`` by the reference's parameter name (the frozen embedding matrix
``values("embedding")``), ``mochang.py``'s one Adam with two groups (the generator; every other parameter, both
at lr, ``--dis_lr 0``), dropout and Gumbel draws replaced by ``fixed_draws``, torch 2.13 on CPU. The arguments
were ``mochang.py``'s argparse defaults (lr 1e-4, s 0.1, λs 12, λc 10, cls_lambda 0.9, mochang_lambda 1) and the
README's Beer-Appearance lines (s 0.125, λs 11, λc 12). Each batch steps twice: phase 1 (all parts), phase 2
(the predictor frozen: no gradient, not stepped). The recording wrapped ``F.cross_entropy``,
``get_sparsity_loss``, ``get_continuity_loss``, the ``torch.norm`` of the norm term (the term recorded as
-mean(log(1e-6 + norm))) and ``optimizer.step`` (gradient norms before, parameter sums and norms after); phase 1's
step is listed as our two optimisers' (predictor: ``cls``, ``cls_fc``; generator: ``gen``, ``gen_fc``,
``layernorm1``). The reference's code is not part of this repository.
"""
from __future__ import annotations

import pytest
from reference_steps import check_two_phase_steps, padded_batch, renamer, small_model, train_steps

RENAMES = [("selector_encoder.embedding.", "model.embedding_layer.embedding."),
           ("predictor_encoder.embedding.", "model.embedding_layer.embedding."),
           ("selector_encoder.", "model.gen."), ("predictor_encoder.", "model.cls."),
           ("selector.scorer.", "model.gen_fc."), ("predictor.net.1.", "model.cls_fc."),
           ("selector_norm.", "model.layernorm1.")]
# Mochangmodel builds a second LayerNorm that no forward uses.
UNUSED = {"model.layernorm2.weight", "model.layernorm2.bias"}

reference_name = renamer(RENAMES)

CONFIGS = {
    "model_n2r": ["model=n2r", "embeddings.trainable=false"],
    "n2r_beer_appearance": ["experiment=n2r_beer_appearance"],
    "n2r_alone_beer_appearance": ["experiment=n2r_alone_beer_appearance"],
}


@pytest.mark.parametrize("config", list(CONFIGS))
def test_n2r_equals_the_reference_on_a_padded_batch(config):
    model, specs = small_model(CONFIGS[config], reference_name)
    assert (specs.model["recurrence"], specs.model["pad_to"], specs.model["bucket"]) == ("padded", 256, False)
    assert padded_batch(model).input_ids.shape[1] == 256
    recorder = train_steps(model)
    check_two_phase_steps(model, recorder, REFERENCE[config], reference_name, unused=UNUSED)


def test_the_detached_phase_one_is_another_step():
    """The check above can fail: N2R alone's phase 1 (the predictor reads the rationale detached) gives the
    selector other gradients than N2R+RNP's on the same batch, weights and draws."""
    model, _ = small_model(["model=n2r", "embeddings.trainable=false", "model.phase1_detached=true"], reference_name)
    recorder = train_steps(model, steps=1)
    theirs = REFERENCE["model_n2r"]["gradients"][1][1]
    ours = {reference_name(n): g for n, g in recorder.grads[1].items()}
    assert ours["model.gen_fc.weight"] != pytest.approx(theirs["model.gen_fc.weight"], abs=1e-3)


REFERENCE = {
    'model_n2r': {
        "losses": [
            {'phase1_sparsity': 19.706451612903223, 'phase1_continuity': 0.48627450980392156, 'task': 0.6953851763129559, 'sparsity': 18.86774193548387, 'continuity': 0.5225490196078432, 'norm': -0.43301186923569635},
            {'phase1_sparsity': 19.674193548387095, 'phase1_continuity': 0.4598039215686274, 'task': 0.8204399691854123, 'sparsity': 19.125806451612902, 'continuity': 0.5029411764705882, 'norm': -0.4832770564623426},
            {'phase1_sparsity': 19.287096774193547, 'phase1_continuity': 0.4764705882352941, 'task': 0.5840471033000285, 'sparsity': 19.416129032258063, 'continuity': 0.4715686274509804, 'norm': -0.4370118903611616},
        ],
        "gradients": [
            ('predictor', {'model.cls.weight_ih_l0': 0.14237068268197114, 'model.cls.weight_hh_l0': 0.016233679898667194, 'model.cls.bias_ih_l0': 0.06364800739995, 'model.cls.bias_hh_l0': 0.014069824357288823, 'model.cls.weight_ih_l0_reverse': 0.2100004571255635, 'model.cls.weight_hh_l0_reverse': 0.06377825093566303, 'model.cls.bias_ih_l0_reverse': 0.15001737376909816, 'model.cls.bias_hh_l0_reverse': 0.07288839972128716, 'model.cls_fc.weight': 0.21719805450359733, 'model.cls_fc.bias': 0.03118820642459846}),
            ('generator', {'model.gen.weight_ih_l0': 0.8799846997458691, 'model.gen.weight_hh_l0': 32.67518068265949, 'model.gen.bias_ih_l0': 88.87106972235438, 'model.gen.bias_hh_l0': 51.15814119783216, 'model.gen.weight_ih_l0_reverse': 0.46142216344843445, 'model.gen.weight_hh_l0_reverse': 16.11903827703047, 'model.gen.bias_ih_l0_reverse': 54.467015162399576, 'model.gen.bias_hh_l0_reverse': 17.706474059038673, 'model.gen_fc.weight': 243.0106838594935, 'model.gen_fc.bias': 91.83440629876712, 'model.layernorm1.weight': 129.8342595848428, 'model.layernorm1.bias': 130.43999557217776}),
            ('generator', {'model.gen.weight_ih_l0': 0.9322432399080861, 'model.gen.weight_hh_l0': 32.54781802199009, 'model.gen.bias_ih_l0': 88.39294623841005, 'model.gen.bias_hh_l0': 50.8652139719968, 'model.gen.weight_ih_l0_reverse': 0.4202015030865312, 'model.gen.weight_hh_l0_reverse': 15.705000802485287, 'model.gen.bias_ih_l0_reverse': 53.47677042413987, 'model.gen.bias_hh_l0_reverse': 17.26199425150697, 'model.gen_fc.weight': 237.8130439375264, 'model.gen_fc.bias': 90.82039840717906, 'model.layernorm1.weight': 125.04996404588876, 'model.layernorm1.bias': 126.84638541353962}),
            ('predictor', {'model.cls.weight_ih_l0': 0.22299016009758918, 'model.cls.weight_hh_l0': 0.027130313020003967, 'model.cls.bias_ih_l0': 0.09069843795490615, 'model.cls.bias_hh_l0': 0.0300289782256443, 'model.cls.weight_ih_l0_reverse': 0.08732443670264377, 'model.cls.weight_hh_l0_reverse': 0.08631984414870571, 'model.cls.bias_ih_l0_reverse': 0.1251781897904944, 'model.cls.bias_hh_l0_reverse': 0.060345540800868576, 'model.cls_fc.weight': 0.3547149311432374, 'model.cls_fc.bias': 0.10967414378887445}),
            ('generator', {'model.gen.weight_ih_l0': 1.0855419094317553, 'model.gen.weight_hh_l0': 32.67273402388068, 'model.gen.bias_ih_l0': 88.6571472001562, 'model.gen.bias_hh_l0': 50.940157821347164, 'model.gen.weight_ih_l0_reverse': 0.499043852815177, 'model.gen.weight_hh_l0_reverse': 15.90111842535849, 'model.gen.bias_ih_l0_reverse': 53.75469422165778, 'model.gen.bias_hh_l0_reverse': 17.532893149595807, 'model.gen_fc.weight': 240.1644801635556, 'model.gen_fc.bias': 91.87069746247107, 'model.layernorm1.weight': 129.42533998994276, 'model.layernorm1.bias': 130.50851240750922}),
            ('generator', {'model.gen.weight_ih_l0': 0.9573560027679155, 'model.gen.weight_hh_l0': 31.621576367251393, 'model.gen.bias_ih_l0': 85.4582539448409, 'model.gen.bias_hh_l0': 49.28108356891221, 'model.gen.weight_ih_l0_reverse': 0.4317528412554942, 'model.gen.weight_hh_l0_reverse': 15.618632157320771, 'model.gen.bias_ih_l0_reverse': 52.798696627984974, 'model.gen.bias_hh_l0_reverse': 17.169510573845244, 'model.gen_fc.weight': 238.22684439023863, 'model.gen_fc.bias': 90.62904061775961, 'model.layernorm1.weight': 127.63187725625126, 'model.layernorm1.bias': 126.78332658503643}),
        ],
        "parameters": {
            'model.embedding_layer.embedding.weight': (-4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.gen.weight_ih_l0': (1.6509171403348857, 4.330762181244393, 1.6506439966363362, 4.330049017107563),
            'model.gen.weight_hh_l0': (2.246368996625119, 3.923763827024297, 2.2447201625312925, 3.9236047213812246),
            'model.gen.bias_ih_l0': (1.2704367558204699, 1.2443096708467734, 1.2703887753449, 1.2440986465356751),
            'model.gen.bias_hh_l0': (-0.3460883675691091, 1.6550884607326686, -0.34613633022469603, 1.6549986863894852),
            'model.gen.weight_ih_l0_reverse': (2.08813030459489, 4.007675969757822, 2.0896556929400427, 4.007723888649005),
            'model.gen.weight_hh_l0_reverse': (3.7020436461391504, 3.135454912174631, 3.7000012218249, 3.135079387449425),
            'model.gen.bias_ih_l0_reverse': (0.3447172681743442, 1.9990172449458397, 0.3446102971410938, 1.9986203125566062),
            'model.gen.bias_hh_l0_reverse': (-3.990717093425519, 2.2428387387570514, -3.9908241484108946, 2.2424841790787386),
            'model.cls.weight_ih_l0': (2.50536420807452, 4.138997029849942, 2.504844506634952, 4.138715817095024),
            'model.cls.weight_hh_l0': (-2.750205781195122, 3.529597377794348, -2.749811867800413, 3.5295682862810547),
            'model.cls.bias_ih_l0': (-0.8144533184051822, 1.7609139835923768, -0.8146764043075212, 1.7611456060038013),
            'model.cls.bias_hh_l0': (0.25610443433272306, 1.7443080228007724, 0.2559459984266375, 1.7444238590283623),
            'model.cls.weight_ih_l0_reverse': (-2.4793024548713802, 4.640382075509273, -2.4788118835224875, 4.6402766895252485),
            'model.cls.weight_hh_l0_reverse': (4.727791948956812, 3.489358280937291, 4.726912768612374, 3.4892674667264725),
            'model.cls.bias_ih_l0_reverse': (1.41276319451929, 1.7922841101650715, 1.4125176311024146, 1.7922787288756303),
            'model.cls.bias_hh_l0_reverse': (-2.2854655858450794, 1.5930410437031524, -2.285674959002712, 1.592923328399074),
            'model.cls_fc.weight': (1.1963453076780466, 2.4319449632784704, 1.1963453076780466, 2.431936448765926),
            'model.cls_fc.bias': (-0.4871517214538476, 0.5904535833545111, -0.4871517214538476, 0.5906115035545227),
            'model.gen_fc.weight': (3.6785602331279064, 2.1278014900902305, 3.6785602331279073, 2.1275532845684975),
            'model.gen_fc.bias': (-0.4665234529646852, 0.3424605074499409, -0.4665234529646852, 0.3423091167975471),
            'model.layernorm1.weight': (-0.8280666901811925, 1.643061828881986, -0.8272953083655167, 1.6430545996112889),
            'model.layernorm1.bias': (2.13546623292529, 1.1789059678866398, 2.135464323598612, 1.1782642329621695),
            'model.layernorm2.weight': (-0.8924013000737614, 1.3882100396455492, -0.8924013000737614, 1.3882100396455492),
            'model.layernorm2.bias': (0.18868270019358885, 1.1389070036672457, 0.18868270019358885, 1.1389070036672457),
        },
    },
    'n2r_beer_appearance': {
        "losses": [
            {'phase1_sparsity': 19.681451612903224, 'phase1_continuity': 0.48627450980392156, 'task': 0.6953851763129559, 'sparsity': 18.842741935483872, 'continuity': 0.5225490196078432, 'norm': -0.43301186923569635},
            {'phase1_sparsity': 19.649193548387096, 'phase1_continuity': 0.4598039215686274, 'task': 0.8204399691854123, 'sparsity': 19.100806451612904, 'continuity': 0.5029411764705882, 'norm': -0.4832770564623426},
            {'phase1_sparsity': 19.262096774193548, 'phase1_continuity': 0.4764705882352941, 'task': 0.5840471033000285, 'sparsity': 19.391129032258064, 'continuity': 0.4715686274509804, 'norm': -0.4370118903611616},
        ],
        "gradients": [
            ('predictor', {'model.cls.weight_ih_l0': 0.14237068268197114, 'model.cls.weight_hh_l0': 0.016233679898667194, 'model.cls.bias_ih_l0': 0.06364800739995, 'model.cls.bias_hh_l0': 0.014069824357288823, 'model.cls.weight_ih_l0_reverse': 0.2100004571255635, 'model.cls.weight_hh_l0_reverse': 0.06377825093566303, 'model.cls.bias_ih_l0_reverse': 0.15001737376909816, 'model.cls.bias_hh_l0_reverse': 0.07288839972128716, 'model.cls_fc.weight': 0.21719805450359733, 'model.cls_fc.bias': 0.03118820642459846}),
            ('generator', {'model.gen.weight_ih_l0': 0.8062619911533363, 'model.gen.weight_hh_l0': 29.951464572815354, 'model.gen.bias_ih_l0': 81.4627212845413, 'model.gen.bias_hh_l0': 46.89339705384324, 'model.gen.weight_ih_l0_reverse': 0.42291420233720084, 'model.gen.weight_hh_l0_reverse': 14.776140382771588, 'model.gen.bias_ih_l0_reverse': 49.93253660115057, 'model.gen.bias_hh_l0_reverse': 16.23133416073301, 'model.gen_fc.weight': 222.7556648033846, 'model.gen_fc.bias': 84.17002906192678, 'model.layernorm1.weight': 119.0018472605027, 'model.layernorm1.bias': 119.5574928616683}),
            ('generator', {'model.gen.weight_ih_l0': 0.8530501572300373, 'model.gen.weight_hh_l0': 29.820911698540606, 'model.gen.bias_ih_l0': 80.99052616906049, 'model.gen.bias_hh_l0': 46.60371563306577, 'model.gen.weight_ih_l0_reverse': 0.38459413779704515, 'model.gen.weight_hh_l0_reverse': 14.393411346804164, 'model.gen.bias_ih_l0_reverse': 49.011383986345926, 'model.gen.bias_hh_l0_reverse': 15.82036892432762, 'model.gen_fc.weight': 217.92975920023304, 'model.gen_fc.bias': 83.22617390927766, 'model.layernorm1.weight': 114.59853145336821, 'model.layernorm1.bias': 116.23971792424855}),
            ('predictor', {'model.cls.weight_ih_l0': 0.22299016009758918, 'model.cls.weight_hh_l0': 0.027130313020003967, 'model.cls.bias_ih_l0': 0.09069843795490615, 'model.cls.bias_hh_l0': 0.0300289782256443, 'model.cls.weight_ih_l0_reverse': 0.08732443670264377, 'model.cls.weight_hh_l0_reverse': 0.08631984414870571, 'model.cls.bias_ih_l0_reverse': 0.1251781897904944, 'model.cls.bias_hh_l0_reverse': 0.060345540800868576, 'model.cls_fc.weight': 0.3547149311432374, 'model.cls_fc.bias': 0.10967414378887445}),
            ('generator', {'model.gen.weight_ih_l0': 0.9956821714420758, 'model.gen.weight_hh_l0': 29.933567244510044, 'model.gen.bias_ih_l0': 81.22752024901268, 'model.gen.bias_hh_l0': 46.67016454251701, 'model.gen.weight_ih_l0_reverse': 0.45896888437441796, 'model.gen.weight_hh_l0_reverse': 14.574683329523872, 'model.gen.bias_ih_l0_reverse': 49.26947448164326, 'model.gen.bias_hh_l0_reverse': 16.070236935127603, 'model.gen_fc.weight': 220.0673149903451, 'model.gen_fc.bias': 84.1842885183555, 'model.layernorm1.weight': 118.62145228616016, 'model.layernorm1.bias': 119.60816903104933}),
            ('generator', {'model.gen.weight_ih_l0': 0.8757406179253383, 'model.gen.weight_hh_l0': 28.97258411995735, 'model.gen.bias_ih_l0': 78.29997311205936, 'model.gen.bias_hh_l0': 45.15243655304236, 'model.gen.weight_ih_l0_reverse': 0.3943700727072685, 'model.gen.weight_hh_l0_reverse': 14.312439772946266, 'model.gen.bias_ih_l0_reverse': 48.38679859322194, 'model.gen.bias_hh_l0_reverse': 15.733744915375272, 'model.gen_fc.weight': 218.27885750309818, 'model.gen_fc.bias': 83.02572630283605, 'model.layernorm1.weight': 116.93468865377747, 'model.layernorm1.bias': 116.15420410139916}),
        ],
        "parameters": {
            'model.embedding_layer.embedding.weight': (-4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.gen.weight_ih_l0': (1.6509168445390685, 4.330762069138478, 1.6506435344869663, 4.33004875937032),
            'model.gen.weight_hh_l0': (2.2463691507225674, 3.9237637973280313, 2.2447212998341426, 3.9236045857684805),
            'model.gen.bias_ih_l0': (1.2704371417371527, 1.2443097293202974, 1.270389122892238, 1.2440986759065937),
            'model.gen.bias_hh_l0': (-0.3460879816183877, 1.6550884745835799, -0.3461359826240029, 1.654998715226374),
            'model.gen.weight_ih_l0_reverse': (2.088133119366943, 4.007675167685592, 2.0896741672578916, 4.007721245123911),
            'model.gen.weight_hh_l0_reverse': (3.7020416833189445, 3.135455231488674, 3.699992266554491, 3.1350780108784386),
            'model.gen.bias_ih_l0_reverse': (0.34471636006474937, 1.999017585549864, 0.344610150849203, 1.998620415911721),
            'model.gen.bias_hh_l0_reverse': (-3.9907180016075756, 2.242838667990785, -3.990824294457715, 2.242483379537048),
            'model.cls.weight_ih_l0': (2.50536420807452, 4.138997029849942, 2.504844506634952, 4.138715817095024),
            'model.cls.weight_hh_l0': (-2.750205781195122, 3.529597377794348, -2.749811867800413, 3.5295682862810547),
            'model.cls.bias_ih_l0': (-0.8144533184051822, 1.7609139835923768, -0.8146764043075212, 1.7611456060038013),
            'model.cls.bias_hh_l0': (0.25610443433272306, 1.7443080228007724, 0.2559459984266375, 1.7444238590283623),
            'model.cls.weight_ih_l0_reverse': (-2.4793024548713802, 4.640382075509273, -2.4788118835224875, 4.6402766895252485),
            'model.cls.weight_hh_l0_reverse': (4.727791948956812, 3.489358280937291, 4.726912768612374, 3.4892674667264725),
            'model.cls.bias_ih_l0_reverse': (1.41276319451929, 1.7922841101650715, 1.4125176311024146, 1.7922787288756303),
            'model.cls.bias_hh_l0_reverse': (-2.2854655858450794, 1.5930410437031524, -2.285674959002712, 1.592923328399074),
            'model.cls_fc.weight': (1.1963453076780466, 2.4319449632784704, 1.1963453076780466, 2.431936448765926),
            'model.cls_fc.bias': (-0.4871517214538476, 0.5904535833545111, -0.4871517214538476, 0.5906115035545227),
            'model.gen_fc.weight': (3.678560233127906, 2.12780148965075, 3.6785602331279064, 2.1275532825845125),
            'model.gen_fc.bias': (-0.4665234529646851, 0.34246050764055364, -0.4665234529646851, 0.34230911909822787),
            'model.layernorm1.weight': (-0.8280668620489333, 1.6430617152293916, -0.8272969431695688, 1.6430535311880003),
            'model.layernorm1.bias': (2.1354662318810287, 1.1789059686594276, 2.135464307466893, 1.1782642392421825),
            'model.layernorm2.weight': (-0.8924013000737614, 1.3882100396455492, -0.8924013000737614, 1.3882100396455492),
            'model.layernorm2.bias': (0.18868270019358885, 1.1389070036672457, 0.18868270019358885, 1.1389070036672457),
        },
    },
    'n2r_alone_beer_appearance': {
        "losses": [
            {'phase1_sparsity': 19.681451612903224, 'phase1_continuity': 0.48627450980392156, 'task': 0.6953851763129559, 'sparsity': 18.842741935483872, 'continuity': 0.5225490196078432, 'norm': -0.43301186923569635},
            {'phase1_sparsity': 19.649193548387096, 'phase1_continuity': 0.4598039215686274, 'task': 0.8204399691854123, 'sparsity': 19.100806451612904, 'continuity': 0.5029411764705882, 'norm': -0.4832770564623426},
            {'phase1_sparsity': 19.262096774193548, 'phase1_continuity': 0.4764705882352941, 'task': 0.5840471033000285, 'sparsity': 19.391129032258064, 'continuity': 0.4715686274509804, 'norm': -0.4370118903611616},
        ],
        "gradients": [
            ('predictor', {'model.cls.weight_ih_l0': 0.14237068268197114, 'model.cls.weight_hh_l0': 0.016233679898667194, 'model.cls.bias_ih_l0': 0.06364800739995, 'model.cls.bias_hh_l0': 0.014069824357288823, 'model.cls.weight_ih_l0_reverse': 0.2100004571255635, 'model.cls.weight_hh_l0_reverse': 0.06377825093566303, 'model.cls.bias_ih_l0_reverse': 0.15001737376909816, 'model.cls.bias_hh_l0_reverse': 0.07288839972128716, 'model.cls_fc.weight': 0.21719805450359733, 'model.cls_fc.bias': 0.03118820642459846}),
            ('generator', {'model.gen.weight_ih_l0': 0.8092274639609977, 'model.gen.weight_hh_l0': 29.954054498369004, 'model.gen.bias_ih_l0': 81.47301041565777, 'model.gen.bias_hh_l0': 46.898636794187134, 'model.gen.weight_ih_l0_reverse': 0.4267415397932956, 'model.gen.weight_hh_l0_reverse': 14.779887618143842, 'model.gen.bias_ih_l0_reverse': 49.94901923571922, 'model.gen.bias_hh_l0_reverse': 16.236102089174274, 'model.gen_fc.weight': 222.9576974498712, 'model.gen_fc.bias': 84.21006723048626, 'model.layernorm1.weight': 118.99182834484772, 'model.layernorm1.bias': 119.58298193023248}),
            ('generator', {'model.gen.weight_ih_l0': 0.8530517504373911, 'model.gen.weight_hh_l0': 29.82091249938384, 'model.gen.bias_ih_l0': 80.9905289110503, 'model.gen.bias_hh_l0': 46.60371730765336, 'model.gen.weight_ih_l0_reverse': 0.3845952035734177, 'model.gen.weight_hh_l0_reverse': 14.3934099076021, 'model.gen.bias_ih_l0_reverse': 49.011383646471074, 'model.gen.bias_hh_l0_reverse': 15.820369770246224, 'model.gen_fc.weight': 217.9297666877588, 'model.gen_fc.bias': 83.22617320866114, 'model.layernorm1.weight': 114.59853278459843, 'model.layernorm1.bias': 116.23971686902216}),
            ('predictor', {'model.cls.weight_ih_l0': 0.22299016009758918, 'model.cls.weight_hh_l0': 0.027130313020003967, 'model.cls.bias_ih_l0': 0.09069843795490615, 'model.cls.bias_hh_l0': 0.0300289782256443, 'model.cls.weight_ih_l0_reverse': 0.08732443670264377, 'model.cls.weight_hh_l0_reverse': 0.08631984414870571, 'model.cls.bias_ih_l0_reverse': 0.1251781897904944, 'model.cls.bias_hh_l0_reverse': 0.060345540800868576, 'model.cls_fc.weight': 0.3547149311432374, 'model.cls_fc.bias': 0.10967414378887445}),
            ('generator', {'model.gen.weight_ih_l0': 0.9919086644978751, 'model.gen.weight_hh_l0': 29.933774362628093, 'model.gen.bias_ih_l0': 81.2225529573996, 'model.gen.bias_hh_l0': 46.66744409495281, 'model.gen.weight_ih_l0_reverse': 0.4539937121056596, 'model.gen.weight_hh_l0_reverse': 14.572421892425808, 'model.gen.bias_ih_l0_reverse': 49.25605631428367, 'model.gen.bias_hh_l0_reverse': 16.06701248423267, 'model.gen_fc.weight': 220.0630279951794, 'model.gen_fc.bias': 84.17406879937991, 'model.layernorm1.weight': 118.59623457526584, 'model.layernorm1.bias': 119.59064788251268}),
            ('generator', {'model.gen.weight_ih_l0': 0.8757442893035604, 'model.gen.weight_hh_l0': 28.972618066525538, 'model.gen.bias_ih_l0': 78.30006477783579, 'model.gen.bias_hh_l0': 45.15249182983502, 'model.gen.weight_ih_l0_reverse': 0.39437706965937447, 'model.gen.weight_hh_l0_reverse': 14.312479619796775, 'model.gen.bias_ih_l0_reverse': 48.38701999800388, 'model.gen.bias_hh_l0_reverse': 15.733790545065467, 'model.gen_fc.weight': 218.27887392532634, 'model.gen_fc.bias': 83.02572977497249, 'model.layernorm1.weight': 116.93468855205884, 'model.layernorm1.bias': 116.15420939253424}),
        ],
        "parameters": {
            'model.embedding_layer.embedding.weight': (-4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.gen.weight_ih_l0': (1.6509186782044267, 4.33076275476597, 1.6506340371704247, 4.330050729707421),
            'model.gen.weight_hh_l0': (2.2463705754902703, 3.9237641022046326, 2.2447132300639288, 3.923605953719303),
            'model.gen.bias_ih_l0': (1.2704351152951525, 1.2443093160922725, 1.2703858225638902, 1.2440983832223564),
            'model.gen.bias_hh_l0': (-0.34609000805430457, 1.6550883801279495, -0.3461392824681706, 1.6549983332694675),
            'model.gen.weight_ih_l0_reverse': (2.08816641552103, 4.0076777488677084, 2.0896930158137756, 4.007729522878949),
            'model.gen.weight_hh_l0_reverse': (3.7022679537100336, 3.135452479813417, 3.7002470261082596, 3.135079327619027),
            'model.gen.bias_ih_l0_reverse': (0.34472885156808064, 1.9990140981813775, 0.3446187073109661, 1.998616398684466),
            'model.gen.bias_hh_l0_reverse': (-3.9907055095720123, 2.2428389373344024, -3.990815734326219, 2.242485616880774),
            'model.cls.weight_ih_l0': (2.50536420807452, 4.138997029849942, 2.504844506634952, 4.138715817095024),
            'model.cls.weight_hh_l0': (-2.750205781195122, 3.529597377794348, -2.749811867800413, 3.5295682862810547),
            'model.cls.bias_ih_l0': (-0.8144533184051822, 1.7609139835923768, -0.8146764043075212, 1.7611456060038013),
            'model.cls.bias_hh_l0': (0.25610443433272306, 1.7443080228007724, 0.2559459984266375, 1.7444238590283623),
            'model.cls.weight_ih_l0_reverse': (-2.4793024548713802, 4.640382075509273, -2.4788118835224875, 4.6402766895252485),
            'model.cls.weight_hh_l0_reverse': (4.727791948956812, 3.489358280937291, 4.726912768612374, 3.4892674667264725),
            'model.cls.bias_ih_l0_reverse': (1.41276319451929, 1.7922841101650715, 1.4125176311024146, 1.7922787288756303),
            'model.cls.bias_hh_l0_reverse': (-2.2854655858450794, 1.5930410437031524, -2.285674959002712, 1.592923328399074),
            'model.cls_fc.weight': (1.1963453076780466, 2.4319449632784704, 1.1963453076780466, 2.431936448765926),
            'model.cls_fc.bias': (-0.4871517214538476, 0.5904535833545111, -0.4871517214538476, 0.5906115035545227),
            'model.gen_fc.weight': (3.6785602331279064, 2.1278014902230726, 3.6785602331279064, 2.1275532829668893),
            'model.gen_fc.bias': (-0.4665234529646851, 0.34246050816327156, -0.4665234529646852, 0.3423091218883358),
            'model.layernorm1.weight': (-0.828066154162503, 1.6430622090666867, -0.8272885507609372, 1.6430591317060568),
            'model.layernorm1.bias': (2.1354662324685743, 1.1789059711858174, 2.1354643174210954, 1.1782642551966753),
            'model.layernorm2.weight': (-0.8924013000737614, 1.3882100396455492, -0.8924013000737614, 1.3882100396455492),
            'model.layernorm2.bias': (0.18868270019358885, 1.1389070036672457, 0.18868270019358885, 1.1389070036672457),
        },
    },
}
