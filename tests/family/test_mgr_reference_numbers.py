"""MGR's registered defaults and its published-run setting against numbers the reference code computed, on one
padded batch.

How the constants below were produced: github.com/jugechengzi/Rationalization-MGR at commit
3926fbdc4b5e817b6dd7a4499a95960cbc532742, its own training loop ``train_util.py train_multi_gen(model,
optimizer, loader, cpu, args, writer, [], [])`` for three batches, each the same batch: the four documents of tests/reference_draws.py (12, 9, 7 and 3 tokens)
padded to 256 as ``beer.py`` pads (``max_length=256``), ``model.py Multi_gen`` with vocabulary 20, embeddings 6,
hidden 8, one GRU layer, dropout 0.2, in float64, every weight ``values(name, shape)`` by the reference's
parameter name (the generators, a plain list in Multi_gen, named ``model.gen_list.<i>.<layer>``; the frozen
embedding matrix ``values("embedding")``), dropout and Gumbel draws replaced by ``fixed_draws``, and the one
Adam with the parameter groups the scripts build:

- ``model_mgr``: ``share_beer.py``'s argparse defaults (k = 5, lr 1e-4, s 0.1, λs 12, λc 10, lr_lambda 3,
  dis_lr 1) with ``--share 1``, the one value of share under which that script's optimiser set-up runs (it
  reads ``model.gen``): one generator encoder at lr/k, head i at lr·3·(i+1), the predictor at lr/k;
- ``mgr_beer_correlated_appearance``: ``norm_beer.py`` (share 0: each generator its own encoder) with the
  readme's line ``--correlated 1 --lr 0.00003 --sparsity_percentage 0.173 --aspect 0`` and its argparse
  defaults otherwise (k = 3, λs 11, λc 12, lr_lambda 1): generator i at lr·(1 + i), the predictor at lr/k.

The recording wrapped ``F.cross_entropy``, ``get_sparsity_loss``, ``get_continuity_loss`` (per generator),
``Tensor.backward`` (the summed loss) and ``optimizer.step`` (gradient norms before, parameter sums and norms
after). The reference's code is not part of this repository.
"""
from __future__ import annotations

import contextlib
import re

import pytest
import torch
from reference_steps import compare_parameters, padded_batch, small_model, train_steps

from pyhighlights.components.backbones.base import Backbone


def reference_namer(shared: bool):
    """Our parameter name -> Multi_gen's (``gen_list.<i>.0`` its GRU, ``.2`` its LayerNorm, ``.4`` its scorer)."""
    def reference_name(ours: str) -> str:
        gru = None
        if m := re.match(r"(generator_encoders|predictor_encoder)\.(?:(\d+)\.)?(.*)", ours):
            kind, index, rest = m.groups()
            if rest.startswith("embedding."):
                return "model.embedding_layer." + rest
            gru = "model.cls." if kind == "predictor_encoder" else \
                "model.gen." if shared else f"model.gen_list.{index}.0."
            for ours_dir, suffix in (("forward_layers.0.", ""), ("backward_layers.0.", "_reverse")):
                if rest.startswith(ours_dir):
                    return gru + rest[len(ours_dir):] + suffix
        if m := re.match(r"generator_norms\.(\d+)\.(.*)", ours):
            return f"model.gen_list.{m[1]}.2.{m[2]}"
        if m := re.match(r"generators\.(\d+)\.scorer\.(.*)", ours):
            return f"model.gen_list.{m[1]}.4.{m[2]}"
        if ours.startswith("predictor.net.1."):
            return "model.cls_fc." + ours[len("predictor.net.1."):]
        raise KeyError(ours)
    return reference_name


# The reference's embeddings are always frozen (model.py Embedding).
CONFIGS = {
    "model_mgr": (["model=mgr", "embeddings.trainable=false"],
                  dict(lr=1e-4, sparsity_percentage=0.1, sparsity_lambda=12.0, continuity_lambda=10.0,
                       cls_lambda=0.9, num_gen=5, shared=True, lr_lambda=3.0)),
    "mgr_beer_correlated_appearance": (["experiment=mgr_beer_correlated_appearance"],
                                       dict(lr=3e-5, sparsity_percentage=0.173, sparsity_lambda=11.0,
                                            continuity_lambda=12.0, cls_lambda=0.9, num_gen=3, shared=False,
                                            lr_lambda=1.0)),
}


