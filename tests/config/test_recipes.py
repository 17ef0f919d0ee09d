"""The ``recipe`` group: ``reference`` is the registered defaults, ``recommended`` changes what the README's
Recipes table says, per model, and a model without a recommended recipe is refused rather than silently
trained on the reference settings."""
import pytest
import yaml
from omegaconf import OmegaConf

from pyhighlights import registry
from pyhighlights.config.compose import compose_config
from pyhighlights.config.files import CONFIG_DIR
from pyhighlights.config.recipe import models_with_recipe
from pyhighlights.config.resolve import ConfigError, validate
from pyhighlights.training.run import resolve_specs

PACKED = {"recurrence": "within_length", "bucket": True, "pad_to": None}
# What each recommended recipe sets, as the README's table states it (field path in the model section -> the
# recipe's value). A key the model's registered defaults already hold is not a change; every other key of the
# composed section must be the default's.
SHARED = {"selector.evaluation": "threshold", "selector.dropout": 0, "predictor_pool": "kept", **PACKED,
          "losses.sparsity.weight": 2, "losses.sparsity.padding": "excluded",
          "losses.continuity.weight": 2, "losses.continuity.padding": "excluded"}
OLDER_LAYOUT = {"layer_norm": "none", "encoder_dropout": None}
GUMBEL = {"selector.name": "gumbel", "selector.temperature": 1.0}
RECOMMENDED = {
    "fr": {**SHARED, **OLDER_LAYOUT, "lr": 0.01},
    "dr": {**SHARED, **OLDER_LAYOUT, "lr": 0.005},
    "rnp": {**SHARED, **OLDER_LAYOUT, "lr": 0.01},
    "mcd": {**SHARED, **OLDER_LAYOUT, "lr": 0.01},
    "n2r": {**SHARED, **OLDER_LAYOUT, "lr": 0.01},
    "mrd": {**SHARED, **OLDER_LAYOUT, "lr": 0.004, "losses.divergence.weight": 5},
    "dar": {**SHARED, **OLDER_LAYOUT, "lr": 0.004, "auxiliary_mode": "eval"},
    "mgr": {**SHARED, **OLDER_LAYOUT, "lr": 0.004, "num_generators": 3, "shared_generator_encoder": False,
            "generator_lr_scale": 1},
    # its rate and continuity terms count real words already: no padding switch
    "inter_rat": {**{k: v for k, v in SHARED.items() if not k.endswith(".padding")}, "encoder_dropout": None,
                  "lr": 0.01},
    "dmr": {**SHARED, **GUMBEL, "lr": 0.01, "losses.task.weight": 0.9, "losses.distillation.weight": 0.1},
    "car": {**SHARED, **GUMBEL, "lr": 0.01, "losses.likelihood.weight": 2},
    "invrat": {**SHARED, **GUMBEL, "lr": 0.01, "schedule": [1, 1, 1], "losses.invariance.weight": 1},
    "a2r": {**SHARED, "lr": 0.004, "predictor_lr": 0.004},
    "nir": {**SHARED, "lr": 0.004, "predictor_lr": 0.004,
            "selector_terms": ["soft_task", "divergence", "sparsity", "continuity"]},
    "three_player": {**SHARED, **GUMBEL, "lr": 0.004, "predictor_lr": 0.004, "generator_gradient": "pathwise",
                     "selector_terms": ["task", "gap", "sparsity", "continuity"]},
    "evalx": {**SHARED, "lr": 0.01},
    # the embedded corpus's quick settings' choices: their own gates, no shared part
    "hardkuma": {**PACKED, "lr": 0.001, "lr_decay": 1.0, "selector.initialisation": "open",
                 "selector.evaluation": "nonzero", "losses.sparsity.multiplier_init": 0.001,
                 "losses.continuity.multiplier_init": 0.001},
    "spectra": {**PACKED, "lr": 0.004, "selector.temperature": 1.0, "selector.max_iter": 10,
                "selector.transition_edges": "keep_keep", "selector.transition": 5.0},
    "genspp": PACKED,
}
# What a recipe changes in the trainer section (every other recipe changes nothing there): never the schedule.
TRAINER = {"fr": {"monitor": "val/accuracy", "mode": "max"}}


