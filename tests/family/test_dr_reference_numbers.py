"""DR's registered defaults against numbers the reference code computed, on one padded batch.

How the constants below were produced: github.com/jugechengzi/Rationalization-DR at commit
f65389ffae4e0f70a4e56cd09d617c6229cfb481, its own training loop ``train_util.py train_sp_norm`` for three
batches, each the same batch: the four documents of tests/reference_draws.py (12, 9, 7 and 3 tokens) padded to
256 as ``beer.py`` pads, ``model.py Sp_norm_model`` (``--sp_norm 0``, norm_beer.py's default) with vocabulary
20, embeddings 6, hidden 8, dropout 0.2, in float64, every weight ``values(name, shape)`` by the reference's
parameter name (the frozen embedding matrix ``values("embedding")``), Adam with norm_beer.py's two parameter
groups (the generator, the rest), dropout and Gumbel draws replaced by ``fixed_draws``, and norm_beer.py's
argparse defaults (lr 1e-4, s 0.1, λs 12, λc 10, cls_lambda 0.9). The recording wrapped ``F.cross_entropy``,
``get_sparsity_loss``, ``get_continuity_loss`` and ``optimizer.step`` (the predictor group's learning rate,
gradient norms before, parameter sums and norms after). The reference's code is not part of this repository.
With padding counted over 256 positions the batch's selection rate is about 19.8, so the predictor's rate
is about 19.8 times the selector's, as the reference sets it.
"""
from __future__ import annotations

import pytest
from reference_steps import compare_parameters, padded_batch, renamer, small_model, train_steps

RENAMES = [("selector_encoder.embedding.", "model.embedding_layer.embedding."),
           ("predictor_encoder.embedding.", "model.embedding_layer.embedding."),
           ("selector_encoder.", "model.gen."), ("predictor_encoder.", "model.cls."),
           ("selector.scorer.", "model.gen_fc."), ("predictor.net.1.", "model.cls_fc."),
           ("selector_norm.", "model.layernorm1.")]
#: Sp_norm_model builds a second LayerNorm that its forward never applies (no gradient, never moved).
UNUSED = {"model.layernorm2.weight", "model.layernorm2.bias"}


reference_name = renamer(RENAMES)


def test_dr_equals_the_reference_on_a_padded_batch():
    expected = REFERENCE["model_dr"]
    model, specs = small_model(["model=dr", "embeddings.trainable=false"], reference_name)
    assert padded_batch(model).input_ids.shape[1] == 256
    recorder = train_steps(model)
    lr = specs.model["lr"]
    for step, (got, want) in enumerate(zip(recorder.values, expected["losses"])):
        total = 0.9 * want["task"] + 12 * want["sparsity"] + 10 * want["continuity"]  # train_sp_norm's loss
        for key, value in (("train/loss/task", want["task"]), ("train/loss/sparsity", want["sparsity"]),
                           ("train/loss/continuity", want["continuity"]), ("train/loss", total)):
            assert got[key] == pytest.approx(value, abs=1e-6), (step + 1, key, got[key], value)
        rates = recorder.lrs[step]
        assert rates["predictor.net.1.weight"] == pytest.approx(want["predictor_lr"], abs=1e-12)
        assert rates["predictor_encoder.forward_layers.0.weight_ih_l0"] == pytest.approx(want["predictor_lr"], abs=1e-12)
        assert rates["selector.scorer.weight"] == lr
    parameters = {k: v for k, v in expected["parameters"].items() if k not in UNUSED}
    assert all(expected["parameters"][k][0] is None for k in UNUSED)
    assert compare_parameters(model, recorder, parameters, reference_name, lambda r, step: r.grads[step]) == 23
    # (one frozen embedding table in the reference; our two encoders each hold a frozen copy of it)