def check_arguments(specs, a):
    m, losses = specs.model, specs.model["losses"]
    assert (m["lr"], losses["task"]["weight"]) == (a["lr"], a["cls_lambda"])
    assert (losses["sparsity"]["target"], losses["sparsity"]["weight"], losses["continuity"]["weight"]) == \
        (a["sparsity_percentage"], a["sparsity_lambda"], a["continuity_lambda"])
    assert (m["num_generators"], m["shared_generator_encoder"]) == (a["num_gen"], a["shared"])
    assert specs.embeddings["trainable"] is False
    assert (m["recurrence"], m["pad_to"], m["bucket"]) == ("padded", 256, False)


@contextlib.contextmanager
def counting_pool_ties():
    """Per call of the max-pool, how many (document, feature) pairs have their maximum at more than one position.

    Over 256 padded positions the recurrent states reach a fixed point, so the maximum is often held by several
    positions exactly. Which of them receives the gradient is then a matter of the last bit of each state, and
    that last bit can differ between CPUs, on the reference's side as on ours: on one Xeon with AVX-512 the
    batch-3 pool of one generator held four exact ties and its step-3 gradients came out 2 % away from the
    recorded ones, while every loss of the three batches agreed to the last bit. A tie after batch 1 makes the
    step-3 gradient a property of the machine."""
    ties = []
    pool = Backbone.pool

    def counting(states, mask):
        masked = states.detach().masked_fill(~(mask > 0).unsqueeze(-1), torch.finfo(states.dtype).min)
        ties.append(int(((masked == masked.max(dim=1, keepdim=True).values).sum(dim=1) > 1).sum()))
        return pool(states, mask)

    Backbone.pool = staticmethod(counting)
    try:
        yield ties
    finally:
        Backbone.pool = staticmethod(pool)


def run(config, extra=()):
    overrides, a = CONFIGS[config]
    model, specs = small_model([*overrides, *extra], reference_namer(a["shared"]))
    with counting_pool_ties() as ties:
        recorder = train_steps(model)
    recorder.pool_ties = ties  # one entry per generator per batch
    return model, specs, recorder


@pytest.mark.parametrize("config", list(CONFIGS))
def test_mgr_equals_the_reference_on_a_padded_batch(config):
    _, a = CONFIGS[config]
    expected = REFERENCE[config]
    model, specs, recorder = run(config)
    check_arguments(specs, a)
    assert padded_batch(model).input_ids.shape[1] == 256
    for step, (got, (generators, total)) in enumerate(zip(recorder.values, expected["losses"])):
        # train_multi_gen sums the k losses cls_lambda·CE + λs·|rate - s| + λc·continuity; we log each term's
        # mean over the generators and the sum.
        k = len(generators)
        assert k == a["num_gen"]
        mean = [sum(g[j] for g in generators) / k for j in range(3)]
        assert total == pytest.approx(sum(a["cls_lambda"] * g[0] + a["sparsity_lambda"] * g[1]
                                          + a["continuity_lambda"] * g[2] for g in generators), abs=1e-9)
        for key, value in (("train/loss/task", mean[0]), ("train/loss/sparsity", mean[1]),
                           ("train/loss/continuity", mean[2]), ("train/loss", total)):
            assert got[key] == pytest.approx(value, abs=1e-6), (step + 1, key, got[key], value)
    # one Adam, one step per batch; per-part rates as the scripts' parameter groups
    assert len(recorder.grads) == 3
    lrs = {reference_namer(a["shared"])(n): lr for n, lr in recorder.lrs[0].items()}
    lr, k = a["lr"], a["num_gen"]
    for i in range(k):
        head = lr * a["lr_lambda"] * (i + 1) if a["shared"] else lr + lr * a["lr_lambda"] * i
        assert lrs[f"model.gen_list.{i}.4.weight"] == pytest.approx(head, rel=1e-12)
    assert lrs["model.cls.weight_ih_l0"] == pytest.approx(lr / k, rel=1e-12)
    # Step 1 always (its ties broke as the reference's did on every machine tried); the step-3 gradients and
    # parameters where this machine's pools held no tie in batches 2 and 3.
    assert len(recorder.pool_ties) == 3 * k
    tie_free = not any(recorder.pool_ties[k:])
    compared = compare_parameters(model, recorder, expected["parameters"], reference_namer(a["shared"]),
                                  lambda r, step: r.grads[step], step3=tie_free)
    assert compared == len(expected["parameters"])


