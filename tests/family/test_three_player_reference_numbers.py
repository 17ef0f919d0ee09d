"""3PLAYER's registered defaults against numbers the reference code computed, on one padded batch.

How the constants below were produced: github.com/Gorov/three_player_for_emnlp at commit
d8cd74efeaf8c36304a9179690b384dbe88dbc6b, the model ``HardRationale3PlayerClassificationModelForEmnlp``
(``three_player_games/rationale_3players_for_emnlp.py``) of the README's entry script
``three_player_games/run_beer_single_aspect_rationale_3players.py``, run with the script's ``Argument`` values
except the sizes (``hidden_dim`` 8: a bidirectional GRU of 4 per direction; ``embedding_dim`` 6, vocabulary 20;
``cuda`` False), in float64 (``model.double()``), every weight ``values(name, shape)`` by the reference's parameter
name, the frozen embedding table ``values("embedding")``; the script's ``count_tokens`` 8 and ``count_pieces`` 4
set on the model and ``fixed_E_anti = False`` as it does before its loop; the optimisers of
``init_optimizers`` and ``init_rl_optimizers``; three iterations of the script's loop (baseline
``FloatTensor([mean(z_history_rewards)])``, ``train_one_step``, the batch's mean reward appended), each on the four
documents of tests/reference_draws.py padded to their longest (12). The code ran as written under Python 3 after
``2to3 -f print -f map`` (the repository is Python 2 / PyTorch 0.3), with a stub for the module
``models.language_models`` the model file imports but never uses, and the unused torchvision import dropped. Its
one draw, ``Categorical(z_prob).sample()``, was replaced by a fixed one: the k-th call keeps a word where
u < p(keep), u the k-th uniform stream (seed 4000 + k) of tests/reference_draws.py; our selector's
``torch.bernoulli`` is replaced by the same draw here. The recording read ``train_one_step``'s three losses, the
gradient norms of each optimiser's parameters before its ``step()``, and every parameter's sum and norm after
batches 1 and 3. The reference's code is not part of this repository.

The reference computes its reward partly in float32 (``.type(torch.FloatTensor)`` of the accuracies, the
baseline a ``FloatTensor``): the policy term, a sum over the batch, moves by ~1e-6; everything else by
less than 1e-7.
"""
from __future__ import annotations

import contextlib

import pytest
import torch
from reference_draws import uniform
from reference_steps import padded_batch, renamer, small_model, train_steps

RENAMES = [("selector_encoder.embedding.", "embed_layer."), ("predictor_encoder.embedding.", "embed_layer."),
           ("complement_encoder.embedding.", "embed_layer."),
           ("selector_encoder.", "generator.generator_model.rnn_layer."), ("selector.scorer.", "generator.output_layer."),
           ("predictor_encoder.", "E_model.encoder.rnn_layer."), ("predictor.net.1.", "E_model.predictor."),
           ("complement_encoder.", "E_anti_model.encoder.rnn_layer."),
           ("complement_predictor.net.1.", "E_anti_model.predictor.")]
reference_name = renamer(RENAMES)
OVERRIDES = ["model=three_player", "embeddings.trainable=false"]  # the script's fine_tuning = False


@contextlib.contextmanager
def fixed_bernoulli():
    """The k-th ``torch.bernoulli(p)`` keeps where u < p, u from seed 4000 + k (the reference run's draw)."""
    count, saved = {"k": 0}, torch.bernoulli

    def draw(p, *args, **kwargs):
        u = uniform(4000 + count["k"], p.shape).to(p.dtype)
        count["k"] += 1
        return (u < p).to(p.dtype)

    torch.bernoulli = draw
    try:
        yield count
    finally:
        torch.bernoulli = saved


def run(overrides=OVERRIDES, steps=3):
    model, _ = small_model(overrides, reference_name)
    with fixed_bernoulli():
        recorder = train_steps(model, steps=steps)
    return model, recorder


