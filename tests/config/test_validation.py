"""Overrides are validated against the registered configurations before anything is built."""
import math

import pytest

from pyhighlights import registry
from pyhighlights.config.resolve import ConfigError, schema, validate


def test_schema_nests_children_with_model_specific_defaults():
    spec = schema("model", "grat")
    assert spec["selector"]["temperature"] == 1.0
    assert spec["losses"]["sparsity"] == {"name": "sparsity", "weight": 10.0, "target": 0.15, "padding": "counted",
                                          "mask": "mask", "word_mask": "word_mask", "raw_mask": "raw_mask",
                                          "mode": "penalty", "multiplier_update": "additive", "multiplier_lr": 0.2,
                                          "multiplier_init": 1e-5, "multiplier_decay": 0.5, "multiplier_max": 5.0,
                                          "multiplier_rate": "threshold", "multiplier_warmup": 0,
                                          "multiplier_warmup_epochs": 3, "multiplier_kp": 0.0}
    assert spec["losses"]["match"] == {"name": "match", "weight": 1.5, "p": "logits", "q": "guider_logits"}
    assert spec["guider_losses"]["guider_task"]["logits"] == "guider_logits"
    # the generic loss default is untouched by the model's presets
    assert schema("loss", "sparsity")["weight"] == 1.0


def test_nested_override_is_applied():
    spec = validate("model", {"name": "rnp", "selector": {"temperature": 0.5}}, "model")
    assert spec["selector"]["temperature"] == 0.5


@pytest.mark.parametrize("node, field", [
    ({"name": "rnp", "losses": {"sparsity": {"target": -0.1}}}, "model.losses.sparsity.target"),
    ({"name": "rnp", "lr": math.nan}, "model.lr"),
    ({"name": "rnp", "lr": "fast"}, "model.lr"),
    ({"name": "rnp", "selector": {"temprature": 0.5}}, "model.selector.temprature"),
    ({"name": "rnp", "losses": {"sparsty": {"weight": 1.0}}}, "model.losses.sparsty"),
    ({"name": "rnpx"}, "model.name"),
])
def test_bad_values_name_the_field(node, field):
    with pytest.raises(ConfigError) as error:
        validate("model", node, "model")
    assert str(error.value).startswith(field)


def test_bounds_are_listed():
    with pytest.raises(ConfigError, match=r">= 0.0.*<= 1.0"):
        validate("model", {"name": "rnp", "losses": {"sparsity": {"target": 1.5}}}, "model")


def test_conditions_are_checked():
    with pytest.raises(ConfigError, match="hidden_size must be even"):
        validate("backbone", {"name": "gru", "hidden_size": 63}, "backbone")
    with pytest.raises(ConfigError, match="separate_predictor_encoder"):
        validate("model", {"name": "grat", "separate_predictor_encoder": False}, "model")
    with pytest.raises(ConfigError, match="guide_term and match_term must differ"):
        validate("model", {"name": "grat", "guide_term": "match"}, "model")


@pytest.mark.parametrize("node, message", [
    # a term reading an output the model does not produce
    ({"name": "rnp", "losses": {"task": {"logits": "no_such_output"}}},
     "model.losses.task.logits: 'no_such_output' is not an output of rnp; outputs: adversary_logits, "
     "disagreement, keep_logit, labels, logits, mask, raw_mask, selector_logits, word_mask"),
    ({"name": "rnp", "losses": {"sparsity": {"name": "guide"}}},
     "model.losses.sparsity.keep_target: 'keep_target' is not an output of rnp (loss 'guide' reads its "
     "'keep_target' input from the output named here: model.losses.sparsity.keep_target=<output>); outputs: "),
    # a divergence in a slot that binds no distributions
    ({"name": "rnp", "losses": {"task": {"name": "kl"}}},
     "model.losses.task.p: 'p' is not an output of rnp (loss 'kl' reads its 'p' input from the output named here"),
    ({"name": "grat", "guider_losses": {"guider_task": {"logits": "logits"}}},
     "model.guider_losses.guider_task.logits: 'logits' is not an output of grat (loss 'cross_entropy' reads its "
     "'logits' input from the output named here: model.guider_losses.guider_task.logits=<output>); "
     "outputs: guider_logits, labels"),
    ({"name": "mcd", "losses": {"divergence": {"q": "guider_logits"}}},
     "model.losses.divergence.q: 'guider_logits' is not an output of mcd; outputs: "),
    # an annealed term, or a phase's term, that names no loss term
    ({"name": "grat", "guide_term": "nope"},
     "model.guide_term: 'nope' is not a loss term of model.losses; terms: task, sparsity, continuity, guide, match"),
    ({"name": "mrd", "selector_terms": ["sparsity", "divergense"]},
     "model.selector_terms: 'divergense' is not a loss term of model.losses; terms: task, remainder_task, "),
    # a part that does not fit its slot
    ({"name": "rnp", "selector": {"name": "mlp"}},
     lambda: f"model.selector.name: no selector named 'mlp'; available: {', '.join(registry.available('selector'))}"),
    ({"name": "rnp", "losses": {"task": {"name": "gumbel"}}},
     lambda: f"model.losses.task.name: no loss named 'gumbel'; available: {', '.join(registry.available('loss'))}"),
])
def test_wiring_errors_are_one_line_naming_the_field_and_what_is_allowed(node, message):
    with pytest.raises(ConfigError) as error:
        validate("model", node, "model")
    message = message() if callable(message) else message  # the registered names, plugins' included
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_the_parts_own_defaults_follow_the_chosen_part():
    # G-RAT's selector dropout 0.2 is for the gumbel selector; a random selector has no dropout
    spec = validate("model", {"name": "grat", "selector": {"name": "random"}}, "model")
    assert spec["selector"] == {"name": "random", "rate": 0.15}
    # G-RAT's match weight 1.5 carries to another divergence in that slot
    assert validate("model", {"name": "grat", "losses": {"match": {"name": "jsd"}}}, "model")["losses"]["match"] == {
        "name": "jsd", "weight": 1.5, "p": "logits", "q": "guider_logits"}