def test_packed_layout_computes_other_numbers():
    """The check above can fail: under ``layout=packed`` (each row read within its length, padded to the batch's
    longest) the padding-counted sparsity of the same batch, weights and draws is another."""
    _, _, recorder = run("model_mgr", ["layout=packed"])
    generators, _ = REFERENCE["model_mgr"]["losses"][0]
    reference_mean = sum(g[1] for g in generators) / len(generators)
    assert abs(recorder.values[0]["train/loss/sparsity"] - reference_mean) > 1.0


REFERENCE = {
    'model_mgr': {
        # per batch, per generator: (CE, |rate - s| over the padded width, continuity); the summed total
        "losses": [
            ([(0.7842520920944172, 27.319354838709675, 0.2754901960784314), (0.8488215143899507, 12.093548387096774, 0.4872549019607843), (1.160467294316648, 3.706451612903226, 0.20980392156862746), (0.5475885849066121, 21.577419354838707, 0.4549019607843137), (0.5908895749376446, 20.706451612903223, 0.45)], 1047.1520366359216),
            ([(0.6928770329164231, 27.9, 0.25882352941176473), (0.935079601274299, 11.190322580645162, 0.4725490196078431), (1.1088578356671839, 3.706451612903226, 0.21176470588235294), (1.1377565304773596, 21.770967741935483, 0.4647058823529412), (0.541313872522925, 20.061290322580643, 0.4568627450980392)], 1038.1697423058758),
            ([(0.4303151544488559, 27.125806451612902, 0.27941176470588236), (1.352870496594805, 13.448387096774194, 0.49019607843137253), (0.9650621720111372, 3.867741935483871, 0.20490196078431372), (1.0712606899411612, 22.125806451612902, 0.44509803921568625), (1.0160544947229775, 20.19032258064516, 0.4715686274509804)], 1064.3605456063779),
        ],
        # |grad| before steps 1 and 3, (sum, norm) after steps 1 and 3
        "parameters": {
            'model.embedding_layer.embedding.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.cls.weight_ih_l0': (0.7575796827980571, 0.4760144186694847, 2.5048446274288305, 4.139154025487297, 2.5049402975354873, 4.139099841041361),
            'model.cls.weight_hh_l0': (0.2757984099856149, 0.0462314783551399, -2.750445526910595, 3.5295482356647017, -2.7504796918750514, 3.529536078558398),
            'model.cls.bias_ih_l0': (0.5999309129829109, 0.10891327155433225, -0.8144533103446376, 1.760814806144185, -0.8145427706913609, 1.7608392730180165),
            'model.cls.bias_hh_l0': (0.27005590780174166, 0.08480234656358054, 0.2561044397061469, 1.7443197225103262, 0.2560233569930634, 1.7443219386182816),
            'model.cls.weight_ih_l0_reverse': (0.7821196240336081, 0.6673930407741389, -2.4796224055707863, 4.640387657124358, -2.479654393755993, 4.640353305927467),
            'model.cls.weight_hh_l0_reverse': (0.23643021238890488, 0.34040227555904845, 4.728471939452026, 3.489422351651547, 4.728358840110677, 3.4893925000059944),
            'model.cls.bias_ih_l0_reverse': (0.4457544254358156, 0.7131875200542154, 1.4129231939034073, 1.792270691944796, 1.4129048386084424, 1.792268755450925),
            'model.cls.bias_hh_l0_reverse': (0.212195342640351, 0.27105421341914954, -2.285265586561862, 1.5930707312338663, -2.285267495006041, 1.5930509896326928),
            'model.cls_fc.weight': (1.922334718571822, 1.6763591341183073, 1.1963453076780466, 2.4318301534216573, 1.1963453076780466, 2.4318240986137307),
            'model.cls_fc.bias': (0.8424561883488736, 0.4883190392519164, -0.4871517214538476, 0.5905914244441007, -0.4871517214538476, 0.5906361507344885),
            'model.gen.weight_ih_l0': (0.5481898845316493, 0.6945692157682235, 1.651451749150634, 4.331178215932612, 1.6518414449968013, 4.331211421920602),
            'model.gen.weight_hh_l0': (16.06419916102441, 15.877650200724998, 2.247216970551137, 3.923883492368162, 2.2472203791364143, 3.923935924833632),
            'model.gen.bias_ih_l0': (36.89344083427831, 38.03678304062358, 1.2704875942710667, 1.244403316212444, 1.2706060952771276, 1.244394992858734),
            'model.gen.bias_hh_l0': (25.193764911019947, 25.051552980353634, -0.346037534613294, 1.6551633276128872, -0.34591844913215275, 1.6552217460033694),
            'model.gen.weight_ih_l0_reverse': (1.291021984620691, 1.128067618971723, 2.0876025989353915, 4.007723376340022, 2.0873882220170312, 4.007711758618402),
            'model.gen.weight_hh_l0_reverse': (45.230684183844936, 45.74050848490298, 3.703339038222973, 3.135740895913642, 3.7034667037184787, 3.1357739815737737),
            'model.gen.bias_ih_l0_reverse': (129.5834847117412, 132.0176655667896, 0.3444992836645979, 1.999180526570297, 0.34461747419066247, 1.9991021808649312),
            'model.gen.bias_hh_l0_reverse': (49.65272760179355, 50.15965760526399, -3.990935077297658, 2.243068292543082, -3.9908168870842475, 2.2430943364214673),
            'model.gen_list.0.2.weight': (84.28547772274881, 84.17751808315467, 0.9013543495376358, 1.3572636010295145, 0.9022938039005032, 1.35672457447905),
            'model.gen_list.0.2.bias': (83.25870921012363, 84.38155719919986, 0.19579077950429147, 1.0727625516102195, 0.1933906714222401, 1.073793508817024),
            'model.gen_list.0.4.weight': (111.83901612682082, 113.33735568396928, -1.7982653475274266, 2.4091527570542066, -1.798265347527427, 2.409269046530911),
            'model.gen_list.0.4.bias': (67.45747201598913, 68.59061812264058, -0.34088425640861497, 0.5613078013033334, -0.34088425640861497, 0.5605416205926821),
            'model.gen_list.1.2.weight': (82.53552726349089, 84.0793690507849, -1.567346545041547, 1.2033551102433597, -1.5697090732116583, 1.203044748512418),
            'model.gen_list.1.2.bias': (119.34398813491966, 121.34546311248826, 0.2590464306947471, 1.2094309024999794, 0.25904846430102735, 1.2092449814758113),
            'model.gen_list.1.4.weight': (180.92356362485248, 183.76581120956547, 1.3896907985571918, 1.956871290895142, 1.3896907985571918, 1.955761935220327),
            'model.gen_list.1.4.bias': (85.78016017161168, 86.87410457491212, -0.2522892924119238, 0.7499125170858546, -0.2522892924119238, 0.7515610466737999),
            'model.gen_list.2.2.weight': (68.64305797984223, 68.36095152437747, 0.10579837359418098, 1.405607752095379, 0.10504044909235632, 1.4089648015659173),
            'model.gen_list.2.2.bias': (66.52564738822673, 66.05965076141507, -0.02158168712930847, 1.1591090946874807, -0.010794108842426126, 1.1570949659073095),
            'model.gen_list.2.4.weight': (117.05495715475563, 114.58554550915129, 1.1124059485217936, 1.9492565494034038, 1.112405948521794, 1.9505590235713108),
            'model.gen_list.2.4.bias': (57.591280835480475, 57.14788208413567, 0.06153422222344557, 0.4559071878906796, 0.06153422222344557, 0.4584411645437701),
            'model.gen_list.3.2.weight': (55.32820494009052, 56.255803685142254, 2.7142018096271228, 1.5009128670114689, 2.7263482877956093, 1.5031497264700202),
            'model.gen_list.3.2.bias': (47.84955260993054, 48.68085843110737, -0.27386891614289893, 1.5563971745030227, -0.2786700507185886, 1.5511138132314475),
            'model.gen_list.3.4.weight': (143.5726255270342, 148.3680625715886, 0.3149803735070825, 1.1722335460814286, 0.31498037350708263, 1.1687850898878163),
            'model.gen_list.3.4.bias': (86.68962862972732, 88.69679924259518, 0.6679539109553494, 0.4754478693514072, 0.6679539109553494, 0.4758489972753529),
            'model.gen_list.4.2.weight': (99.65046250925838, 99.73441681723978, 0.47365671578163726, 1.6128159094079484, 0.46797802770565367, 1.611115253287925),
            'model.gen_list.4.2.bias': (110.75579668901162, 108.06751052095922, 0.653651336997009, 1.8652362715100792, 0.6656758261146539, 1.8646062412051696),
            'model.gen_list.4.4.weight': (165.59728315744064, 161.71769474751915, -2.3045587920589297, 1.645041810424022, -2.3045587920589297, 1.643678402260065),
            'model.gen_list.4.4.bias': (90.63434625978286, 89.99112101617688, -1.2709808334044042, 0.9887086830148355, -1.2709808334044042, 0.9904832752362247),
        },
    },
    'mgr_beer_correlated_appearance': {
        # per batch, per generator: (CE, |rate - s| over the padded width, continuity); the summed total
        "losses": [
            ([(0.7071652513313595, 14.633451612903226, 0.4980392156862745), (0.8328924486558461, 4.923774193548387, 0.27647058823529413), (0.7462368673201283, 24.762483870967742, 0.3656862745098039)], 503.2568245033659),
            ([(0.762501552489783, 13.85925806451613, 0.492156862745098), (0.8667389732354221, 4.568935483870968, 0.2549019607843137), (0.5200646827432133, 25.956032258064518, 0.3205882352941177)], 502.9726232644717),
            ([(0.7303988796854259, 12.956032258064516, 0.4843137254901961), (1.021580055046516, 5.343129032258065, 0.28137254901960784), (1.121197616955685, 24.601193548387098, 0.3558823529411765)], 487.94858565173706),
        ],
        # |grad| before steps 1 and 3, (sum, norm) after steps 1 and 3
        "parameters": {
            'model.embedding_layer.embedding.weight': (None, None, -4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
            'model.cls.weight_ih_l0': (0.214169364308258, 0.32786568205673866, 2.504984631000921, 4.139159598931649, 2.5048976231187385, 4.139134201095554),
            'model.cls.weight_hh_l0': (0.043517635331247265, 0.09424107444120693, -2.750425542250473, 3.529543488355007, -2.7504876865769097, 3.52953357871809),
            'model.cls.bias_ih_l0': (0.10673350043841086, 0.2576693295250025, -0.8144733105897575, 1.76078485997726, -0.8145005281247173, 1.7607866900765206),
            'model.cls.bias_hh_l0': (0.04029684408590356, 0.09896754350075701, 0.2561044354495687, 1.7443422425505932, 0.256078435079726, 1.7443544923476815),
            'model.cls.weight_ih_l0_reverse': (0.38030909929276746, 0.34549208620634025, -2.479682397260463, 4.640396265002757, -2.4796488925598554, 4.64038934788727),
            'model.cls.weight_hh_l0_reverse': (0.18204121543843407, 0.19408865432550243, 4.728571938066803, 3.489425586961857, 4.728535740673527, 3.4894142797700867),
            'model.cls.bias_ih_l0_reverse': (0.3408274744175035, 0.5189550850922581, 1.4129631936894658, 1.7922779833878426, 1.4129493390577643, 1.7922749866316565),
            'model.cls.bias_hh_l0_reverse': (0.1532643038205084, 0.19721211069249014, -2.2852655867644778, 1.5930854584650154, -2.2852793418180735, 1.593072495510365),
            'model.cls_fc.weight': (1.237440389568646, 1.2009052177646324, 1.1963453076780473, 2.431825615993659, 1.1963453076780473, 2.431821632965488),
            'model.cls_fc.bias': (0.4720653776512897, 0.40326957614274106, -0.48715172145384755, 0.5905799370485225, -0.4871517214538476, 0.5906026154232801),
            'model.gen_list.0.0.weight_ih_l0': (0.6663189067622499, 0.8295507896950078, 2.9077390298363497, 3.9398496423509886, 2.907590703112925, 3.9398024045049045),
            'model.gen_list.0.0.weight_hh_l0': (43.33748457528033, 42.64969061483828, 1.4055745165892228, 3.2232004968839103, 1.4048968679692533, 3.223164844441845),
            'model.gen_list.0.0.bias_ih_l0': (73.9898820231122, 73.16625890190484, 2.2284028009353074, 1.4425944835529176, 2.228260065570656, 1.4425580097770612),
            'model.gen_list.0.0.bias_hh_l0': (38.99472119420712, 38.50881947879511, -1.0281130082813326, 1.2514236556193874, -1.0282557349032713, 1.2514010657553511),
            'model.gen_list.0.0.weight_ih_l0_reverse': (0.8946635294050247, 0.8513008024255203, -3.201817642352811, 4.3353658941110265, -3.2014823219571698, 4.33539940891678),
            'model.gen_list.0.0.weight_hh_l0_reverse': (23.349727015511476, 22.968925779988037, 0.6096700205583336, 3.750710261535804, 0.609901693455803, 3.7508049700160284),
            'model.gen_list.0.0.bias_ih_l0_reverse': (62.429614943100354, 62.04468803709724, -1.0524278062053498, 1.1533451861472919, -1.0525390185337975, 1.153434194531311),
            'model.gen_list.0.0.bias_hh_l0_reverse': (25.603833996954354, 25.247091685910505, -1.125977530830284, 1.291820796886041, -1.126088747094331, 1.291783537920914),
            'model.gen_list.0.2.weight': (96.0342901338261, 94.96582759872906, 0.9008143495670002, 1.3574508713089384, 0.9009342491045848, 1.3574189258452694),
            'model.gen_list.0.2.bias': (104.87344847703812, 103.62258889366876, 0.1968707795026583, 1.072299086501157, 0.1966309378400899, 1.0724019970270926),
            'model.gen_list.0.4.weight': (127.23764932327852, 125.25667788750683, -1.798265347527427, 2.409129537445363, -1.7982653475274268, 2.409197264238496),
            'model.gen_list.0.4.bias': (82.35469049711499, 81.60880475137505, -0.34088425640861497, 0.561652663158805, -0.34088425640861497, 0.5615760610765939),
            'model.gen_list.1.0.weight_ih_l0': (0.42422524353551444, 0.5292609050420424, 5.366160337110163, 3.9775688088825536, 5.3665315469959385, 3.977379609058124),
            'model.gen_list.1.0.weight_hh_l0': (13.816291803593835, 14.132875397495031, 3.740734798865719, 3.1475803922680163, 3.740721432546186, 3.147543665195312),
            'model.gen_list.1.0.bias_ih_l0': (50.24705920283208, 51.47770956739491, -2.065664505652065, 1.5219449124732842, -2.066034469768899, 1.5221804443412053),
            'model.gen_list.1.0.bias_hh_l0': (24.793310680814383, 25.32053421087082, 0.14480116559504097, 1.7203808196267856, 0.14443126215430613, 1.7205288049211027),
            'model.gen_list.1.0.weight_ih_l0_reverse': (0.23932051104243515, 0.19660578861272085, 3.039000812291181, 4.821166572455215, 3.039078198351832, 4.820986252680668),
            'model.gen_list.1.0.weight_hh_l0_reverse': (7.212448905873685, 7.454540430779878, 0.5331373815398055, 3.244258461106924, 0.5329431086863305, 3.244187170259682),
            'model.gen_list.1.0.bias_ih_l0_reverse': (22.455873968470584, 23.019356501400516, -1.5983410701429124, 1.4857062738929812, -1.5981102151158004, 1.4858093764088278),
            'model.gen_list.1.0.bias_hh_l0_reverse': (6.985711876619066, 7.25236130740736, -3.629831799078771, 1.8362076078856409, -3.629600932590728, 1.8361515378139794),
            'model.gen_list.1.2.weight': (97.75348972075952, 99.97882188147389, -1.5662665450886428, 1.2036558400545252, -1.5665066438884774, 1.2039379693308503),
            'model.gen_list.1.2.bias': (84.79183458248431, 86.92313672873213, 0.2590464306948693, 1.2095174762477134, 0.2590465103646543, 1.2094981242618095),
            'model.gen_list.1.4.weight': (96.7287234751345, 100.66090492237721, 1.389690798557192, 1.9574291065018847, 1.3896907985571918, 1.957425594910748),
            'model.gen_list.1.4.bias': (61.21882200831914, 63.723901127534695, -0.2522892924119238, 0.7491707869981928, -0.25228929241192394, 0.7493357185435443),
            'model.gen_list.2.0.weight_ih_l0': (0.40449615888239654, 0.617692214316831, -1.5527621024691647, 4.6943567483081905, -1.5519602331172575, 4.694505091183672),
            'model.gen_list.2.0.weight_hh_l0': (14.329107109581855, 14.381610026181754, 4.111842340414233, 3.2960700739444553, 4.111031251291356, 3.296053941070284),
            'model.gen_list.2.0.bias_ih_l0': (20.904509158549473, 21.050988887451574, 2.7338107320462237, 2.2059611989545926, 2.734213241243718, 2.205830945092813),
            'model.gen_list.2.0.bias_hh_l0': (13.635452443317739, 13.733902702992676, 0.5101603900360601, 1.5617978802055825, 0.5105629114855869, 1.5620060289989106),
            'model.gen_list.2.0.weight_ih_l0_reverse': (0.2635806271726101, 0.36058756755669313, -5.251472159565436, 4.936101540638662, -5.250159573317899, 4.936024189966051),
            'model.gen_list.2.0.weight_hh_l0_reverse': (29.102464021515623, 30.168788584891864, -1.8216112864739353, 3.363742752503362, -1.8212181761856503, 3.3638856036529194),
            'model.gen_list.2.0.bias_ih_l0_reverse': (46.55242409107449, 47.5867293736419, -2.414082952885506, 1.577236439971172, -2.414432939809563, 1.5775066750416504),
            'model.gen_list.2.0.bias_hh_l0_reverse': (29.17419406583317, 30.017971052962977, 0.5927724557899617, 1.5994631439395055, 0.5924227918550895, 1.5994656764291146),
            'model.gen_list.2.2.weight': (87.96179066979474, 88.58203839146765, 0.10597837410122413, 1.4038408386598302, 0.10633807815725682, 1.4036792668969964),
            'model.gen_list.2.2.bias': (80.76459930297538, 82.36274714845311, -0.026441687117425616, 1.1600234799003823, -0.025361128965885826, 1.159819970291109),
            'model.gen_list.2.4.weight': (137.60748025061912, 139.93487183512235, 1.112405948521794, 1.9485593121027767, 1.112405948521794, 1.9484481850769522),
            'model.gen_list.2.4.bias': (68.35216156269254, 69.09607863990074, 0.06153422222344557, 0.45476691697770155, 0.06153422222344557, 0.4550203801319527),
        },
    },
}
