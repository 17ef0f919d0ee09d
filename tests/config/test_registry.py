"""The registry refuses bad registrations at import; defaults are declared once and inherited."""
import pytest
from cinnamon.registry import RegistrationKey

from pyhighlights import registry
from pyhighlights.components.selectors import GumbelSelector, GumbelSelectorConfig
from pyhighlights.config.resolve import ConfigError, schema, validate
from pyhighlights.models.base import OptimConfig
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, RegistrationError, registration_key as key


def test_every_kind_has_components():
    for kind in registry.kinds():
        assert registry.available(kind), kind


def test_duplicate_name_is_refused():
    registry.load_registrations()
    with pytest.raises(RegistrationError, match="already registered"):
        registry.register("selector", "gumbel", GumbelSelectorConfig, GumbelSelector)


def test_wrong_base_class_is_refused():
    class NotASelector:
        pass

    with pytest.raises(RegistrationError, match="does not derive from"):
        registry.register("selector", "not_a_selector", GumbelSelectorConfig, NotASelector)
    assert "not_a_selector" not in registry.available("selector")


def test_unknown_kind_is_refused():
    with pytest.raises(RegistrationError, match="unknown component kind"):
        registry.register("optimiser", "adam", GumbelSelectorConfig, object)


def test_a_default_for_a_field_that_does_not_exist_is_refused_when_the_class_is_written():
    with pytest.raises(RegistrationError, match=r"Misspelt.defaults\['lrr'\]: no such field"):
        class Misspelt(RNPConfig):
            defaults = {"lrr": 1e-4}
    with pytest.raises(RegistrationError, match=r"defaults\['losses'\]\['sparsty'\]: no such entry; "
                                                r"entries: task, sparsity, continuity"):
        class MisspeltTerm(RNPConfig):
            defaults = {"losses": {"sparsty": {"weight": 3.0}}}
    with pytest.raises(RegistrationError, match="child_defaults: write part defaults in `defaults`"):
        class OldStyle(RNPConfig):
            child_defaults = {"losses.sparsity": {"weight": 3.0}}


@pytest.mark.parametrize("part_defaults, message", [
    ({"losses": {"sparsity": {"wieght": 3.0}}}, "'wieght' is not a field of loss 'sparsity'"),
    ({"selector": {"rate": 0.3}}, "'rate' is not a field of selector 'gumbel'"),
    ({"losses": {"sparsity": {"target": 1.5}}}, "less than or equal to 1"),
])
def test_a_part_default_the_slots_part_does_not_have_is_refused_at_registration(part_defaults, message):
    class Wrong(RNPConfig):
        defaults = part_defaults

    registry.load_registrations()  # once loaded, a registration is checked at once (before: when loading)
    with pytest.raises(RegistrationError, match=message):
        registry.register("model", "wrong_defaults", Wrong, RNP)
    assert "wrong_defaults" not in registry.available("model")


def test_loss_terms_without_declared_outputs_are_refused():
    class Undeclared(OptimConfig):
        extra_losses: dict[str, RegistrationKey] = Param({"task": key("loss", "cross_entropy")})

    with pytest.raises(RegistrationError, match=r"outputs must say which outputs the terms of 'extra_losses'"):
        registry.register("model", "undeclared_outputs", Undeclared, RNP)


def test_subclasses_inherit_defaults_and_change_only_what_they_state():
    class Sub(RNPConfig):
        defaults = {"weight_decay": 0.5, "losses": {"task": {"weight": 0.5}}}

    assert (Sub().lr, Sub().weight_decay, RNPConfig().weight_decay) == (2e-3, 0.5, 0.0)
    assert Sub.part_defaults() == {"losses.sparsity": {"weight": 2.0, "target": 0.15},
                                   "losses.continuity": {"weight": 2.0}, "losses.task": {"weight": 0.5}}
    assert RNPConfig.part_defaults()["losses.sparsity"] == {"weight": 2.0, "target": 0.15}
    assert "losses.task" not in RNPConfig.part_defaults()


# The Liu et al. scripts' defaults (jugechengzi's repositories): lr 1e-4 and --cls_lambda 0.9 everywhere;
# (--sparsity_percentage, --sparsity_lambda, --continuity_lambda) per script; padding counted as metric.py does.
LIU_FAMILY = {"fr": (0.1, 12, 10), "dr": (0.1, 12, 10), "mgr": (0.1, 12, 10), "mcd": (0.1, 6, 6),
              "dar": (0.1, 12, 10), "mrd": (0.075, 6, 6)}


@pytest.mark.parametrize("name", sorted(LIU_FAMILY))
def test_the_liu_family_defaults(name):
    spec = schema("model", name)
    losses = spec["losses"]
    assert spec["lr"] == 1e-4 and losses["task"]["weight"] == 0.9
    sparsity, continuity = losses["sparsity"], losses["continuity"]
    assert (sparsity["target"], sparsity["weight"], continuity["weight"]) == LIU_FAMILY[name]
    assert sparsity["padding"] == continuity["padding"] == "counted"
    assert spec["selector"]["evaluation"] == "sample" and spec["selector"]["dropout"] == 0.2


def test_a_bad_value_reports_the_models_own_default():
    with pytest.raises(ConfigError, match="default 0.002"):
        validate("model", {"name": "rnp", "lr": -1}, "model")
    with pytest.raises(ConfigError, match="default 0.0001"):
        validate("model", {"name": "grat", "lr": -1}, "model")


def test_explain_methods_are_registry_entries():
    from pyhighlights.explain.methods import METHODS

    assert sorted(METHODS) == registry.available("method") and "integrated_gradients" in METHODS
    configuration, component = METHODS["occlusion"]
    assert registry.entry("method", "occlusion").component is component
    with pytest.raises(ConfigError, match=r"^method.window: .*greater than or equal to 1"):
        validate("method", {"name": "occlusion", "window": 0}, "method")
