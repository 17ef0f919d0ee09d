"""MRD's registered defaults against numbers the reference code computed, on one padded batch.

How the constants below were produced: github.com/jugechengzi/Rationalization-MRD at commit
b50f36e5e0cc7129ff0e9bb9f5234882e1f723e1, its own training loop ``train_util.py train_adv_causal`` with the
arguments of its README run (``adv_causal.py --model_type sp --gen_sparse 1 --div kl --lr 0.0001
--sparsity_percentage 0.075 --sparsity_lambda 6 --continuity_lambda 6``; argparse defaults otherwise:
cls_lambda 0.9, x_lambda 1, div_lambda 1, lr_lambda 1, gen_acc 0) for three batches, each the same batch: the
four documents of tests/reference_draws.py (12, 9, 7 and 3 tokens) padded to 256 as ``beer.py`` pads,
``model.py Sp_norm_model_causal`` with vocabulary 20, embeddings 6, hidden 8, dropout 0.2, in float64, every
weight ``values(name, shape)`` by the reference's parameter name (the frozen embedding matrix
``values("embedding")``), adv_causal.py's two Adams (the generator; the predictor's ``cls`` and ``cls_fc``),
dropout and Gumbel draws replaced by ``fixed_draws``. Each batch steps three times: the predictor and the
generator on phase 1's loss, then the generator on phase 2's. The recording wrapped ``F.cross_entropy``,
``F.kl_div``, ``get_sparsity_loss``, ``get_continuity_loss`` and both optimisers' ``step`` (gradient norms
before, parameter sums and norms after). The reference's code is not part of this repository.
"""
from __future__ import annotations

from reference_steps import check_two_phase_steps, padded_batch, renamer, small_model, train_steps

RENAMES = [("selector_encoder.embedding.", "model.embedding_layer.embedding."),
           ("predictor_encoder.embedding.", "model.embedding_layer.embedding."),
           ("selector_encoder.", "model.gen."), ("predictor_encoder.", "model.cls."),
           ("selector.scorer.", "model.gen_fc."), ("predictor.net.1.", "model.cls_fc."),
           ("selector_norm.", "model.layernorm1.")]
