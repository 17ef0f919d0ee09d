"""The HardKuma gate and its constraint terms against numbers the reference code computed.

How the constants below were produced: github.com/bastings/interpretable_predictions at commit
fef61833bd22205dc2d4f77e2c0ed3f40cbe8ea6, its own code run in float64 (``torch.set_default_dtype(float64)``),
every uniform draw of its ``Kuma.sample`` (``u.uniform_(0.001, 0.999)``) replaced by the k-th fixed stream
``0.001 + 0.998 · uniform(4000 + k)`` (tests/reference_draws.py):

- ``distribution``: ``latent_rationale/nn/kuma.py HardKuma([A, B], support=[-0.1, 1.1])`` on the grid A, B below:
  ``sample()`` (draw 0), ``pdf(0.)``, ``pdf(1.)``, ``log_pdf(X)``, ``log_cdf(X)``, ``mean()``;
- ``defaults`` / ``strong``: ``latent_rationale/beer/models/latent.py LatentRationaleModel`` (``dependent_z=True``,
  ``layer="rcnn"``, dropout 0; its gate's RCNN state has 30 units: ``LatentRationaleModel`` does not pass its
  ``z_rnn_size`` argument on, so ``DependentLatentModel``'s default 30 holds) whose encoder was replaced by the fixed states
  ``values("encoder_states", (4, 12, 8))`` for the four documents of tests/reference_draws.py (12, 9, 7 and 3
  words, padded to 12), its gate and RCNN cell weights ``values(name)`` by their reference names; three training
  steps, each ``latent_model(x, mask)`` (``common/latent.py DependentLatentModel.forward``), ``get_loss(preds,
  targets, mask)`` with the fixed predictions and targets below (so the MSE is a constant and only the
  Lagrangian terms have gradients), ``backward``, and ``Adam(lr=4e-4, weight_decay=2e-6)`` over the gate and
  cell; recorded: the gates z, the values ``get_loss`` reports (``cost0_l0``, ``cost1_lasso``, ``c0``, ``c1``,
  ``lambda0``, ``lambda1``), the loss, each parameter's gradient norm and its sum after the step; then the
  eval-mode gates (the deterministic rule). ``defaults``: the reference's Beer arguments (selection 0.13, lasso
  0.02, lambda_init 1e-5, lagrange_lr 0.05, lagrange_alpha 0.5, lambda_min 1e-12, lambda_max 5); ``strong``: the
  same with lambda_init 1 and lagrange_lr 1 (gradients far from zero).

The reference's support is two float32 tensors (``nn/kuma_gate.py``), so its stretch differs from ours in the
8th digit: values are compared to 1e-6 relative. The reference's code is not part of this repository.
"""
from __future__ import annotations

import pytest
import torch
from reference_draws import IDS, uniform, values

from pyhighlights.components import hardkuma
from pyhighlights.components.hardkuma import HardKumaDistribution, HardKumaSelector
from pyhighlights.components.hardkuma_losses import ExpectedL0Term, ExpectedTransitionsTerm

A = torch.tensor([0.2, 0.5, 1.0, 1.0, 2.0, 3.5, 0.8, 5.0], dtype=torch.float64)
B = torch.tensor([0.3, 1.0, 1.0, 2.5, 0.7, 3.0, 8.0, 0.4], dtype=torch.float64)
X = torch.tensor([0.0, 0.05, 0.3, 0.5, 0.7, 0.95, 1.0, 0.0], dtype=torch.float64)
D, STATE = 8, 30
PREDS = torch.tensor([[0.7], [0.3], [0.55], [0.5]], dtype=torch.float64)
TARGETS = torch.tensor([[0.8], [0.2], [0.6], [0.4]], dtype=torch.float64)
SETTINGS = {"defaults": dict(multiplier_init=1e-5, multiplier_lr=0.05), "strong": dict(multiplier_init=1.0, multiplier_lr=1.0)}
#: our parameter name -> the reference's
NAMES = {"cell.ih_layer.weight": "z_cell.ih_layer.weight", "cell.hh_layer.weight": "z_cell.hh_layer.weight",
         "cell.hh_layer.bias": "z_cell.hh_layer.bias", "cell.bias": "z_cell.bias",
         "layer_a.weight": "z_layer.layer_a.0.weight", "layer_a.bias": "z_layer.layer_a.0.bias",
         "layer_b.weight": "z_layer.layer_b.0.weight", "layer_b.bias": "z_layer.layer_b.0.bias"}


