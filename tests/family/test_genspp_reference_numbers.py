"""GenSPP's registered defaults against numbers the reference code computed: one selector's rationales on a padded
batch, one candidate's fitness (its fresh predictor trained, then scored), and one generation's operators.

How the constants below were produced: github.com/federicoruggeri/gen-spp at commit 79a3574 (``genetic/``), its
own modules run in float64 (``torch.set_default_dtype(torch.float64)``), eagerly (``torch.compile`` off), on CPU:

- ``src/model/highlight_extractor.py HighlightExtractor`` with the released configuration's model settings
  (``config.py``: one-layer unidirectional GRU encoders, no hidden layers, no dropout, separate encoders), 2
  classes, 16 units (the HateXplain setting's) over 6-dimensional inputs; every weight ``values(name, shape)``
  of tests/reference_draws.py by the reference's parameter name; the inputs the four documents of
  tests/reference_draws.py (12, 9, 7 and 3 tokens) as rows of ``values("embedding")``, zero-padded to 12, their
  labels one-hot;
- ``src/genetic/individual.py Individual`` with ``config.py INDIVIDUAL_PARAMETERS`` (batch 64, 3 training
  epochs, lr 1e-2, the generator frozen, no confidence term), ``ce_expected_loss`` 0.6, its training and its
  validation loader each the one batch above (``shuffle=False``): ``refine()`` (the cross-entropy of each of its
  three Adam steps recorded), then ``compute_fitness()``; once more with ``ce_expected_loss`` 1.0, where the
  fitness is not the floor;
- the operators on chromosomes ``c_k = chromosome + 0.01 k`` with fitness ``FITNESS``:
  ``RouletteWheelSelection.select(population, 0.5)`` with Python's ``random()`` returning, in order, the uniforms
  ``numpy.random.default_rng(2025).random(6)``; ``OnePointCrossover.apply_crossover(c_1, c_4)`` with the cut
  point 37; the first child through ``config.py``'s ``SplitMutation`` (std 0.05 on every gene but the last,
  0.10 on the last, the generator's output bias), each section's probability 0.7 so that some genes are left
  alone, ``numpy.random.uniform`` and ``numpy.random.normal`` returning, gene by gene, the next
  ``L`` uniforms and ``L`` standard normals of that generator (times the section's std);
  ``HalfElitismSurvival.survival_select`` of ten candidates of fitness ``SURVIVAL_FITNESS`` to six, with
  ``numpy.random.choice`` the legacy ``RandomState(PCG64(7)).choice``, which reads the same uniforms as our
  ``default_rng(7)``; the trainer then drops the tail (``__remove_extra_individuals``).

What is compared (to 1e-10; the masks, couples and survivors exactly): the hard rationale mask, the predictor's
logits before training, the three training losses, the predictor's parameters after training, the validation
cross-entropy, the selection rate, the fitness (floor and not), the chromosome's layout (the same genes in the
same order: the reference's is the generator's ``state_dict``, ours the selector path's parameters), the
couples, the two children of one crossover and the mutated child, and the survivors.

What cannot be compared, and why:

- the fitness over several validation batches: the reference averages per-batch means (batches of 64), we
  average over documents, on the corpus's validation split (the reference draws its validation documents from
  the training documents it also trains on). With one validation batch both are the same number, which is what is
  compared;
- a predictor trained over several batches: the reference reshuffles its one training loader for every candidate
  from one global generator, we visit the fixed batches in each candidate's own seeded order; with one batch
  the order is the same;
- a reused predictor's starting point: the reference's model pool keeps ``classifier.state_dict()`` as a
  model's initial weights, tensors that share storage with the parameters, so a model given to a new individual
  starts from the weights its previous individual trained; ours starts every candidate from fresh weights. Here
  one predictor is trained once, from the given weights;
- the random streams themselves: the reference draws from Python's ``random`` and numpy's global legacy
  generator, ours from one ``numpy.random.Generator``; both sides are given the same uniforms and normals;
- the hard mask at a logit of exactly the rounding point: the reference keeps a word when
  ``floor(sigmoid(z) + 0.5)`` is 1, ours when z >= 0; they differ only where sigmoid(z) rounds to 0.5 while z <
  0 (|z| below about 1e-16 in float64).

The reference's code is not part of this repository.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from reference_draws import EMB, VOCAB, examples, values

from pyhighlights.components import genetic
from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import build
from pyhighlights.data.collate import BatchCollator
from pyhighlights.models.selection import genspp_search
from pyhighlights.models.selection.genspp import GenSPPConfig
from pyhighlights.training.run import resolve_specs

FITNESS = [1.5, 3.0, 1.2, 2.25, 4.0, 1.8]
SURVIVAL_FITNESS = [1.5, 3.0, 1.2, 2.25, 4.0, 1.8, 2.5, 1.1, 3.5, 1.3]
CUT, MUTATION_PROBABILITY = 37, 0.7

REFERENCE = {
    "genes": 1169, "chromosome_sum": -8.944079516490039,
    "mask": [[1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0], [1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0],
             [0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
    "logits": [[-0.03714786422437688, 2.0425318174837996], [-0.2693045888361413, 2.1130640066664177],
               [-0.042213932034990465, 1.399875996733745], [-0.35602419013641295, 0.3480403694203035]],
    "train_losses": [0.9766435425059359, 0.8779930328525268, 0.7903807651068728],
    "ce": 0.7219228164239662, "sparsity": 0.4970238095238095, "fitness": 1.0, "fitness_limit_1": 1.5974106393880023,
    # (sum, norm) of the classifier's parameters after refine()
    "predictor": {
        "encoder.gru.weight_ih_l0": (4.598800558968331, 8.426834494150235),
        "encoder.gru.weight_hh_l0": (11.272777295732466, 13.933899503261621),
        "encoder.gru.bias_ih_l0": (6.775711360587326, 4.12454302092657),
        "encoder.gru.bias_hh_l0": (-8.215177954062653, 3.2558007086897987),
        "output_layer.weight": (4.290225613322475, 2.766561883827569),
        "output_layer.bias": (-0.00798382071610948, 0.4558568889532945)},
    "couples": [(5, 2), (4, 4), (5, 0)],
    "second_child_sum": 3.8559204835099736,
    "second_child_35_39": [0.7918649388695551, -0.25177693163997744, -0.128870311597607, -0.5215311175597668],
    "mutated_sum": 35.618478738180585, "mutated_norm": 16.81260877329458,
    "mutated_first": [0.16099658576447914, 0.014373262762248946, -0.7729063420452545, -0.5456896944287549,
                      -0.18266615597487185],
    "mutated_35_39": [0.7136028453115102, -0.2817769316399774, -0.07826567092788528, -0.5202934460124883],
    "mutated_last": [0.6993495193211531, 0.376316976883176, -0.12585773875817668],
    "survivors": [4, 8, 1, 0, 2, 9],
}


def reference_name(ours: str) -> str:
    for prefix, theirs in (("selector_encoder.forward_layers.0.", "generator.encoder.gru."),
                           ("selector.scorer.", "generator.output_layer."),
                           ("predictor_encoder.forward_layers.0.", "classifier.encoder.gru."),
                           ("predictor.net.1.", "classifier.output_layer.")):
        if ours.startswith(prefix):
            return theirs + ours[len(prefix):]
    raise KeyError(ours)


@pytest.fixture(scope="module")
def setting():
    # model=genspp's preset shrinks the search sizes for CPU minutes; the predictor's epochs are set back to the
    # registered default (the reference's training_epochs), checked below with the rest
    specs = resolve_specs(compose_config(["model=genspp", "embeddings.trainable=false",
                                          f"model.predictor_epochs={GenSPPConfig().predictor_epochs}"]))
    return specs


def make_model(specs):
    factory = BackboneFactory(specs.backbone, embedding_matrix=values("embedding", (VOCAB, EMB)),
                              freeze_embeddings=True)
    model = build("model", specs.model, path="model", backbone_factory=factory, num_classes=2).double()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "embedding." not in name:
                p.copy_(values(reference_name(name), p.shape))
    return model


def test_registered_defaults_are_the_reference_configuration(setting):
    m = setting.model
    assert (m["predictor_epochs"], m["lr"], m["ce_limit"], m["mutation_std"], m["threshold_mutation_std"]) == \
        (3, 1e-2, 0.6, 0.05, 0.10)
    assert (m["encoder_hidden_size"], m["encoder_bidirectional"], m["predictor_pool"]) == (16, False, "zeroed")
    assert (m["encoder_dropout"], m["predictor"]["dropout"], m["predictor"]["hidden_size"]) == (0.0, 0.0, 0)
    assert (m["weight_decay"], m["encoder_lr"], m["selection_rate"], m["crossover"], m["survival"]) == \
        (0.0, None, 0.5, "one_point", "half_elitism")
    assert m["mutation_probability"] == 1.0 and GenSPPConfig().population_size == 50


def test_a_candidate_scores_as_the_reference_scores_it(setting, monkeypatch):
    model = make_model(setting)
    genes = model.chromosome()
    assert len(genes) == REFERENCE["genes"] and genes.sum() == pytest.approx(REFERENCE["chromosome_sum"], abs=1e-10)
    batch = BatchCollator(0, model.pad_to)(examples())
    assert batch.input_ids.shape == (4, 12)
    model.eval()
    with torch.no_grad():
        mask = model.select(batch).mask
        assert mask.tolist() == REFERENCE["mask"]
        logits = model.predict(batch, mask)
    assert torch.allclose(logits, torch.tensor(REFERENCE["logits"], dtype=torch.float64), rtol=0, atol=1e-10)

    # the candidate's predictor starts from the weights above (not a fresh draw), trains on the one batch and is
    # scored on it
    initial = model.predictor_state()
    monkeypatch.setattr(model, "fresh_predictor", lambda seed: model.load_predictor_state(initial))
    losses = []
    cross_entropy = genspp_search.F.cross_entropy

    def recording(*args, **kwargs):
        value = cross_entropy(*args, **kwargs)
        if torch.is_grad_enabled():
            losses.append(float(value.detach()))
        return value

    monkeypatch.setattr(genspp_search.F, "cross_entropy", recording)
    scored = genspp_search.score_candidate(model, genes, 0, [batch], [batch], "cpu")
    assert losses == pytest.approx(REFERENCE["train_losses"], abs=1e-10)
    assert scored["ce"] == pytest.approx(REFERENCE["ce"], abs=1e-10)
    assert scored["sparsity"] == pytest.approx(REFERENCE["sparsity"], abs=1e-10)
    assert scored["fitness"] == REFERENCE["fitness"]  # ce above the expected loss 0.6: the floor
    assert genetic.fitness(scored["ce"], scored["sparsity"], ce_limit=1.0) == \
        pytest.approx(REFERENCE["fitness_limit_1"], abs=1e-10)
    trained = {reference_name(name).removeprefix("classifier."): value
               for name, value in scored["predictor"].items() if "embedding." not in name}
    assert set(trained) == set(REFERENCE["predictor"])
    for name, (total, norm) in REFERENCE["predictor"].items():
        assert float(trained[name].sum()) == pytest.approx(total, abs=1e-10), name
        assert float(trained[name].norm()) == pytest.approx(norm, abs=1e-10), name
    assert np.array_equal(model.chromosome(), genes)  # the selector is never trained


class Draws:
    """The crossover's cut point and the mutation's uniforms and normals, as given to the reference."""

    def __init__(self, cut=None, uniform=None, normal=None):
        self.cut, self.u, self.z = cut, uniform, normal

    def integers(self, low, high):
        assert (low, high) == (0, REFERENCE["genes"])
        return self.cut

    def uniform(self, low, high, size):
        assert (low, high, size) == (0.0, 1.0, len(self.u))
        return self.u

    def normal(self, loc, scale, size):
        assert (loc, scale, size) == (0.0, 1.0, len(self.z))
        return self.z


def test_one_generation_of_operators_as_the_reference(setting):
    model = make_model(setting)
    genes = model.chromosome()
    population = [genes + 0.01 * k for k in range(len(FITNESS))]
    rng = np.random.default_rng(2025)
    assert genetic.roulette_couples(FITNESS, setting.model["selection_rate"], rng) == REFERENCE["couples"]
    # the reference's roulette read the first six uniforms of this generator; the mutation's draws follow them
    draws = np.random.default_rng(2025)
    draws.random(6)
    u, z = draws.random(len(genes)), draws.standard_normal(len(genes))

    first, second = genetic.one_point_crossover(population[1], population[4], Draws(cut=CUT))
    assert float(second.sum()) == pytest.approx(REFERENCE["second_child_sum"], abs=1e-10)
    assert second[35:39].tolist() == pytest.approx(REFERENCE["second_child_35_39"], abs=1e-12)
    # the reference's SplitMutation: 0.05 on every gene but the last (the generator's output bias), 0.10 there;
    # the search builds the same per-gene std from the model
    std = np.full(len(genes), setting.model["mutation_std"])
    std[model.threshold_genes()] = setting.model["threshold_mutation_std"]
    assert model.threshold_genes().tolist() == [len(genes) - 1]
    mutated = genetic.gaussian_mutation(first, std, MUTATION_PROBABILITY, Draws(uniform=u, normal=z))
    assert float(mutated.sum()) == pytest.approx(REFERENCE["mutated_sum"], abs=1e-10)
    assert float(np.linalg.norm(mutated)) == pytest.approx(REFERENCE["mutated_norm"], abs=1e-10)
    for part, want in ((mutated[:5], "mutated_first"), (mutated[35:39], "mutated_35_39"),
                       (mutated[-3:], "mutated_last")):
        assert part.tolist() == pytest.approx(REFERENCE[want], abs=1e-12), want

    survivors = genetic.half_elitism(SURVIVAL_FITNESS, 6, np.random.default_rng(7))
    assert survivors == REFERENCE["survivors"]


def test_pooling_over_the_kept_words_only_computes_other_numbers():
    # the reference's classifier pools its zeroed states over the padded width: pooled over the kept words only,
    # a feature whose kept states are all negative pools below 0 and the logits move
    specs = resolve_specs(compose_config(["model=genspp", "embeddings.trainable=false", "model.predictor_pool=kept"]))
    model = make_model(specs)
    batch = BatchCollator(0, model.pad_to)(examples())
    model.eval()
    with torch.no_grad():
        logits = model.predict(batch, model.select(batch).mask)
    assert (logits - torch.tensor(REFERENCE["logits"], dtype=torch.float64)).abs().max() > 1e-2
