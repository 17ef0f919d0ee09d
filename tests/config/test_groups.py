"""Every registered part is a Hydra config group, nested where it lives, generated from the registry."""
import pytest
from omegaconf import OmegaConf

from pyhighlights import registry
from pyhighlights.cli.common import CONFIG_DIR
from pyhighlights.config.compose import compose_config
from pyhighlights.config.hydra_schema import group_overrides, help_text, part_groups
from pyhighlights.config.resolve import ConfigError, validate
from pyhighlights.training.run import resolve_specs

def _has_presets(model: str) -> bool:
    """Whether YAML presets of the model (for the default corpus) set part fields: a part chosen in such a slot
    would keep the preset's values for the fields it shares, so those models host only the slots no other has."""
    return (CONFIG_DIR / "model_preset" / f"{model}.yaml").is_file() or \
        (CONFIG_DIR / "model_dataset" / f"{model}_synth_beer.yaml").is_file()


def covering_hosts() -> dict[str, str]:
    """Slot group -> a registered model that has it, over few models (greedy: the model with most new slots
    first), so every slot of every model is composed once without composing every model."""
    slots = {name: {f"model/{slot.replace('.', '/')}" for slot in registry.entry("model", name).configuration.slots()}
             for name in registry.available("model")}
    hosted: dict[str, str] = {}
    while True:
        candidates = [name for name in slots if slots[name] - set(hosted)]
        if not candidates:
            return hosted
        name = max(candidates, key=lambda n: (not _has_presets(n), len(slots[n] - set(hosted)), n))
        hosted.update({group: name for group in slots[name] - set(hosted)})


def test_every_registered_part_composes_in_its_slot_and_validates():
    groups = part_groups()
    slots = {group: kind for group, kind in groups.items() if "/" in group}
    hosted = covering_hosts()
    HOSTS = sorted(set(hosted.values()))
    assert set(slots) == set(hosted)
    # the model group is each composition's host, never a choice: it does not set the number of rounds
    rounds = max(len(registry.available(kind)) for group, kind in groups.items() if group != "model")
    seen = set()
    for turn in range(rounds):
        for host in HOSTS:
            # one composition per host and turn: every group takes its turn-th option
            chosen = {group: registry.available(kind)[turn % len(registry.available(kind))]
                      for group, kind in groups.items()
                      if group != "model" and ("/" not in group or hosted[group] == host)}
            if set(chosen.items()) <= seen:
                continue  # every option of this host's groups has had its turn
            cfg = OmegaConf.create(OmegaConf.to_container(compose_config(
                [f"model={host}", *(f"{g}={o}" for g, o in chosen.items())]), resolve=True))
            for group, option in chosen.items():
                path, kind = group.replace("/", "."), groups[group]
                node = OmegaConf.to_container(OmegaConf.select(cfg, path))
                # the part's own fields, nothing left from the part it replaced
                fields = registry.entry(kind, option).configuration.model_fields
                assert node["name"] == option and set(node) - {"name"} == set(fields), (group, node)
                assert validate(kind, node, path)["name"] == option
                seen.add((group, option))
    assert seen == {(g, o) for g, kind in groups.items() if g != "model" for o in registry.available(kind)}


def test_choosing_a_part_brings_its_defaults_and_its_fields_stay_overridable():
    cfg = compose_config(["model=rnp", "model/selector=random", "model.selector.rate=0.5"])
    assert OmegaConf.to_container(cfg.model.selector) == {"name": "random", "rate": 0.5}
    cfg = compose_config(["model=grat", "model/guider=additive", "model.guider.attention_size=7"])
    specs = resolve_specs(cfg)
    assert specs.model["guider"]["name"] == "additive" and specs.model["guider"]["attention_size"] == 7


def test_the_old_name_spelling_swaps_the_whole_part():
    assert group_overrides(["model.guider.name=additive", "model.losses.match.name=jsd", "model.lr=1",
                            "model.name=grat"]) == ["model/guider=additive", "model/losses/match=jsd", "model.lr=1",
                                                    "model=grat"]
    old = resolve_specs(compose_config(["model=rnp", "model.selector.name=random"]))
    new = resolve_specs(compose_config(["model=rnp", "model/selector=random"]))
    assert old.model == new.model and old.model["selector"] == {"name": "random", "rate": 0.15}


