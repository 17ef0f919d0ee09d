"""The registry refuses duplicates and wrong bases; cinnamon holds every default."""
import pytest
from cinnamon.registry import Registry

from pyhighlights import registry
from pyhighlights.components.selectors import GumbelSelectorConfig
from pyhighlights.registry import RegistrationError


def test_every_kind_has_components():
    for kind in ("backbone", "embeddings", "selector", "predictor", "guider", "loss", "model", "dataset", "trainer"):
        assert registry.available(kind), kind


def test_duplicate_name_is_refused():
    from pyhighlights.components.selectors import GumbelSelector

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


def test_defaults_come_from_cinnamon_registry():
    registry.build_registry()
    config = Registry.retrieve_configuration(registration_key=registry.registration_key("model", "grat"))
    assert config.pretrain_epochs == 10 and config.lr == pytest.approx(1e-4)
    assert registry.default_configuration("selector", "gumbel").temperature == 1.0
