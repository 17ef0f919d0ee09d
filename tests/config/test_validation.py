"""Overrides are validated against the registered configurations before anything is built."""
import math

import pytest

from pyhighlights.config.resolve import ConfigError, schema, validate


def test_schema_nests_children_with_model_specific_defaults():
    spec = schema("model", "grat")
    assert spec["selector"]["temperature"] == 1.0
    assert spec["losses"]["sparsity"] == {"name": "sparsity", "weight": 10.0, "target": 0.15, "padding": "counted",
                                          "mask": "mask", "word_mask": "word_mask", "raw_mask": "raw_mask"}
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
     "model.losses.task.logits: 'no_such_output' is not an output of rnp; outputs: keep_logit, labels, logits, "
     "mask, raw_mask, selector_logits, word_mask"),
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
     "model.selector.name: no selector named 'mlp'; available: gumbel, random"),
    ({"name": "rnp", "losses": {"task": {"name": "gumbel"}}},
     "model.losses.task.name: no loss named 'gumbel'; available: continuity, cross_entropy, guide, jsd, kl, "),
])
def test_wiring_errors_are_one_line_naming_the_field_and_what_is_allowed(node, message):
    with pytest.raises(ConfigError) as error:
        validate("model", node, "model")
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_the_parts_own_defaults_follow_the_chosen_part():
    # G-RAT's selector dropout 0.2 is for the gumbel selector; a random selector has no dropout
    spec = validate("model", {"name": "grat", "selector": {"name": "random"}}, "model")
    assert spec["selector"] == {"name": "random", "rate": 0.15}
    # G-RAT's match weight 1.5 carries to another divergence in that slot
    assert validate("model", {"name": "grat", "losses": {"match": {"name": "jsd"}}}, "model")["losses"]["match"] == {
        "name": "jsd", "weight": 1.5, "p": "logits", "q": "guider_logits"}