def test_an_option_no_part_has_is_refused_in_one_line():
    selectors = ", ".join(sorted(registry.available("selector")))  # every registered selector, in order
    with pytest.raises(ConfigError, match=rf"^model/selector=mlp: no such option; model/selector: {selectors}$"):
        group_overrides(["model/selector=mlp"])
    with pytest.raises(ConfigError, match=r"^model/guider=nope: no such option; model/guider: additive, reference$"):
        group_overrides(["model.guider.name=nope"])


def test_a_newly_registered_part_is_selectable_without_yaml():
    from pyhighlights.components.selectors import RandomSelector
    from pyhighlights.registry import Configuration, Real

    class EveryOtherConfig(Configuration):
        rate: float = Real(0.5, gt=0.0, le=1.0)

    registry.register("selector", "every_other_test", EveryOtherConfig, RandomSelector)
    try:
        cfg = compose_config(["model=mgr", "model/selector=every_other_test", "model.selector.rate=0.25"])
        assert resolve_specs(cfg).model["selector"] == {"name": "every_other_test", "rate": 0.25}
    finally:
        registry._ENTRIES.pop(("selector", "every_other_test"))


def test_help_lists_the_groups_to_choose_from():
    template = help_text("<config>")
    assert f"  model/selector: {', '.join(registry.available('selector'))}\n" in template and "  model/guider: additive, reference\n" in template
    assert "model/losses/<term>: " in template and "  experiment: " in template
    assert "schema/" not in template and "part_defaults" not in template


def _slot_node(slot: str, option: str) -> dict:
    field, _, label = slot.partition(".")
    return {field: {label: {"name": option}}} if label else {field: {"name": option}}


def test_help_offers_in_each_slot_exactly_the_parts_the_model_accepts_there():
    """Per chosen model, a slot's line lists an option if and only if training's validation accepts the model
    with that option in that slot (a loss slot: only terms reading what the model produces there)."""
    groups = part_groups()
    for model in registry.available("model"):
        offered = {}
        for line in help_text("<config>", {"model": model}).splitlines():
            group, _, rest = line.strip().partition(": ")
            if not group.startswith("model/"):
                continue
            names, _, terms = rest.partition("  (terms: ")
            labels = terms.rstrip(")").split(", ") if terms else [None]
            for label in labels:
                offered[group.replace("<term>", label) if label else group] = set(names.split(", "))
        slots = registry.entry("model", model).configuration.slots()
        assert set(offered) == {f"model/{slot.replace('.', '/')}" for slot in slots}, model
        for slot in slots:
            group = f"model/{slot.replace('.', '/')}"
            for option in registry.available(groups[group]):
                try:
                    validate("model", {"name": model, **_slot_node(slot, option)}, "model")
                    accepted = True
                except ConfigError:
                    accepted = False
                assert (option in offered[group]) == accepted, (model, slot, option)


def test_help_offers_no_slot_the_chosen_model_does_not_have():
    assert "model/guider" not in help_text("<config>", {"model": "rnp"})
    assert "  model/guider: additive, reference\n" in help_text("<config>", {"model": "grat"})
    # every divergence has the roles p and q, which the slot binds: any of them fits a divergence slot
    assert "kl" in help_text("<config>", {"model": "mcd"}).split("model/losses/divergence: ")[1].split("\n")[0]
    grat = help_text("<config>", {"model": "grat"})
    match = grat.split("model/losses/match: ")[1].split("\n")[0].split(", ")
    assert {"kl", "jsd", "match"} <= set(match) and not {"guide", "cross_entropy", "sparsity"} & set(match)
    # the guide term reads G-RAT's guide target, which only the guide slot binds
    assert "guide" in grat.split("model/losses/guide: ")[1].split("\n")[0].split(", ")
    assert "guide" not in grat.split("model/losses/<term>: ")[1].split("  ")[0].split(", ")


class _TwoModelsOneSlotName:
    """A catalogue whose two models name a slot alike but fill it with parts of different kinds."""

    slots = {("model", "first"): {"helper": ("predictor", "mlp")},
             ("model", "second"): {"helper": ("selector", "gumbel")}}

    def available(self, kind):
        return sorted(name for k, name in self.slots if k == kind)

    def entry(self, kind, name):
        return {"slots": self.slots.get((kind, name), {})}


def test_a_slot_name_two_models_give_different_kinds_is_refused_naming_both():
    with pytest.raises(ValueError) as error:
        part_groups(_TwoModelsOneSlotName())
    message = str(error.value)
    assert message.startswith("slot model/helper: ") and "'predictor'" in message and "'selector'" in message
    assert "model 'first'" in message and "model 'second'" in message