def approx(value):
    return pytest.approx(value, rel=1e-6, abs=1e-10)


class FixedUniforms:
    """Our gate's uniform draws, the k-th from the stream the reference's k-th ``uniform_`` call read."""

    def __init__(self):
        self.count = 0

    def __call__(self, like):
        u = hardkuma.UNIFORM_EPS + (1 - 2 * hardkuma.UNIFORM_EPS) * uniform(4000 + self.count, like.shape)
        self.count += 1
        return u.to(like.dtype)


def test_the_distribution_equals_the_reference():
    want = REFERENCE["distribution"]
    d = HardKumaDistribution(A, B, -0.1, 1.1)
    u = hardkuma.UNIFORM_EPS + (1 - 2 * hardkuma.UNIFORM_EPS) * uniform(4000, A.shape)
    assert d.sample(u).tolist() == approx(want["sample_seed_4000"])
    assert d.prob_zero().tolist() == approx(want["pdf0"])
    assert d.prob_one().tolist() == approx(want["pdf1"])
    assert d.log_pdf(X).tolist() == approx(want["log_pdf_x"])
    assert d.log_cdf(X).tolist() == approx(want["log_cdf_x"])
    assert d.mean().tolist() == approx(want["mean"])


def batch():
    lengths = [len(ids) for ids in IDS]
    word_mask = torch.zeros(len(IDS), max(lengths), dtype=torch.float64)
    for i, n in enumerate(lengths):
        word_mask[i, :n] = 1
    return values("encoder_states", (len(IDS), max(lengths), D)), word_mask


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_three_steps_of_the_gate_and_its_constraints_equal_the_reference(setting, monkeypatch):
    want = REFERENCE[setting]
    draws = FixedUniforms()
    monkeypatch.setattr(hardkuma, "uniform_draw", draws)
    selector = HardKumaSelector(input_size=D, dependent=True, dependent_cell="rcnn", dependent_size=STATE).double()
    with torch.no_grad():
        for name, p in selector.named_parameters():
            p.copy_(values(NAMES[name], p.shape))
    common = dict(smoothing=0.5, multiplier_min=1e-12, multiplier_max=5.0, **SETTINGS[setting])
    l0, transitions = ExpectedL0Term(target=0.13, **common), ExpectedTransitionsTerm(target=0.02, **common)
    optimiser = torch.optim.Adam(selector.parameters(), lr=4e-4, weight_decay=2e-6)
    states, word_mask = batch()
    mse = float(((PREDS - TARGETS) ** 2).mean())
    selector.train()
    for step, expected in enumerate(want["steps"]):
        selection = selector(states, word_mask)
        outputs = {"selector_logits": selection.logits, "word_mask": word_mask}
        sparsity, continuity = l0(outputs), transitions(outputs)
        assert selection.mask.tolist() == [approx(row) for row in expected["z"]], step
        assert (l0.last_value, transitions.last_value) == (approx(expected["l0"]), approx(expected["lasso"]))
        assert (l0.moving_average, transitions.moving_average) == (approx(expected["c0"]), approx(expected["c1"]))
        assert (l0.multiplier, transitions.multiplier) == (approx(expected["lambda0"]), approx(expected["lambda1"]))
        assert mse + float((sparsity + continuity).detach()) == approx(expected["loss"])
        optimiser.zero_grad()
        (sparsity + continuity).backward()
        for name, p in selector.named_parameters():
            assert float(p.grad.norm()) == approx(expected["grads"][NAMES[name]]), (step, name)
        optimiser.step()
        for name, p in selector.named_parameters():
            assert float(p.detach().sum()) == approx(expected["sums"][NAMES[name]]), (step, name)
    assert draws.count == 3 * states.shape[1]  # one draw per word and step, as the reference draws
    selector.eval()
    with torch.no_grad():
        assert selector(states, word_mask).mask.tolist() == [approx(row) for row in want["eval_z"]]


