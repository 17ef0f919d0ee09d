"""Loss terms read their inputs by role; a model binds the roles per slot, and the binding survives a swap."""
import math

import pytest
import torch

from pyhighlights import registry
from pyhighlights.components.losses import KLTerm, LossSet
from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import ConfigError, validate
from pyhighlights.training.run import resolve_specs

DIVERGENCES = ("jsd", "match", "kl")


def test_every_term_declares_a_field_per_role_and_no_role_is_another_terms_parameter():
    registry.load_registrations()
    parameters, roles = {}, {}
    for name in registry.available("loss"):
        configuration = registry.entry("loss", name).configuration
        assert configuration.roles, name
        missing = [role for role in configuration.roles if role not in configuration.model_fields]
        assert not missing, (name, missing)
        assert registry.entry("loss", name).component.roles == configuration.roles, name
        roles[name] = set(configuration.roles)
        parameters[name] = set(configuration.model_fields) - roles[name]
    # a part default sets a field by name in whatever term a slot holds: a role of one term must not be
    # a parameter of another (sparsity's `target` rate once met the guide term's target role)
    for name, own in roles.items():
        for other, fields in parameters.items():
            assert not own & fields, (name, other, own & fields)


def test_a_term_reads_the_outputs_bound_to_its_roles():
    p, q = torch.tensor([[2.0, 0.0]]), torch.tensor([[0.0, 1.0]])
    term = KLTerm(p="remainder_logits", q="full_logits")
    value = term({"remainder_logits": p, "full_logits": q, "logits": q})
    # KL(softmax(q) || softmax(p)), written out
    sp, sq = torch.softmax(p, -1)[0], torch.softmax(q, -1)[0]
    expected = sum(float(sq[i]) * math.log(float(sq[i]) / float(sp[i])) for i in range(2))
    assert float(value) == pytest.approx(expected, rel=1e-6)
    total, parts = LossSet({"divergence": term})({"remainder_logits": p, "full_logits": q})
    assert float(total) == pytest.approx(expected, rel=1e-6) and set(parts) == {"divergence"}
    with pytest.raises(TypeError, match="no input role 'reference'"):
        KLTerm(reference="full_logits")


@pytest.mark.parametrize("model, slot, bound", [
    ("mcd", "divergence", {"p": "logits", "q": "full_logits"}),
    ("mrd", "divergence", {"p": "remainder_logits", "q": "full_logits"}),
    ("grat", "match", {"p": "logits", "q": "guider_logits"}),
])
@pytest.mark.parametrize("term", DIVERGENCES)
def test_any_divergence_swapped_into_a_slot_from_the_command_line_keeps_the_slots_wiring(model, slot, bound, term):
    specs = resolve_specs(compose_config([f"model={model}", f"model/losses/{slot}={term}"]))
    chosen = specs.model["losses"][slot]
    assert chosen["name"] == term
    assert {role: chosen[role] for role in ("p", "q")} == bound
    # the same through the field, as the older spelling
    spec = validate("model", {"name": model, "losses": {slot: {"name": term}}}, "model")
    assert {role: spec["losses"][slot][role] for role in ("p", "q")} == bound


def test_a_role_can_be_rebound_from_the_command_line_and_a_wrong_output_is_refused_naming_the_slot():
    specs = resolve_specs(compose_config(["model=mcd", "model.losses.divergence.q=logits",
                                          "model.losses.divergence.p=full_logits"]))
    assert specs.model["losses"]["divergence"]["p"] == "full_logits"
    with pytest.raises(ConfigError, match=r"^model\.losses\.divergence\.q: 'guide_target' is not an output of mcd"):
        resolve_specs(compose_config(["model=mcd", "model/losses/divergence=jsd",
                                      "model.losses.divergence.q=guide_target"]))
