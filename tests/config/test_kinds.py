"""Kinds declare themselves on their base classes; registration checks a component against its kind."""
import importlib
import sys
import textwrap

import pytest
import torch
from torch import nn

from pyhighlights import kinds, registry
from pyhighlights.components.predictors import MLPPredictorConfig, Predictor
from pyhighlights.config.resolve import build, schema
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import RegistrationError, Real


def import_module_file(tmp_path, monkeypatch, name, source):
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    return importlib.import_module(name)


def test_every_kind_is_declared_on_its_base_class():
    declared = registry.kinds()
    assert declared["predictor"].base is Predictor
    assert declared["predictor"].runtime == ("input_size", "num_classes")
    assert declared["predictor"].interface == ("forward",)
    assert declared["loss"].interface == ("value",)
    for kind, declaration in declared.items():
        for entry in registry.entries(kind):
            assert issubclass(entry.component, declaration.base), (kind, entry.name)


def test_a_part_of_the_wrong_interface_is_refused_at_import_naming_both_classes(scratch_registry, tmp_path,
                                                                                  monkeypatch):
    # A soft-attention head reads token states and a mask: not a predictor's forward(pooled).
    with pytest.raises(RegistrationError) as refused:
        import_module_file(tmp_path, monkeypatch, "soft_head_as_predictor", """
            from pyhighlights.components.predictors import MLPPredictorConfig, Predictor
            from pyhighlights.registry import register

            class SoftHead(Predictor):
                def forward(self, states, mask):
                    return states.mean(1)

            register("predictor", "soft_head", MLPPredictorConfig, SoftHead)
        """)
    message = str(refused.value)
    assert "soft_head_as_predictor.SoftHead.forward(self, states, mask)" in message
    assert "pyhighlights.components.predictors.Predictor.forward(self, pooled" in message
    assert "soft_head" not in registry.available("predictor")


def test_an_unimplemented_abstract_method_and_a_wrong_base_are_refused_naming_both(scratch_registry):
    class NoForward(Predictor):
        def __init__(self, *, input_size, num_classes):
            super().__init__()

    with pytest.raises(RegistrationError, match=r"NoForward does not implement "
                                                r"pyhighlights\.components\.predictors\.Predictor\.forward"):
        registry.register("predictor", "no_forward", MLPPredictorConfig, NoForward)

    class Plain(nn.Module):
        def forward(self, pooled):
            return pooled

    with pytest.raises(RegistrationError, match=r"Plain does not derive from pyhighlights\.components\.predictors"
                                                r"\.Predictor, the base of kind 'predictor'"):
        registry.register("predictor", "plain", MLPPredictorConfig, Plain)


def test_a_part_that_does_not_take_its_kinds_builder_arguments_is_refused(scratch_registry):
    class NoClasses(Predictor):
        def __init__(self, *, input_size, dropout, hidden_size):
            super().__init__()

        def forward(self, pooled):
            return pooled

    with pytest.raises(RegistrationError, match=r"NoClasses.__init__ does not take 'num_classes'"):
        registry.register("predictor", "no_classes", MLPPredictorConfig, NoClasses)