def flat(node: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in node.items():
        if isinstance(value, dict):
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def model_section(*overrides: str) -> dict:
    return resolve_specs(compose_config(list(overrides))).model


def test_the_reference_recipe_sets_nothing_but_its_name():
    # no defaults list, no setting: composing it cannot change a registered default
    assert yaml.safe_load((CONFIG_DIR / "recipe" / "reference.yaml").read_text()) == {"recipe": {"name": "reference"}}
    assert not list((CONFIG_DIR / "recipe_model").glob("reference_*.yaml"))


@pytest.mark.parametrize("name", registry.available("model"))
def test_every_model_composes_with_the_reference_recipe_as_its_default(name):
    default = compose_config([f"model={name}"])
    assert default.recipe.name == "reference"
    assert OmegaConf.to_container(compose_config([f"model={name}", "recipe=reference"])) == \
        OmegaConf.to_container(default)
    if not (CONFIG_DIR / "model_preset" / f"{name}.yaml").is_file() and \
            not (CONFIG_DIR / "model_dataset" / f"{name}_synth_beer.yaml").is_file():
        # no preset for this model: the composed model section is its configuration class's defaults
        assert resolve_specs(default).model == validate("model", {"name": name}, "model")


@pytest.mark.parametrize("name", registry.available("model"))
def test_recommended_recipe_composes_for_every_model_or_says_which_have_one(name):
    if name in models_with_recipe("recommended"):
        assert resolve_specs(compose_config([f"model={name}", "recipe=recommended"])).model["name"] == name
        return
    have = ", ".join(models_with_recipe("recommended"))
    with pytest.raises(ConfigError, match=rf"no recommended recipe for model={name} \(models with one: {have}\)"):
        resolve_specs(compose_config([f"model={name}", "recipe=recommended"]))


def test_the_table_covers_every_recipe_but_grats():
    assert sorted(RECOMMENDED) == sorted(set(models_with_recipe("recommended")) - {"grat"})


@pytest.mark.parametrize("name", sorted(RECOMMENDED))
def test_recommended_changes_exactly_what_the_table_says(name):
    reference, recommended = flat(model_section(f"model={name}")), flat(model_section(f"model={name}",
                                                                                       "recipe=recommended"))
    changed = {key: value for key, value in recommended.items() if reference.get(key) != value}
    assert {key: recommended.get(key, "missing") for key in RECOMMENDED[name]} == RECOMMENDED[name]
    assert changed == {key: value for key, value in RECOMMENDED[name].items() if reference.get(key) != value}


@pytest.mark.parametrize("name", models_with_recipe("recommended"))
def test_a_recipe_changes_in_the_trainer_section_only_what_the_table_says(name):
    reference = compose_config([f"model={name}"]).trainer
    recommended = compose_config([f"model={name}", "recipe=recommended"]).trainer
    changed = {key: value for key, value in recommended.items() if reference[key] != value}
    assert changed == TRAINER.get(name, {})


def test_grat_recommended_is_every_named_option_and_its_parts_as_if_chosen_by_group():
    chosen = model_section("model=grat", "model/losses/match=jsd", "model/guider=additive")
    recommended = model_section("model=grat", "recipe=recommended")
    assert recommended["losses"]["match"] == chosen["losses"]["match"]
    assert recommended["guider"] == chosen["guider"]
    assert recommended["losses"]["match"]["name"] == "jsd" and recommended["guider"]["name"] == "additive"
    expected = {"guide_target_mean": "valid", "predictor_pool": "kept", "shared_norm": False,
                "encoder_dropout": None, "shared_embeddings": False, **PACKED}
    assert {key: recommended[key] for key in expected} == expected
    assert recommended["selector"]["dropout"] == 0
    guide = recommended["losses"]["guide"]
    assert guide["logit"] == "log_odds" and guide["average"] == "valid"
    assert {recommended["losses"][t]["padding"] for t in ("sparsity", "continuity")} == {"excluded"}


def test_the_recipe_leaves_the_schedule_and_a_later_override_wins():
    # the recipe sets FR's lr to 0.01; the command line's 0.003 comes later and wins
    cfg = compose_config(["model=fr", "recipe=recommended", "model.lr=0.003", "trainer.max_epochs=3"])
    assert compose_config(["model=fr", "recipe=recommended"]).model.lr == 0.01
    assert cfg.model.lr == 0.003 and cfg.trainer.max_epochs == 3
    assert cfg.trainer == compose_config(["model=fr", "trainer.max_epochs=3",
                                          *(f"trainer.{k}={v}" for k, v in TRAINER["fr"].items())]).trainer


def test_a_run_recorded_before_recipes_existed_still_resolves():
    container = OmegaConf.to_container(compose_config(["model=fr"]), resolve=True)
    del container["recipe"]
    assert resolve_specs(container).model["name"] == "fr"


def test_help_offers_the_recipes_and_not_the_files_they_choose():
    from pyhighlights.config.hydra_schema import help_text

    text = help_text("<config>")
    assert "  recipe: recommended, reference\n" in text
    assert "recipe_model" not in text and "recipe_dataset" not in text


# What a quick setting may add to its model's recipe: the schedule and the target, which a recipe leaves to the
# user (per model: the epochs a teacher, guider or evaluator pre-trains, counted in max_epochs; SPECTRA's budget,
# in percent, is its target).
SCHEDULE_KEYS = {"losses.sparsity.target", "selector.budget", "auxiliary_epochs", "pretrain_epochs",
                 "population_size", "generations", "predictor_epochs"}  # the last three: GenSPP's search
# Each quick setting's target: 0.15 of the words, as SPECTRA's budget in percent; GenSPP's fitness has none.
QUICK_TARGET = {"spectra": {"selector.budget": 15}, "genspp": {}}


# RNP has no quick setting: its registered defaults are the default run's
@pytest.mark.parametrize("name", sorted(set(models_with_recipe("recommended")) - {"rnp"}))
def test_every_quick_setting_is_its_recipe_on_a_short_schedule(name):
    quick = compose_config([f"experiment=quick_{name}"])
    assert quick.recipe.name == "recommended"
    dataset = [f"dataset.environments={quick.dataset.environments}"] if name == "invrat" else []
    recipe = compose_config([f"model={name}", "recipe=recommended", *dataset])
    quick_model, recipe_model = flat(resolve_specs(quick).model), flat(resolve_specs(recipe).model)
    differ = {key for key in quick_model.keys() | recipe_model.keys() if quick_model.get(key) != recipe_model.get(key)}
    assert differ <= SCHEDULE_KEYS, differ
    target = QUICK_TARGET.get(name, {"losses.sparsity.target": 0.15})
    assert {key: quick_model.get(key) for key in target} == target
    assert quick.embeddings == recipe.embeddings
    trainer_differ = {key for key in quick.trainer if quick.trainer[key] != recipe.trainer[key]}
    assert trainer_differ <= {"max_epochs", "batch_size"}, trainer_differ


def test_every_quick_setting_has_a_recipe():
    quick = {path.stem.removeprefix("quick_") for path in (CONFIG_DIR / "experiment").glob("quick_*.yaml")}
    # RNP's quick run is the default run (its registered defaults)
    assert quick == set(models_with_recipe("recommended")) - {"rnp"}


# What a recommended recipe sets in the dataset section, per model and corpus source: every recipe redraws the
# training reviews on Lei-format Beer (recipe_dataset/recommended_beer.yaml) but those of the models that opt out
# (recipe_model_dataset/recommended_<model>_beer.yaml); everything else there is the reference's.
NOT_REDRAWN_ON_BEER = ("mcd", "invrat", "genspp")
DATASET = {(model, "beer"): {"disagreement_share": 0.9}
           for model in models_with_recipe("recommended") if model not in NOT_REDRAWN_ON_BEER}
# G-RAT's adversary reads the other aspects' disagreement (recipe_model_dataset/recommended_grat_beer.yaml)
ADVERSARY_WEIGHT = {"grat": 5}
for model in ADVERSARY_WEIGHT:
    DATASET[(model, "beer")] = {**DATASET[(model, "beer")], "aspect_environments": True}


def test_seventeen_recipes_redraw_on_beer():
    # the list above is the README's: a model gaining a recipe must be placed on one side of it
    assert len(DATASET) == 17 and set(NOT_REDRAWN_ON_BEER) <= set(models_with_recipe("recommended"))


@pytest.mark.parametrize("dataset", ["beer", "synth_beer"])
@pytest.mark.parametrize("name", models_with_recipe("recommended"))
def test_a_recipe_changes_in_the_dataset_section_only_what_the_table_says(name, dataset):
    reference = compose_config([f"model={name}", f"dataset={dataset}"]).dataset
    recommended = compose_config([f"model={name}", f"dataset={dataset}", "recipe=recommended"]).dataset
    changed = {key: value for key, value in recommended.items() if reference[key] != value}
    assert changed == DATASET.get((name, dataset), {})


def test_every_per_corpus_recipe_file_names_a_recipe_and_a_corpus_source():
    # a misnamed file would never be chosen, and its settings silently not applied
    recipes = [path.stem for path in (CONFIG_DIR / "recipe").glob("*.yaml")]
    sources = registry.available("dataset")
    per_source = set()
    for path in (CONFIG_DIR / "recipe_dataset").glob("*.yaml"):
        named = [(recipe, source) for recipe in recipes for source in sources if path.stem == f"{recipe}_{source}"]
        assert len(named) == 1, path.name
        per_source.update(named)
    assert per_source == {("recommended", "beer")}
    found = set()
    for path in (CONFIG_DIR / "recipe_model_dataset").glob("*.yaml"):
        named = [(model, dataset) for model in models_with_recipe("recommended")
                 for dataset in sources if path.stem == f"recommended_{model}_{dataset}"]
        assert len(named) == 1, path.name
        found.update(named)
    assert found == {(model, "beer") for model in (*NOT_REDRAWN_ON_BEER, *ADVERSARY_WEIGHT)}


@pytest.mark.parametrize("model", sorted(ADVERSARY_WEIGHT))
def test_the_recipes_train_the_aspect_adversary_on_beer_only(model):
    # the adversary reads the environments the Beer loader gives (dataset.aspect_environments); elsewhere it is off
    beer = model_section(f"model={model}", "recipe=recommended", "dataset=beer", "dataset.data_dir=unused")
    assert beer["losses"]["aspect_adversary"] == {**model_section(f"model={model}")["losses"]["aspect_adversary"],
                                                  "weight": ADVERSARY_WEIGHT[model]}
    for source in ("synth_beer", "hotel", "beer_r2a"):
        extra = [] if source == "synth_beer" else ["dataset.data_dir=unused"]
        other = model_section(f"model={model}", "recipe=recommended", f"dataset={source}", *extra)
        assert other["losses"]["aspect_adversary"]["weight"] == 0
    assert model_section(f"model={model}")["losses"]["aspect_adversary"]["weight"] == 0  # the reference: none