REFERENCE = {
    'model_dr': {
        "losses": [
            {'task': 0.6953851763129559, 'sparsity': 19.706451612903223, 'continuity': 0.48627450980392156, 'predictor_lr': 0.0019806451612903223},
            {'task': 0.7114122552896556, 'sparsity': 18.86774193548387, 'continuity': 0.5225490196078432, 'predictor_lr': 0.0018967741935483873},
            {'task': 0.8164938269287964, 'sparsity': 19.674193548387095, 'continuity': 0.4598039215686274, 'predictor_lr': 0.00197741935483871},
        ],
        # reference parameter: (|grad| step 1, |grad| step 3, sum after 1, norm after 1, sum after 3, norm after 3)
        "parameters": {
            'model.embedding_layer.embedding.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.gen.weight_ih_l0': (0.8799846997458691, 0.9632595204630339, 1.6510517460431269, 4.330949869958778, 1.6508344597897635, 4.330576804621853),
            'model.gen.weight_hh_l0': (32.67518068265949, 31.821168640815834, 2.246776971165551, 3.9238078004767796, 2.2459117553093844, 3.923723949838853),
            'model.gen.bias_ih_l0': (88.87106972235438, 86.64742315015894, 1.2704475940642461, 1.2443609430318463, 1.270419703940568, 1.2442556508837668),
            'model.gen.bias_hh_l0': (51.15814119783216, 49.78629599348786, -0.34607753481997516, 1.6551116205664815, -0.3461054211341261, 1.6550657006448763),
            'model.gen.weight_ih_l0_reverse': (0.46142216344843445, 0.4164371356501431, 2.0878026068599014, 4.007697045455178, 2.0884671506576598, 4.007691039381508),
            'model.gen.weight_hh_l0_reverse': (16.11903827703047, 15.80294349512197, 3.7026990366141046, 3.1356032830266782, 3.7014538781897244, 3.135353734859229),
            'model.gen.bias_ih_l0_reverse': (54.467015162399576, 54.10465417301204, 0.3446592833627786, 1.9991059790103718, 0.3446616335004018, 1.9989231140086785),
            'model.gen.bias_hh_l0_reverse': (17.706474059038673, 17.41168682920029, -3.990775077598782, 2.242944155259812, -3.9907727680892617, 2.2427478616607),
            'model.cls.weight_ih_l0': (0.14237068268197114, 0.09743796548944977, 2.5128789120550192, 4.135602633597025, 2.5091726767373728, 4.1302404414004155),
            'model.cls.weight_hh_l0': (0.016233679898667194, 0.021896569715197073, -2.7464488508562424, 3.530464849051847, -2.7470060391191713, 3.5292280533395406),
            'model.cls.bias_ih_l0': (0.06364800739995, 0.06734040275889218, -0.814453467965618, 1.7634576867342515, -0.8123123706848809, 1.764438579813644),
            'model.cls.bias_hh_l0': (0.014069824357288823, 0.03989873028855102, 0.2561043353492195, 1.7438383397403652, 0.2614161077461637, 1.7456692865047188),
            'model.cls.weight_ih_l0_reverse': (0.2100004571255635, 0.30937894131920896, -2.4717809143087757, 4.640242005350718, -2.475638071183385, 4.640372532885262),
            'model.cls.weight_hh_l0_reverse': (0.06377825093566303, 0.1762259084779058, 4.712746988873165, 3.4880053561098032, 4.701049601316969, 3.4857637271585395),
            'model.cls.bias_ih_l0_reverse': (0.15001737376909816, 0.3666714072570821, 1.4090019171581534, 1.792421043324231, 1.4056423810798955, 1.7923234929268592),
            'model.cls.bias_hh_l0_reverse': (0.07288839972128716, 0.1597679359489605, -2.2892268615170894, 1.59213048425947, -2.2908260732898693, 1.5896340877243742),
            'model.cls_fc.weight': (0.21719805450359733, 0.7492501860929731, 1.1963453076780466, 2.4340742652224097, 1.1963453076780473, 2.4333106708157723),
            'model.cls_fc.bias': (0.03118820642459846, 0.35844849873943985, -0.48715172145384755, 0.588295508270089, -0.48715172145384766, 0.5915347832397433),
            'model.gen_fc.weight': (243.0106838594935, 232.48157393524028, 3.6785602331279064, 2.1278636322547135, 3.6785602331279064, 2.127739372428796),
            'model.gen_fc.bias': (91.83440629876712, 89.69264508200764, -0.46652345296468517, 0.34249849954979, -0.46652345296468517, 0.3424225904900364),
            'model.layernorm1.weight': (129.8342595848428, 124.02124075379305, -0.8282664965568808, 1.6430599516694095, -0.8278695772271333, 1.6430621249789865),
            'model.layernorm1.bias': (130.43999557217776, 125.55060782710176, 2.1354663998139443, 1.179066569962429, 2.1354658192955074, 1.178745460597938),
            'model.layernorm2.weight': (None, None, -0.8924013000737614, 1.3882100396455492, -0.8924013000737614, 1.3882100396455492),
            'model.layernorm2.bias': (None, None, 0.18868270019358885, 1.1389070036672457, 0.18868270019358885, 1.1389070036672457),
        },
    },
}
