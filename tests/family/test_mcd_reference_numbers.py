"""MCD's registered defaults against numbers the reference code computed, on one padded batch.

How the constants below were produced: github.com/jugechengzi/Rationalization-MCD at commit
f96ea28b01cf144ec528e3832085391d5a420366, its own training loop ``train_util.py train_decouple_causal2`` (with
decouple_bcr.py's defaults ``--div kl --model_type sp``) for three batches, each the same batch: the four
documents of tests/reference_draws.py (12, 9, 7 and 3 tokens) padded to 256 as ``beer.py`` pads,
``model.py Sp_norm_model`` with vocabulary 20, embeddings 6, hidden 8, dropout 0.2, in float64, every weight
``values(name, shape)`` by the reference's parameter name (the frozen embedding matrix ``values("embedding")``),
decouple_bcr.py's two Adams (the generator; the predictor's ``cls`` and ``cls_fc``), dropout and Gumbel draws
replaced by ``fixed_draws``, and decouple_bcr.py's argparse defaults (lr 1e-4, s 0.1, λs = λc = 6,
cls_lambda 0.9). Each batch steps three times: the predictor and the generator on phase 1's loss, then the
generator on phase 2's. The recording wrapped ``F.cross_entropy``, ``F.kl_div``, ``get_sparsity_loss``,
``get_continuity_loss`` and both optimisers' ``step`` (gradient norms before, parameter sums and norms after).
The reference's code is not part of this repository.
"""
from __future__ import annotations

from reference_steps import check_two_phase_steps, padded_batch, renamer, small_model, train_steps

RENAMES = [("selector_encoder.embedding.", "model.embedding_layer.embedding."),
           ("predictor_encoder.embedding.", "model.embedding_layer.embedding."),
           ("selector_encoder.", "model.gen."), ("predictor_encoder.", "model.cls."),
           ("selector.scorer.", "model.gen_fc."), ("predictor.net.1.", "model.cls_fc."),
           ("selector_norm.", "model.layernorm1.")]


reference_name = renamer(RENAMES)


def test_mcd_equals_the_reference_on_a_padded_batch():
    expected = REFERENCE["model_mcd"]
    model, _ = small_model(["model=mcd", "embeddings.trainable=false"], reference_name)
    assert padded_batch(model).input_ids.shape[1] == 256
    recorder = train_steps(model)
    check_two_phase_steps(model, recorder, expected, reference_name)