# G-RAT's model parameters as a run of the version before loss inputs were roles recorded them in its manifest
# (experiment=quick_grat model.pretrain_epochs=1, seed 0): the match term still names its inputs
# ``logits``/``reference``.
RECORDED_BEFORE_ROLES = {
    "bucket": True, "decay": 0.005, "encoder_dropout": 0.0, "encoder_lr": None, "grad_clip": 0.0,
    "guide_target_mean": "padded", "guide_term": "guide",
    "guider": {"dropout": 0.2, "name": "reference", "noise_sigma": 1.0},
    "guider_losses": {"guider_task": {"logits": "guider_logits", "name": "cross_entropy", "weight": 1.0}},
    "guider_lr": None,
    "losses": {"continuity": {"name": "continuity", "padding": "counted", "weight": 2.0},
               "guide": {"average": "padded", "logit": "keep_column", "name": "guide", "weight": 10.0},
               "match": {"logits": "logits", "name": "match", "reference": "guider_logits", "weight": 1.5},
               "sparsity": {"name": "sparsity", "padding": "counted", "target": 0.15, "weight": 2.0},
               "task": {"logits": "logits", "name": "cross_entropy", "weight": 1.0}},
    "lr": 0.002, "match_term": "match", "name": "grat", "pad_to": None,
    "predictor": {"dropout": 0.2, "hidden_size": 0, "name": "mlp"}, "predictor_pool": "valid",
    "pretrain_epochs": 1, "recurrence": "within_length",
    "selector": {"dropout": 0.2, "evaluation": "threshold", "name": "gumbel", "temperature": 1.0},
    "separate_predictor_encoder": True, "shared_embeddings": False, "shared_norm": True, "weight_decay": 2e-06,
}


def test_a_configuration_recorded_before_inputs_were_roles_still_validates_with_the_same_wiring():
    spec = validate("model", RECORDED_BEFORE_ROLES, "model")
    match = spec["losses"]["match"]
    assert (match["p"], match["q"], match["weight"]) == ("logits", "guider_logits", 1.5)
    assert "reference" not in match and "logits" not in match
    assert spec["losses"]["task"]["logits"] == "logits"  # cross-entropy's role is still called logits
    assert spec["losses"]["guide"]["keep_target"] == "guide_target"


def test_a_divergence_given_both_its_former_and_its_role_field_is_refused():
    with pytest.raises(ConfigError, match=r"model\.losses\.match\.reference: unknown field"):
        validate("model", {"name": "grat", "losses": {"match": {"reference": "guider_logits", "q": "logits"}}}, "model")


def test_a_term_without_the_roles_its_slot_binds_is_refused_naming_the_wiring():
    # G-RAT binds its match slot's p and q; cross-entropy reads logits and labels and would drop that wiring
    with pytest.raises(ConfigError, match=r"^model\.losses\.match: loss 'cross_entropy' has no input role 'p', "
                                          r"which this slot binds \(p=logits, q=guider_logits\)"):
        validate("model", {"name": "grat", "losses": {"match": {"name": "cross_entropy"}}}, "model")
    swapped = validate("model", {"name": "grat", "losses": {"match": {"name": "kl"}}}, "model")["losses"]["match"]
    assert (swapped["name"], swapped["p"], swapped["q"]) == ("kl", "logits", "guider_logits")