def test_an_independent_gate_computes_other_numbers(monkeypatch):
    """The comparison above can fail: without the recurrent state over earlier gates the first step differs."""
    monkeypatch.setattr(hardkuma, "uniform_draw", FixedUniforms())
    selector = HardKumaSelector(input_size=D, dependent=False).double()
    with torch.no_grad():
        for name, p in selector.named_parameters():
            p.copy_(values(NAMES[name], p.shape))
    states, word_mask = batch()
    term = ExpectedL0Term(target=0.13)
    term({"selector_logits": selector(states, word_mask).logits, "word_mask": word_mask})
    assert term.last_value != approx(REFERENCE["defaults"]["steps"][0]["l0"])


REFERENCE = {
    "distribution": {
        "sample_seed_4000": [0.0, 0.0, 0.10676924076917843, 0.7376718999572011, 0.8638888854033752, 0.6634494350443461, 0.0, 0.8503354521564599],
        "pdf0": [0.2451440323481709, 0.28867613459481284, 0.08333433333333337, 0.1954962775102993, 0.0048671900675023305, 0.0005020883888394438, 0.6922711508443635, 2.607512226109443e-06],
        "pdf1": [0.29583416664084994, 0.04257189224366186, 0.08333233333333333, 0.0020036884346861248, 0.2769199040399123, 0.01809461012925606, 1.000000000028756e-06, 0.6591694308816449],
        "log_pdf_x": [-1.4059093540399636, 0.16424951777826102, -0.18232306087285158, -0.3057559820590786, -0.07497888206335793, -0.13528346315351525, -13.815510557935518, -12.857113961258145],
        "log_cdf_x": [-1.4059093540399636, -1.0397179424167933, -1.09860928867261, -0.19452657023419223, -1.0867446296138072, -0.053441330302068726, -1.000000500029089e-06, -12.857113961258145],
        "mean": [0.5336441988673134, 0.33333333333333337, 0.5, 0.2857142857142857, 0.7308570430993646, 0.6213768115942031, 0.07146488606934863, 0.9117447217253223],
    },
    "defaults": {
        "steps": [
            {**{"l0": 0.933324657039304, "lasso": 0.10409343851127673, "c0": 0.401662328519652, "c1": 0.04204671925563836, "lambda0": 1.0202861390399683e-05, "lambda1": 1.0021045474205032e-05, "loss": 0.008129519457149332, "mse": 0.008125},
             "z": [[0.172628431514773, 0.342201294966974, 0.389705898759114, 0.0, 1.0, 0.147223793526294, 0.043440116587476, 1.0, 0.0, 0.938698667889279, 0.0, 0.975319309515532], [0.0, 1.0, 1.0, 1.0, 1.0, 0.344211761901859, 1.0, 1.0, 0.42142340499261, 0.0, 0.0, 0.0], [0.103745274486408, 0.665356047749047, 0.099366052910744, 0.464758546998283, 1.0, 0.334485900601553, 0.789222224788973, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.676081205546647, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
             "grads": {"z_cell.bias": 7.069287002499322e-07, "z_cell.ih_layer.weight": 4.870596087853572e-07, "z_cell.hh_layer.weight": 2.3151397729395809e-07, "z_cell.hh_layer.bias": 7.125974111805378e-08, "z_layer.layer_a.0.weight": 7.302328508394598e-07, "z_layer.layer_a.0.bias": 2.635187007399771e-07, "z_layer.layer_b.0.weight": 4.2611451255518134e-07, "z_layer.layer_b.0.bias": 1.4947220881810928e-07},
             "sums": {"z_cell.bias": 2.673227640168681, "z_cell.ih_layer.weight": -3.9811609449947447, "z_cell.hh_layer.weight": -2.184153053232257, "z_cell.hh_layer.bias": -2.116570616601408, "z_layer.layer_a.0.weight": 2.681500336619216, "z_layer.layer_a.0.bias": 0.05523765382898429, "z_layer.layer_b.0.weight": 1.2983776689171471, "z_layer.layer_b.0.bias": -0.07836392452807621}},
            {**{"l0": 0.9307447328211746, "lasso": 0.10602918897028091, "c0": 0.6012035306704133, "c1": 0.06403795411295964, "lambda0": 1.0514217469159874e-05, "lambda1": 1.0053183260211948e-05, "loss": 0.008131964969953002, "mse": 0.008125},
             "z": [[0.656621491117847, 1.0, 0.473550103104769, 0.728287181589171, 0.836109636347119, 0.010595344709877, 0.202358731555529, 0.833408500514625, 0.357094105371976, 0.932689126697637, 0.41075105867242, 0.997036045490891], [1.0, 0.701869124237198, 0.213124886569087, 1.0, 1.0, 1.0, 1.0, 1.0, 0.705558560903897, 0.0, 0.0, 0.0], [0.750686590167792, 0.302097480128754, 0.0, 0.0, 0.86744601233023, 1.0, 0.983820597322698, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.766751212033884, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
             "grads": {"z_cell.bias": 5.865128509069299e-07, "z_cell.ih_layer.weight": 4.590580530319269e-07, "z_cell.hh_layer.weight": 1.5685892633602844e-07, "z_cell.hh_layer.bias": 6.09849046458066e-08, "z_layer.layer_a.0.weight": 6.27769588874969e-07, "z_layer.layer_a.0.bias": 2.147815234505427e-07, "z_layer.layer_b.0.weight": 3.628871030874388e-07, "z_layer.layer_b.0.bias": 1.0930905329368268e-07},
             "sums": {"z_cell.bias": 2.670902950357183, "z_cell.ih_layer.weight": -3.9768510244072206, "z_cell.hh_layer.weight": -2.1853968849168863, "z_cell.hh_layer.bias": -2.1150085642345147, "z_layer.layer_a.0.weight": 2.681220025579635, "z_layer.layer_a.0.bias": 0.05559906248318096, "z_layer.layer_b.0.weight": 1.2975048535101181, "z_layer.layer_b.0.bias": -0.07810410906268668}},
            {**{"l0": 0.9285555864473699, "lasso": 0.108410942026148, "c0": 0.6998795585588916, "c1": 0.07622444806955381, "lambda0": 1.0888665261143031e-05, "lambda1": 1.0091571283660206e-05, "loss": 0.008133389978687516, "mse": 0.008125},
             "z": [[0.020901860317121, 1.0, 0.036918879922462, 0.646318805488598, 1.0, 0.294377769210089, 0.0, 0.369305610071313, 0.27546647472332, 1.0, 0.695873056905581, 1.0], [1.0, 0.661493267885684, 0.16004841003834, 0.424296671646189, 1.0, 0.871101405950306, 0.943063847551109, 1.0, 1.0, 0.0, 0.0, 0.0], [0.499530958860045, 0.787226279235101, 0.08140161538653, 1.0, 1.0, 1.0, 0.613103374752669, 0.0, 0.0, 0.0, 0.0, 0.0], [0.98080372374887, 1.0, 0.972177947738034, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
             "grads": {"z_cell.bias": 5.543503868818179e-07, "z_cell.ih_layer.weight": 4.438689863908171e-07, "z_cell.hh_layer.weight": 1.830785965764282e-07, "z_cell.hh_layer.bias": 6.012834857375198e-08, "z_layer.layer_a.0.weight": 5.75393579879921e-07, "z_layer.layer_a.0.bias": 1.8646131739587e-07, "z_layer.layer_b.0.weight": 3.5373839218196865e-07, "z_layer.layer_b.0.bias": 1.093094316675114e-07},
             "sums": {"z_cell.bias": 2.6685836243996452, "z_cell.ih_layer.weight": -3.97251334411375, "z_cell.hh_layer.weight": -2.186643060418712, "z_cell.hh_layer.bias": -2.1134479461400093, "z_layer.layer_a.0.weight": 2.6809477370539945, "z_layer.layer_a.0.bias": 0.05594387258130496, "z_layer.layer_b.0.weight": 1.2966528981686385, "z_layer.layer_b.0.bias": -0.07781434086147933}},
        ],
        "eval_z": [[0.5471160462136999, 0.7187132329475222, 0.4950334078545852, 0.6580077037593568, 1.0, 0.34176392676977085, 0.0, 0.5247210889668507, 0.286380596266925, 0.7434272392046759, 0.5992774366385495, 0.7607256663132158], [0.5601986256651013, 0.675446520862976, 0.6520126471386763, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5732457918188523, 0.0, 0.0, 0.0], [0.5260396394825748, 0.693060785326648, 0.36889266412041244, 0.46795622356904854, 1.0, 1.0, 0.652284743051527, 0.0, 0.0, 0.0, 0.0, 0.0], [0.6909434250989481, 0.7714187982985646, 0.7489530380947287, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    },
    "strong": {
        "steps": [
            {**{"l0": 0.933324657039304, "lasso": 0.10409343851127673, "c0": 0.401662328519652, "c1": 0.04204671925563836, "lambda0": 1.494306662731616, "lambda1": 1.0429432031426946, "loss": 0.6521840337373284, "mse": 0.008125},
             "z": [[0.172628431514773, 0.342201294966974, 0.389705898759114, 0.0, 1.0, 0.147223793526294, 0.043440116587476, 1.0, 0.0, 0.938698667889279, 0.0, 0.975319309515532], [0.0, 1.0, 1.0, 1.0, 1.0, 0.344211761901859, 1.0, 1.0, 0.42142340499261, 0.0, 0.0, 0.0], [0.103745274486408, 0.665356047749047, 0.099366052910744, 0.464758546998283, 1.0, 0.334485900601553, 0.789222224788973, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.676081205546647, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
             "grads": {"z_cell.bias": 0.0151416667908658, "z_cell.ih_layer.weight": 0.020671740251278263, "z_cell.hh_layer.weight": 0.009714161347531357, "z_cell.hh_layer.bias": 0.002806596154609539, "z_layer.layer_a.0.weight": 0.01865141681488377, "z_layer.layer_a.0.bias": 0.004924580595885271, "z_layer.layer_b.0.weight": 0.013356512114328624, "z_layer.layer_b.0.bias": 0.001990068507451975},
             "sums": {"z_cell.bias": 2.6755541669280074, "z_cell.ih_layer.weight": -3.9968012641143833, "z_cell.hh_layer.weight": -2.185214231751713, "z_cell.hh_layer.bias": -2.11653032627125, "z_layer.layer_a.0.weight": 2.684157732627174, "z_layer.layer_a.0.bias": 0.05446207547796348, "z_layer.layer_b.0.weight": 1.2969029333370645, "z_layer.layer_b.0.bias": -0.07813666832164104}},
            {**{"l0": 0.9313948712672596, "lasso": 0.10486084182108474, "c0": 0.6015285998934559, "c1": 0.06345378053836155, "lambda0": 2.7269695247172008, "lambda1": 1.1112666599271224, "loss": 1.7189892309138741, "mse": 0.008125},
             "z": [[0.65651631971556, 1.0, 0.481404938872994, 0.734277604287763, 0.838015181329032, 0.011325058004825, 0.205815012038093, 0.833652134816052, 0.369464767419174, 0.936780274462151, 0.433080151670836, 0.999237532044859], [1.0, 0.7038396490669, 0.216494206348401, 1.0, 1.0, 1.0, 1.0, 1.0, 0.707647591033596, 0.0, 0.0, 0.0], [0.750802028813743, 0.303827206181301, 0.000263899988176, 0.0, 0.870200091320296, 1.0, 0.985744118111249, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.768870840326939, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
             "grads": {"z_cell.bias": 0.13844797981754225, "z_cell.ih_layer.weight": 0.10589510525131839, "z_cell.hh_layer.weight": 0.03409152700592442, "z_cell.hh_layer.bias": 0.012693562242855687, "z_layer.layer_a.0.weight": 0.168906929071975, "z_layer.layer_a.0.bias": 0.09301631019705944, "z_layer.layer_b.0.weight": 0.07385477318177815, "z_layer.layer_b.0.bias": 0.043592511007098295},
             "sums": {"z_cell.bias": 2.6747992911567793, "z_cell.ih_layer.weight": -4.010845102779972, "z_cell.hh_layer.weight": -2.1857822539461056, "z_cell.hh_layer.bias": -2.1165454162931914, "z_layer.layer_a.0.weight": 2.6847137667868193, "z_layer.layer_a.0.bias": 0.0541506732879883, "z_layer.layer_b.0.weight": 1.296564985060292, "z_layer.layer_b.0.bias": -0.07782710532797017}},
            {**{"l0": 0.9282125740170434, "lasso": 0.10853680972778867, "c0": 0.6998705869552496, "c1": 0.07599529513307511, "lambda0": 5.0, "lambda1": 1.1990094947767498, "loss": 3.5985970151991666, "mse": 0.008125},
             "z": [[0.020773557060579, 1.0, 0.037423616420702, 0.649530956603947, 1.0, 0.288368647774775, 0.0, 0.360451515380449, 0.280520943650339, 1.0, 0.715149391031755, 1.0], [1.0, 0.662180928594178, 0.161261309524325, 0.425406117401932, 1.0, 0.871189123832411, 0.944332237903891, 1.0, 1.0, 0.0, 0.0, 0.0], [0.499757109672511, 0.787362545981018, 0.081443447440843, 1.0, 1.0, 1.0, 0.610737391201466, 0.0, 0.0, 0.0, 0.0, 0.0], [0.9802980958308, 1.0, 0.97166934026765, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
             "grads": {"z_cell.bias": 0.4673600845028649, "z_cell.ih_layer.weight": 0.3374158437309828, "z_cell.hh_layer.weight": 0.13359959410255134, "z_cell.hh_layer.bias": 0.040890044332576266, "z_layer.layer_a.0.weight": 0.5181871120490398, "z_layer.layer_a.0.bias": 0.270085696598651, "z_layer.layer_b.0.weight": 0.2563180891466715, "z_layer.layer_b.0.bias": 0.13727872438405542},
             "sums": {"z_cell.bias": 2.674100636339193, "z_cell.ih_layer.weight": -4.023669206877729, "z_cell.hh_layer.weight": -2.1877320225195938, "z_cell.hh_layer.bias": -2.117364992843857, "z_layer.layer_a.0.weight": 2.684457477810991, "z_layer.layer_a.0.bias": 0.053830651451061924, "z_layer.layer_b.0.weight": 1.2964241765218272, "z_layer.layer_b.0.bias": -0.07751111723512179}},
        ],
        "eval_z": [[0.5468210256176751, 0.7171780594414775, 0.4916750211463354, 0.6565127890960808, 1.0, 0.33261676503904103, 0.0, 0.5163193259148448, 0.2821723929791639, 0.7408787228236762, 0.5996474805932539, 0.761090810733971], [0.5600420511737357, 0.6749282805674544, 0.6514378520567463, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5648741833495307, 0.0, 0.0, 0.0], [0.5262051184935231, 0.6920408756254743, 0.3658801853005681, 0.463351270526529, 1.0, 1.0, 0.6478892194186288, 0.0, 0.0, 0.0, 0.0, 0.0], [0.6902088267025464, 0.7694308787059836, 0.7451094134676192, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    },
}