REFERENCE = {
    'model_mcd': {
        # per batch: phase 1 (sparsity, continuity, CE on the detached rationale, CE on the full text),
        # phase 2 (KL(full || rationale) as kl_div computes it, sparsity and continuity of the fresh sample)
        "losses": [
            {'phase1_sparsity': 19.706451612903223, 'phase1_continuity': 0.48627450980392156, 'task': 0.6953851763129559, 'full_task': 0.9865162906371998, 'divergence': 0.4443596081237632, 'sparsity': 18.577419354838707, 'continuity': 0.5225490196078432},
            {'phase1_sparsity': 19.416129032258063, 'phase1_continuity': 0.4852941176470588, 'task': 0.9421664278675056, 'full_task': 0.41674806199538883, 'divergence': 0.12771641181421467, 'sparsity': 18.80322580645161, 'continuity': 0.5},
            {'phase1_sparsity': 18.674193548387095, 'phase1_continuity': 0.46568627450980393, 'task': 0.6815688743368455, 'full_task': 1.006627708340247, 'divergence': 0.5215362509915986, 'sparsity': 19.416129032258063, 'continuity': 0.4823529411764706},
        ],
        # optimiser steps of batches 1 and 3, in order (predictor, generator phase 1, generator phase 2):
        # the stepped parameters' gradient norms
        "gradients": [
            ('predictor', {'model.cls.weight_ih_l0': 0.3212999484353888, 'model.cls.weight_hh_l0': 0.05157225483012069, 'model.cls.bias_ih_l0': 0.12282334970629953, 'model.cls.bias_hh_l0': 0.05254619819918151, 'model.cls.weight_ih_l0_reverse': 0.4159896445710258, 'model.cls.weight_hh_l0_reverse': 0.07308385649473899, 'model.cls.bias_ih_l0_reverse': 0.14306624266638254, 'model.cls.bias_hh_l0_reverse': 0.06658546839532961, 'model.cls_fc.weight': 0.6862277497825674, 'model.cls_fc.bias': 0.047040906278606014}),
            ('generator', {'model.gen.weight_ih_l0': 0.44142633793048475, 'model.gen.weight_hh_l0': 16.33868463692538, 'model.gen.bias_ih_l0': 44.440125852278314, 'model.gen.bias_hh_l0': 25.581291987714106, 'model.gen.weight_ih_l0_reverse': 0.2327269175519459, 'model.gen.weight_hh_l0_reverse': 8.061628348348274, 'model.gen.bias_ih_l0_reverse': 27.24380045719987, 'model.gen.bias_hh_l0_reverse': 8.85590222813682, 'model.gen_fc.weight': 121.61084311519559, 'model.gen_fc.bias': 45.93433745793514, 'model.layernorm1.weight': 64.90727623495096, 'model.layernorm1.bias': 65.22907890873894}),
            ('generator', {'model.gen.weight_ih_l0': 0.4699328609175523, 'model.gen.weight_hh_l0': 16.410649099722878, 'model.gen.bias_ih_l0': 44.36588507724348, 'model.gen.bias_hh_l0': 25.598457028099876, 'model.gen.weight_ih_l0_reverse': 0.21156106726117155, 'model.gen.weight_hh_l0_reverse': 7.941735400041057, 'model.gen.bias_ih_l0_reverse': 26.955334298232877, 'model.gen.bias_hh_l0_reverse': 8.740314556034, 'model.gen_fc.weight': 117.38497593479538, 'model.gen_fc.bias': 45.421590616037356, 'model.layernorm1.weight': 63.8968711419413, 'model.layernorm1.bias': 64.38512827146108}),
            ('predictor', {'model.cls.weight_ih_l0': 0.6509354169947343, 'model.cls.weight_hh_l0': 0.06286573649078682, 'model.cls.bias_ih_l0': 0.2886887499691936, 'model.cls.bias_hh_l0': 0.04223041494619967, 'model.cls.weight_ih_l0_reverse': 0.22389833966417505, 'model.cls.weight_hh_l0_reverse': 0.1977824048808837, 'model.cls.bias_ih_l0_reverse': 0.3584054694102401, 'model.cls.bias_hh_l0_reverse': 0.14709864904398426, 'model.cls_fc.weight': 1.1430766643452792, 'model.cls_fc.bias': 0.423678723674004}),
            ('generator', {'model.gen.weight_ih_l0': 0.5451876176610859, 'model.gen.weight_hh_l0': 16.437866221064112, 'model.gen.bias_ih_l0': 44.42991904266233, 'model.gen.bias_hh_l0': 25.645325187532116, 'model.gen.weight_ih_l0_reverse': 0.24617029200396576, 'model.gen.weight_hh_l0_reverse': 8.079596396020573, 'model.gen.bias_ih_l0_reverse': 27.476078214127412, 'model.gen.bias_hh_l0_reverse': 8.891754278205232, 'model.gen_fc.weight': 122.36632166691552, 'model.gen_fc.bias': 45.57984984858017, 'model.layernorm1.weight': 64.69303515654512, 'model.layernorm1.bias': 64.99311042788506}),
            ('generator', {'model.gen.weight_ih_l0': 0.46760028816004784, 'model.gen.weight_hh_l0': 16.153404491814825, 'model.gen.bias_ih_l0': 43.67175777087095, 'model.gen.bias_hh_l0': 25.159679446314264, 'model.gen.weight_ih_l0_reverse': 0.1675481057718717, 'model.gen.weight_hh_l0_reverse': 7.890080713599216, 'model.gen.bias_ih_l0_reverse': 26.775430200564344, 'model.gen.bias_hh_l0_reverse': 8.676422182290537, 'model.gen_fc.weight': 119.40970004887953, 'model.gen_fc.bias': 44.95493874586346, 'model.layernorm1.weight': 63.5618509959283, 'model.layernorm1.bias': 63.61548735934028}),
        ],
        # every parameter's (sum, norm) after batch 1 and after batch 3
        "parameters": {
            'model.embedding_layer.embedding.weight': (-4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.gen.weight_ih_l0': (1.6510241767645628, 4.330772410397845, 1.6510806280103123, 4.330102891349539),
            'model.gen.weight_hh_l0': (2.2464032250718944, 3.9237661784381443, 2.244915689171216, 3.923614656940453),
            'model.gen.bias_ih_l0': (1.2704375255284455, 1.2443087896315588, 1.2704019326224711, 1.244100131442773),
            'model.gen.bias_hh_l0': (-0.34608759631124486, 1.6550887644784913, -0.346123172126765, 1.654998838624726),
            'model.gen.weight_ih_l0_reverse': (2.0881277818123753, 4.007685337506697, 2.089359886652608, 4.007757666056715),
            'model.gen.weight_hh_l0_reverse': (3.7022552677841563, 3.1354299654879254, 3.700200700199164, 3.134927371492768),
            'model.gen.bias_ih_l0_reverse': (0.34478086081483883, 1.9989961344946565, 0.3448631389943271, 1.998568427015903),
            'model.gen.bias_hh_l0_reverse': (-3.990653501980297, 2.2428483753568265, -3.990571308203731, 2.242508778741571),
            'model.cls.weight_ih_l0': (2.5041647421539053, 4.139002723916618, 2.503796411566473, 4.138714722860746),
            'model.cls.weight_hh_l0': (-2.7494056702864738, 3.5295195759364617, -2.749126920917595, 3.529508212610194),
            'model.cls.bias_ih_l0': (-0.8146533075066307, 1.7608855432883055, -0.8151881558572165, 1.7610077435801885),
            'model.cls.bias_hh_l0': (0.25610444212866473, 1.7441356992164079, 0.25563049033173374, 1.743990218624807),
            'model.cls.weight_ih_l0_reverse': (-2.479302402692146, 4.640386332549308, -2.479368955348811, 4.64039642725641),
            'model.cls.weight_hh_l0_reverse': (4.7291920063737205, 3.4894539659129573, 4.729271275107362, 3.4894421136219034),
            'model.cls.bias_ih_l0_reverse': (1.413363191103457, 1.7921850572028324, 1.4133962141272574, 1.7921272723739405),
            'model.cls.bias_hh_l0_reverse': (-2.284665589821639, 1.593062913613446, -2.284559111588224, 1.5929146809209134),
            'model.cls_fc.weight': (1.1963453076780466, 2.4318135105406093, 1.1963453076780468, 2.4317856766393935),
            'model.cls_fc.bias': (-0.48715172145384755, 0.5906833277216809, -0.48715172145384755, 0.5908826045762081),
            'model.gen_fc.weight': (3.678560233127906, 2.1278014574860165, 3.6785602331279064, 2.1275534087364574),
            'model.gen_fc.bias': (-0.4665234529646851, 0.34246050758392804, -0.4665234529646852, 0.3423091635609205),
            'model.layernorm1.weight': (-0.8280722054057373, 1.6430584180236205, -0.827313741457836, 1.64304243775867),
            'model.layernorm1.bias': (2.135466400366814, 1.1789059877891543, 2.1354650045864023, 1.1782641321063336),
        },
    },
}