def test_registered_defaults_are_the_scripts():
    _, specs = small_model(["model=three_player"], reference_name)
    m = specs.model
    assert (m["lr"], m["predictor_lr"], m["complement_lr"], m["weight_decay"]) == (1e-4, 1e-3, None, 0.0)
    assert (m["accuracy_weight"], m["gap_weight"], m["complement_weight"]) == (0.1, 1.2, 1.0)
    assert (m["sparsity_weight"], m["continuity_weight"], m["count_tokens"], m["count_pieces"]) == (1.0, 1.0, 8, 4)
    assert (m["baseline_window"], m["reward"], m["margin"]) == (200, "accuracy", 0.2)
    assert (m["selector"]["name"], m["selector"]["exploration"]) == ("policy", 0.05)
    assert (m["encoder_dropout"], m["predictor"]["dropout"], m["complement_predictor"]["dropout"]) == (0.0, 0.0, 0.0)
    assert (m["predictor"]["hidden_size"], m["complement_predictor"]["hidden_size"]) == (0, 0)
    assert (m["recurrence"], m["bucket"], m["predictor_pool"]) == ("within_length", False, "kept")
    assert m["losses"]["policy"]["reduction"] == "sum"


def test_beer_appearance_is_the_scripts_setting():
    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import resolve_specs

    specs = resolve_specs(compose_config(["experiment=three_player_beer_appearance"]))
    assert (specs.dataset["aspect"], specs.dataset["max_length"]) == ("appearance", 300)
    assert (specs.backbone["hidden_size"], specs.backbone["dropout"]) == (400, 0.0)
    assert specs.embeddings["trainable"] is False
    assert specs.trainer["batch_size"] == 40
    assert (specs.model["lr"], specs.model["predictor_lr"]) == (1e-4, 1e-3)


def test_three_player_equals_the_reference_on_a_padded_batch():
    model, recorder = run()
    assert padded_batch(model).input_ids.shape[1] == 12
    for batch, (got, want) in enumerate(zip(recorder.values, REFERENCE["losses"])):
        for term, value in want.items():
            # the policy term sums ~30 log-probabilities times the advantage, whose baseline the reference rounds
            # to float32 (~6e-8): 1e-5 there
            tolerance = 1e-5 if term == "policy" else 1e-6
            assert got[f"train/loss/{term}"] == pytest.approx(value, abs=tolerance), (batch + 1, term)
    # complement, predictor, generator: three optimiser steps per batch
    assert len(recorder.grads) == 9
    for ours, (_, theirs) in zip([recorder.grads[k] for k in (0, 1, 2, 6, 7, 8)], REFERENCE["gradients"]):
        mapped = {reference_name(n): g for n, g in ours.items()}
        assert set(mapped) == set(theirs), set(mapped) ^ set(theirs)
        for name, g in theirs.items():
            assert mapped[name] == pytest.approx(g, abs=1e-6), (name, mapped[name], g)
    seen = set()
    for name, _ in model.named_parameters():
        ref = reference_name(name)
        seen.add(ref)
        s1, n1, s3, n3 = REFERENCE["parameters"][ref]
        for batch, want in ((0, (s1, n1)), (2, (s3, n3))):
            assert recorder.params[batch][name] == pytest.approx(want, abs=1e-6), (name, batch + 1)
    assert seen == set(REFERENCE["parameters"])
    # the baseline after three batches: the mean of 0 and the three batch rewards
    rewards = [sum(r) / len(r) for r in REFERENCE["rewards"]]
    assert float(model.baseline()) == pytest.approx(sum(rewards) / 4, abs=1e-6)


def test_the_check_can_fail_with_the_policy_term_averaged():
    """The same batch and draws with the policy term averaged over documents: the generator's gradient is a
    quarter of the reference's."""
    _, recorder = run([*OVERRIDES, "model.losses.policy.reduction=mean"], steps=1)
    ours = recorder.grads[2]["selector.scorer.weight"]
    theirs = REFERENCE["gradients"][2][1]["generator.output_layer.weight"]
    assert ours == pytest.approx(theirs / 4, abs=1e-6) and ours != pytest.approx(theirs, abs=1e-3)


