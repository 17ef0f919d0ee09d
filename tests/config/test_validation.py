"""Overrides are validated against the registered configurations before anything is built."""
import math

import pytest

from pyhighlights.config.resolve import ConfigError, schema, validate


def test_schema_nests_children_with_model_specific_defaults():
    spec = schema("model", "grat")
    assert spec["selector"]["temperature"] == 1.0
    assert spec["losses"]["sparsity"] == {"name": "sparsity", "weight": 10.0, "target": 0.15, "padding": "counted"}
    assert spec["losses"]["match"]["weight"] == 1.5
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
    with pytest.raises(ConfigError, match="guide_term and match_term must name loss terms"):
        validate("model", {"name": "grat", "guide_term": "nope"}, "model")