def test_a_new_kind_is_declared_in_its_own_module_and_a_model_builds_its_slot(scratch_registry, tmp_path,
                                                                               monkeypatch):
    module = import_module_file(tmp_path, monkeypatch, "soft_parts", """
        import torch
        from abc import abstractmethod
        from cinnamon.registry import RegistrationKey
        from torch import nn

        from pyhighlights.kinds import kind
        from pyhighlights.models.rnp import RNP, RNPConfig
        from pyhighlights.registry import Configuration, Param, Real, register, registration_key as key


        @kind("soft_predictor", runtime=("input_size", "num_classes"))
        class SoftPredictor(nn.Module):
            @abstractmethod
            def forward(self, states, mask):
                '''(logits [B, C], attention [B, T]) from token states [B, T, H].'''


        class AttentionConfig(Configuration):
            temperature: float = Real(1.0, gt=0.0)


        class Attention(SoftPredictor):
            def __init__(self, *, input_size, num_classes, temperature):
                super().__init__()
                self.score, self.out, self.temperature = nn.Linear(input_size, 1), nn.Linear(input_size, num_classes), temperature

            def forward(self, states, mask):
                weights = torch.softmax(self.score(states).squeeze(-1) / self.temperature, dim=-1)
                return self.out((weights.unsqueeze(-1) * states).sum(1)), weights


        class SoftConfig(RNPConfig):
            soft_predictor: RegistrationKey = Param(key("soft_predictor", "attention"))


        class Soft(RNP):
            def __init__(self, **common):
                super().__init__(**common)
                self.soft_predictor = self.build_slot("soft_predictor", input_size=self.predictor_encoder.output_size,
                                                      num_classes=self.num_classes)


        register("soft_predictor", "attention", AttentionConfig, Attention)
        register("model", "soft_test", SoftConfig, Soft)
    """)
    assert registry.kinds()["soft_predictor"].base is module.SoftPredictor
    part = build("soft_predictor", {"name": "attention", "temperature": 0.5}, input_size=3, num_classes=2)
    logits, weights = part(torch.ones(1, 4, 3), torch.ones(1, 4))
    assert logits.shape == (1, 2) and torch.allclose(weights, torch.full((1, 4), 0.25))

    from pyhighlights.components.backbones.base import BackboneFactory

    factory = BackboneFactory({"name": "gru", "hidden_size": 4, "dropout": 0.0}, embedding_matrix=torch.randn(10, 4))
    model = build("model", {"name": "soft_test", "soft_predictor": {"temperature": 2.0}}, path="model",
                  backbone_factory=factory, num_classes=2)
    assert isinstance(model.soft_predictor, module.Attention) and model.soft_predictor.temperature == 2.0
    # not a predictor: the predictor slots do not offer it
    assert "attention" not in registry.available("predictor")


def test_declaring_a_kind_twice_is_refused(scratch_registry):
    with pytest.raises(RegistrationError, match=r"kind 'predictor' is declared by "
                                                r"pyhighlights\.components\.predictors\.Predictor already"):
        kinds.kind("predictor")(type("OtherPredictor", (nn.Module,), {}))


# --- a model takes its values from its configuration only -------------------------------------------------
class DecayConfig(RNPConfig):
    decay: float = Real(1e-4, ge=0.0, description="annealing decay")


def test_a_model_that_restates_a_default_of_its_configuration_is_refused(scratch_registry):
    class Restating(RNP):
        def __init__(self, *, decay=1e-4, **common):
            super().__init__(**common)

    with pytest.raises(RegistrationError, match=r"Restating.__init__\(decay=0.0001\): a default beside the "
                                                r"configuration's"):
        registry.register("model", "restating", DecayConfig, Restating)


def test_a_model_parameter_that_is_no_field_or_a_slot_or_a_field_no_init_takes_is_refused(scratch_registry):
    class Unknown(RNP):
        def __init__(self, *, decay, warmup, **common):
            super().__init__(**common)

    with pytest.raises(RegistrationError, match=r"Unknown.__init__\(warmup\): not a field of the configuration"):
        registry.register("model", "unknown_parameter", DecayConfig, Unknown)

    class SlotByHand(RNP):
        def __init__(self, *, decay, selector, **common):
            super().__init__(**common)

    with pytest.raises(RegistrationError, match=r"'selector' is a slot of the configuration; build it by its "
                                                r"field name, self.build_slot\('selector', ...\)"):
        registry.register("model", "slot_by_hand", DecayConfig, SlotByHand)

    with pytest.raises(RegistrationError, match=r"configuration field 'decay' is taken by no __init__ of"):
        registry.register("model", "decay_untaken", DecayConfig, RNP)


@pytest.mark.parametrize("name, field, default", [
    ("rnp", "layer_norm", "none"), ("rnp", "predictor_pool", "kept"), ("rnp", "encoder_dropout", None),
    ("classifier", "predictor_pool", "kept"), ("grat", "pretrain_epochs", 10), ("grat", "decay", 1e-4),
    ("fr", "layer_norm", "shared"), ("dr", "layer_norm", "selector"), ("mgr", "predictor_pool", "valid"),
])
def test_knobs_that_were_init_defaults_are_configuration_fields(name, field, default):
    """The values the models' __init__ signatures used to default to, now in the spec --cfg job prints."""
    assert schema("model", name)[field] == default
    assert registry.entry("model", name).configuration.model_fields[field].description