REFERENCE = {
    "losses": [
        {'task': 0.826220659552411, 'complement_task': 0.9641979582708955, 'policy': -21.25666532608832},
        {'task': 1.177704468857171, 'complement_task': 0.9552679221330933, 'policy': -23.26279845568355},
        {'task': 0.9729356855515436, 'complement_task': 0.9329366038902049, 'policy': 1.863572719817717},
    ],
    # per optimiser step (E_anti, E, G_rl per batch; batches 1 and 3): reference name -> |grad|
    "gradients": [
        ('E_anti', {
            'E_anti_model.encoder.rnn_layer.weight_ih_l0': 0.05714306275220283,
            'E_anti_model.encoder.rnn_layer.weight_hh_l0': 0.03812268218073777,
            'E_anti_model.encoder.rnn_layer.bias_ih_l0': 0.0966178394038074,
            'E_anti_model.encoder.rnn_layer.bias_hh_l0': 0.06585671661375153,
            'E_anti_model.encoder.rnn_layer.weight_ih_l0_reverse': 0.11615896403747825,
            'E_anti_model.encoder.rnn_layer.weight_hh_l0_reverse': 0.06816129352750856,
            'E_anti_model.encoder.rnn_layer.bias_ih_l0_reverse': 0.0855115554375317,
            'E_anti_model.encoder.rnn_layer.bias_hh_l0_reverse': 0.06846792688551752,
            'E_anti_model.predictor.weight': 0.4496260391033316,
            'E_anti_model.predictor.bias': 0.4361015267480394,
        }),
        ('E', {
            'E_model.encoder.rnn_layer.weight_ih_l0': 0.07577556732176778,
            'E_model.encoder.rnn_layer.weight_hh_l0': 0.01673200419508234,
            'E_model.encoder.rnn_layer.bias_ih_l0': 0.03553459855686289,
            'E_model.encoder.rnn_layer.bias_hh_l0': 0.028569820553916228,
            'E_model.encoder.rnn_layer.weight_ih_l0_reverse': 0.12532421241426062,
            'E_model.encoder.rnn_layer.weight_hh_l0_reverse': 0.08186780503392711,
            'E_model.encoder.rnn_layer.bias_ih_l0_reverse': 0.16052621921209123,
            'E_model.encoder.rnn_layer.bias_hh_l0_reverse': 0.10292718108287599,
            'E_model.predictor.weight': 0.6037595763116741,
            'E_model.predictor.bias': 0.35483803303648875,
        }),
        ('G_rl', {
            'generator.generator_model.rnn_layer.weight_ih_l0': 3.4402980822797953,
            'generator.generator_model.rnn_layer.weight_hh_l0': 1.2810443614434681,
            'generator.generator_model.rnn_layer.bias_ih_l0': 2.572609203273652,
            'generator.generator_model.rnn_layer.bias_hh_l0': 1.739638583815454,
            'generator.generator_model.rnn_layer.weight_ih_l0_reverse': 5.2061144055568676,
            'generator.generator_model.rnn_layer.weight_hh_l0_reverse': 2.0069545271669784,
            'generator.generator_model.rnn_layer.bias_ih_l0_reverse': 5.178586247990892,
            'generator.generator_model.rnn_layer.bias_hh_l0_reverse': 2.293315942771167,
            'generator.output_layer.weight': 5.822680971257099,
            'generator.output_layer.bias': 4.268029097741892,
        }),
        ('E_anti', {
            'E_anti_model.encoder.rnn_layer.weight_ih_l0': 0.03274146012693809,
            'E_anti_model.encoder.rnn_layer.weight_hh_l0': 0.024195654552865847,
            'E_anti_model.encoder.rnn_layer.bias_ih_l0': 0.054307289659064305,
            'E_anti_model.encoder.rnn_layer.bias_hh_l0': 0.03728550296641762,
            'E_anti_model.encoder.rnn_layer.weight_ih_l0_reverse': 0.16670240787968182,
            'E_anti_model.encoder.rnn_layer.weight_hh_l0_reverse': 0.1417261808446022,
            'E_anti_model.encoder.rnn_layer.bias_ih_l0_reverse': 0.1612110353725348,
            'E_anti_model.encoder.rnn_layer.bias_hh_l0_reverse': 0.11809815134990813,
            'E_anti_model.predictor.weight': 0.45992877457961673,
            'E_anti_model.predictor.bias': 0.42697422745044605,
        }),
        ('E', {
            'E_model.encoder.rnn_layer.weight_ih_l0': 0.10852883824470944,
            'E_model.encoder.rnn_layer.weight_hh_l0': 0.054059378125810464,
            'E_model.encoder.rnn_layer.bias_ih_l0': 0.09219665922919591,
            'E_model.encoder.rnn_layer.bias_hh_l0': 0.08052898020599235,
            'E_model.encoder.rnn_layer.weight_ih_l0_reverse': 0.2417896498410706,
            'E_model.encoder.rnn_layer.weight_hh_l0_reverse': 0.05889047398854587,
            'E_model.encoder.rnn_layer.bias_ih_l0_reverse': 0.12229239491254588,
            'E_model.encoder.rnn_layer.bias_hh_l0_reverse': 0.08171524123130379,
            'E_model.predictor.weight': 0.6008843751362986,
            'E_model.predictor.bias': 0.23545196009125552,
        }),
        ('G_rl', {
            'generator.generator_model.rnn_layer.weight_ih_l0': 3.145108916516019,
            'generator.generator_model.rnn_layer.weight_hh_l0': 0.5253002265072199,
            'generator.generator_model.rnn_layer.bias_ih_l0': 0.6347655065278901,
            'generator.generator_model.rnn_layer.bias_hh_l0': 0.5460726329137925,
            'generator.generator_model.rnn_layer.weight_ih_l0_reverse': 3.5926057084291445,
            'generator.generator_model.rnn_layer.weight_hh_l0_reverse': 0.9581610014754495,
            'generator.generator_model.rnn_layer.bias_ih_l0_reverse': 1.3906210381662096,
            'generator.generator_model.rnn_layer.bias_hh_l0_reverse': 1.2989006793832127,
            'generator.output_layer.weight': 2.255550000832859,
            'generator.output_layer.bias': 0.843829877600582,
        }),
    ],
    # reference parameter: (sum after batch 1, norm after 1, sum after 3, norm after 3)
    "parameters": {
        'embed_layer.weight': (-4.162436567069923, 5.855781148605367, -4.162436567069923, 5.855781148605367),
        'E_model.encoder.rnn_layer.weight_ih_l0': (0.2680036171763731, 4.511536663725802, 0.27115369942739687, 4.50928392427415),
        'E_model.encoder.rnn_layer.weight_hh_l0': (1.0478970755404953, 3.7808540247004374, 1.0509841150129091, 3.77919549758518),
        'E_model.encoder.rnn_layer.bias_ih_l0': (0.8403635936497598, 2.0600450543845352, 0.8425312751241654, 2.059266748649893),
        'E_model.encoder.rnn_layer.bias_hh_l0': (-2.8676270790072884, 2.3516263722257778, -2.8655400562641313, 2.351278373971188),
        'E_model.encoder.rnn_layer.weight_ih_l0_reverse': (4.0391439115253895, 3.8730584114131945, 4.034410764951965, 3.8722351935624504),
        'E_model.encoder.rnn_layer.weight_hh_l0_reverse': (2.4784869794398485, 3.2966093876962153, 2.4921450342574953, 3.299814215214878),
        'E_model.encoder.rnn_layer.bias_ih_l0_reverse': (-0.22503794731688614, 1.8191532867248912, -0.2318810211818909, 1.819391801127781),
        'E_model.encoder.rnn_layer.bias_hh_l0_reverse': (0.08027126843584986, 1.653738339081823, 0.07453894120109072, 1.6520861452734652),
        'E_model.predictor.weight': (-2.560486322447328, 2.060618687055736, -2.560486322447328, 2.059855554838008),
        'E_model.predictor.bias': (0.8331837390175727, 0.5940793103619921, 0.8331837390175727, 0.5943955526669673),
        'E_anti_model.encoder.rnn_layer.weight_ih_l0': (-5.864441462650644, 4.6459080666143855, -5.858545738674814, 4.646421116167023),
        'E_anti_model.encoder.rnn_layer.weight_hh_l0': (4.509788119234472, 3.502269835150983, 4.507799936687709, 3.5049741620788315),
        'E_anti_model.encoder.rnn_layer.bias_ih_l0': (-0.9721457302959602, 1.0314762818802439, -0.9681688373328607, 1.0312076271181754),
        'E_anti_model.encoder.rnn_layer.bias_hh_l0': (0.2884987720190951, 1.6054489801902367, 0.2923870104747387, 1.6073754234080568),
        'E_anti_model.encoder.rnn_layer.weight_ih_l0_reverse': (6.69901808769502, 4.0719871142130275, 6.701533045600179, 4.072346554417557),
        'E_anti_model.encoder.rnn_layer.weight_hh_l0_reverse': (-2.6843740175279196, 2.779079750424338, -2.6827881042322432, 2.7768670050443354),
        'E_anti_model.encoder.rnn_layer.bias_ih_l0_reverse': (-2.1240037353351564, 1.7312087174227568, -2.123872043095326, 1.7306957376013412),
        'E_anti_model.encoder.rnn_layer.bias_hh_l0_reverse': (-3.364738898676, 2.090365627147536, -3.36460494052367, 2.0919825899783975),
        'E_anti_model.predictor.weight': (-1.7352304394083768, 1.4126398819301929, -1.7352304394083768, 1.4135795486494809),
        'E_anti_model.predictor.bias': (-0.5433442473325684, 1.3068713015184614, -0.5433442473325684, 1.3041685162458998),
        'generator.generator_model.rnn_layer.weight_ih_l0': (1.131254968425408, 4.119666045277979, 1.130638044211099, 4.119497303252037),
        'generator.generator_model.rnn_layer.weight_hh_l0': (0.8373924998036751, 2.4136895802997196, 0.8372893186828587, 2.4136346090778784),
        'generator.generator_model.rnn_layer.bias_ih_l0': (0.9006268514456308, 1.5231271136374334, 0.9007932773891474, 1.523236497167272),
        'generator.generator_model.rnn_layer.bias_hh_l0': (-0.7748386850770757, 2.3329256747336595, -0.7746088678956162, 2.332955378227298),
        'generator.generator_model.rnn_layer.weight_ih_l0_reverse': (-1.101241439790246, 4.515082933664832, -1.1006553957687624, 4.515376202406148),
        'generator.generator_model.rnn_layer.weight_hh_l0_reverse': (-0.5549526886660157, 3.560463927926504, -0.555030351370754, 3.560543137276531),
        'generator.generator_model.rnn_layer.bias_ih_l0_reverse': (-1.678457264783657, 1.943114670091874, -1.6784841541558575, 1.9430897174504287),
        'generator.generator_model.rnn_layer.bias_hh_l0_reverse': (0.570633537084021, 1.5798526892131473, 0.5704914226427213, 1.5796899553198833),
        'generator.output_layer.weight': (-1.6747714357230643, 2.0123649290823726, -1.6747714357230643, 2.012360709221091),
        'generator.output_layer.bias': (-0.09300384885961543, 0.2679388357482483, -0.09300384885961543, 0.2678137176879985),
    },
    # the reference's samples z of batches 1-3 and its baselines (float32, as the script's FloatTensor)
    "baselines": [0.0, -0.8023809194564819, -1.3331348896026611],
    "rewards": [[-1.533333381017049, 0.6333334048589071, -2.4857143333980014, -3.0333332618077593], [-1.283333381017049, -1.3333333333333333, -2.628571476255144, -4.333333333333333], [-1.6166667143503823, 0.6333334048589071, -2.0571429048265726, -4.333333333333333]],
}