#: Sp_norm_model_causal also builds a second predictor (``post_cls``, ``post_cls_fc``, for its post-hoc
#: ``post_forward``) that this loop never uses: no gradient, never moved; ours has no counterpart.
UNUSED = {f"model.post_cls.{w}_l0{d}" for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh") for d in ("", "_reverse")}
UNUSED |= {"model.post_cls_fc.weight", "model.post_cls_fc.bias"}


reference_name = renamer(RENAMES)


def logging_forward_draw(count):
    """After its steps, train_adv_causal runs ``pred_forward_logit`` once more without gradients, for its
    accuracy log only; in train mode its dropout draws one mask, so the next batch's draws come one later."""
    count["dropout"] += 1


def test_mrd_equals_the_reference_on_a_padded_batch():
    expected = REFERENCE["model_mrd"]
    model, _ = small_model(["model=mrd", "embeddings.trainable=false"], reference_name)
    assert padded_batch(model).input_ids.shape[1] == 256
    recorder = train_steps(model, after_batch=logging_forward_draw)
    check_two_phase_steps(model, recorder, expected, reference_name, unused=UNUSED)


REFERENCE = {
    'model_mrd': {
        # per batch: phase 1 (sparsity, continuity, CE on the detached remainder, CE on the full text),
        # phase 2 (-KL(full || remainder) as -kl_div computes it, sparsity and continuity of the fresh sample)
        "losses": [
            {'phase1_sparsity': 19.731451612903225, 'phase1_continuity': 0.48627450980392156, 'remainder_task': 0.5447582142614641, 'full_task': 0.9865162906371998, 'divergence': -0.31066300095123356, 'sparsity': 18.60241935483871, 'continuity': 0.5225490196078432},
            {'phase1_sparsity': 19.441129032258065, 'phase1_continuity': 0.47352941176470587, 'remainder_task': 0.5235763964320466, 'full_task': 0.655583927976101, 'divergence': -0.1928472531304359, 'sparsity': 19.31209677419355, 'continuity': 0.49901960784313726},
            {'phase1_sparsity': 18.731451612903225, 'phase1_continuity': 0.4588235294117647, 'remainder_task': 0.8777584449835438, 'full_task': 0.851263076716446, 'divergence': -0.2800669884652328, 'sparsity': 19.763709677419357, 'continuity': 0.4647058823529412},
        ],
        # optimiser steps of batches 1 and 3, in order (predictor, generator phase 1, generator phase 2):
        # the stepped parameters' gradient norms
        "gradients": [
            ('predictor', {'model.cls.weight_ih_l0': 0.19067958491358472, 'model.cls.weight_hh_l0': 0.027708088258657004, 'model.cls.bias_ih_l0': 0.0924454430265236, 'model.cls.bias_hh_l0': 0.020262743361092576, 'model.cls.weight_ih_l0_reverse': 0.3130569869691681, 'model.cls.weight_hh_l0_reverse': 0.15801541387193144, 'model.cls.bias_ih_l0_reverse': 0.3316199820363225, 'model.cls.bias_hh_l0_reverse': 0.13732274199372815, 'model.cls_fc.weight': 0.8879385994678501, 'model.cls_fc.bias': 0.20796327075203525}),
            ('generator', {'model.gen.weight_ih_l0': 0.44142633793048475, 'model.gen.weight_hh_l0': 16.33868463692538, 'model.gen.bias_ih_l0': 44.440125852278314, 'model.gen.bias_hh_l0': 25.581291987714106, 'model.gen.weight_ih_l0_reverse': 0.2327269175519459, 'model.gen.weight_hh_l0_reverse': 8.061628348348274, 'model.gen.bias_ih_l0_reverse': 27.24380045719987, 'model.gen.bias_hh_l0_reverse': 8.85590222813682, 'model.gen_fc.weight': 121.61084311519559, 'model.gen_fc.bias': 45.93433745793514, 'model.layernorm1.weight': 64.90727623495096, 'model.layernorm1.bias': 65.22907890873894}),
            ('generator', {'model.gen.weight_ih_l0': 0.46900775095513214, 'model.gen.weight_hh_l0': 16.412685538846652, 'model.gen.bias_ih_l0': 44.36844681454551, 'model.gen.bias_hh_l0': 25.600651103373412, 'model.gen.weight_ih_l0_reverse': 0.20777622374534727, 'model.gen.weight_hh_l0_reverse': 7.939981671184128, 'model.gen.bias_ih_l0_reverse': 26.950120624325315, 'model.gen.bias_hh_l0_reverse': 8.73847942126515, 'model.gen_fc.weight': 117.35949700070604, 'model.gen_fc.bias': 45.40819254548904, 'model.layernorm1.weight': 63.87983217196832, 'model.layernorm1.bias': 64.35979130407027}),
            ('predictor', {'model.cls.weight_ih_l0': 0.5203905291720989, 'model.cls.weight_hh_l0': 0.08429847816253318, 'model.cls.bias_ih_l0': 0.30705145649800863, 'model.cls.bias_hh_l0': 0.08315069497523947, 'model.cls.weight_ih_l0_reverse': 0.39740558325614467, 'model.cls.weight_hh_l0_reverse': 0.16735969484391142, 'model.cls.bias_ih_l0_reverse': 0.38227157093283437, 'model.cls.bias_hh_l0_reverse': 0.14056514639184048, 'model.cls_fc.weight': 1.0861837388760405, 'model.cls_fc.bias': 0.5543024224309275}),
            ('generator', {'model.gen.weight_ih_l0': 0.5564181129677507, 'model.gen.weight_hh_l0': 16.39943388122591, 'model.gen.bias_ih_l0': 44.40002846399714, 'model.gen.bias_hh_l0': 25.59706543451578, 'model.gen.weight_ih_l0_reverse': 0.2486799074525679, 'model.gen.weight_hh_l0_reverse': 8.048709915696662, 'model.gen.bias_ih_l0_reverse': 27.337074419006715, 'model.gen.bias_hh_l0_reverse': 8.839510669213608, 'model.gen_fc.weight': 122.44066779798841, 'model.gen_fc.bias': 45.64827813799944, 'model.layernorm1.weight': 63.946851955083844, 'model.layernorm1.bias': 64.61142944918915}),
            ('generator', {'model.gen.weight_ih_l0': 0.4984143537475229, 'model.gen.weight_hh_l0': 16.17626089918204, 'model.gen.bias_ih_l0': 43.71878097811063, 'model.gen.bias_hh_l0': 25.19049881473939, 'model.gen.weight_ih_l0_reverse': 0.21748831982496306, 'model.gen.weight_hh_l0_reverse': 7.794652214256725, 'model.gen.bias_ih_l0_reverse': 26.67362467869204, 'model.gen.bias_hh_l0_reverse': 8.593143583248274, 'model.gen_fc.weight': 117.38934707424573, 'model.gen_fc.bias': 44.876033451679994, 'model.layernorm1.weight': 61.420369750251574, 'model.layernorm1.bias': 62.543866505425775}),
        ],
        # every parameter's (sum, norm) after batch 1 and after batch 3
        "parameters": {
            'model.embedding_layer.embedding.weight': (-4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.gen.weight_ih_l0': (1.65102921946073, 4.330771093285555, 1.6510094279060712, 4.330065754041364),
            'model.gen.weight_hh_l0': (2.246393529053708, 3.9237648866739367, 2.244914032188671, 3.923612846376641),
            'model.gen.bias_ih_l0': (1.2704385204163033, 1.2443090704172248, 1.2703349924446756, 1.244076924948939),
            'model.gen.bias_hh_l0': (-0.3460866010685888, 1.65508883969577, -0.3461901116517887, 1.6549968340925025),
            'model.gen.weight_ih_l0_reverse': (2.088154485900331, 4.007680678585892, 2.0891491749155917, 4.007641445631508),
            'model.gen.weight_hh_l0_reverse': (3.7022513967856465, 3.135426751027956, 3.7006577659085975, 3.1351163278609295),
            'model.gen.bias_ih_l0_reverse': (0.3447636135023828, 1.9989959497128886, 0.34490407441666826, 1.9985911724789578),
            'model.gen.bias_hh_l0_reverse': (-3.990670748774077, 2.2428496828352382, -3.9905303687775393, 2.2425304630751284),
            'model.cls.weight_ih_l0': (2.5043647548326162, 4.139013292602833, 2.504098598226812, 4.138839404090087),
            'model.cls.weight_hh_l0': (-2.7502055144835142, 3.5295472019426866, -2.750035277390775, 3.5295844467300963),
            'model.cls.bias_ih_l0': (-0.8148527090390035, 1.7608002807605692, -0.8149599123217882, 1.7608377103593829),
            'model.cls.bias_hh_l0': (0.25570504095495405, 1.7444219961698917, 0.2556631743248671, 1.7442409984872047),
            'model.cls.weight_ih_l0_reverse': (-2.479902396867813, 4.640285276673162, -2.479283170168294, 4.640252772858484),
            'model.cls.weight_hh_l0_reverse': (4.7293917380480615, 3.489403986723111, 4.729759951853461, 3.489303195376422),
            'model.cls.bias_ih_l0_reverse': (1.4131631933646926, 1.7923820302924245, 1.4132568104034804, 1.792421489045586),
            'model.cls.bias_hh_l0_reverse': (-2.2850655871396723, 1.593040223433545, -2.2848715196762965, 1.592903228534841),
            'model.cls_fc.weight': (1.1963453076780468, 2.431821430386858, 1.1963453076780466, 2.4318067883976964),
            'model.cls_fc.bias': (-0.48715172145384755, 0.5906833277484065, -0.48715172145384755, 0.590883363986148),
            'model.gen_fc.weight': (3.6785602331279064, 2.127801459950957, 3.6785602331279064, 2.1275535683979676),
            'model.gen_fc.bias': (-0.4665234529646851, 0.34246050790778887, -0.46652345296468517, 0.342309143126919),
            'model.layernorm1.weight': (-0.8280740631528335, 1.6430572205025078, -0.827414829377444, 1.6429773259909795),
            'model.layernorm1.bias': (2.1354663987904123, 1.1789059890715907, 2.1354650385112572, 1.178264309079828),
            'model.post_cls.weight_ih_l0': (-1.9678707287706467, 3.7436612579292303, -1.9678707287706467, 3.7436612579292303),
            'model.post_cls.weight_hh_l0': (-1.8881752944165389, 3.690269100284067, -1.8881752944165389, 3.690269100284067),
            'model.post_cls.bias_ih_l0': (0.48821910083107484, 1.7488279969205756, 0.48821910083107484, 1.7488279969205756),
            'model.post_cls.bias_hh_l0': (0.11873888974197377, 2.499866074224471, 0.11873888974197377, 2.499866074224471),
            'model.post_cls.weight_ih_l0_reverse': (10.302222373620161, 4.3075755497120936, 10.302222373620161, 4.3075755497120936),
            'model.post_cls.weight_hh_l0_reverse': (-0.4010359039445033, 2.9803322171811026, -0.4010359039445033, 2.9803322171811026),
            'model.post_cls.bias_ih_l0_reverse': (-0.6297406818286913, 1.5056863707727706, -0.6297406818286913, 1.5056863707727706),
            'model.post_cls.bias_hh_l0_reverse': (0.08641600595844379, 1.9728258833605037, 0.08641600595844379, 1.9728258833605037),
            'model.post_cls_fc.weight': (-2.9832628498598694, 1.4281675786436563, -2.9832628498598694, 1.4281675786436563),
            'model.post_cls_fc.bias': (0.1005780979317274, 0.7441031735756501, 0.1005780979317274, 0.7441031735756501),
        },
    },
}
