"""Every registered part as a Hydra config group, generated from the registry (the fairseq pattern).

- ``<section>/<name>`` for the run's sections: ``model=grat``, ``backbone=transformer``.
- ``<section>/<slot>/<name>`` for every slot of a part, nested where the part
  lives: ``model/selector=random``, ``model/guider=additive``,
  ``model/losses/match=jsd``. An option holds that part's own defaults, so a
  choice leaves nothing of the part it replaces; its fields stay overridable
  (``model.selector.temperature=0.5``).
- A configuration's defaults for the part in a slot are applied to the part
  chosen there, for the fields it has (hidden group ``part_defaults/...``,
  chosen by interpolating the slot's choice).
- ``schema/<kind>/<name>``: a component's full default spec, for curated YAML
  presets to build on (``defaults: [/schema/backbone/gru@_here_]``).

A YAML file ``pyhighlights/configs/<group>/<name>.yaml`` replaces the generated entry of
that name (Hydra refuses two configs of one name). :func:`help_text` is what
``--help`` prints: the groups a user chooses from, then the composed config.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from pyhighlights.config.catalogue import Catalogue, catalogue
from pyhighlights.config.errors import ConfigError
from pyhighlights.config.files import CONFIG_DIR

#: The run's sections chosen by group (the trainer's settings are YAML: pyhighlights/configs/trainer).
SECTIONS = ("dataset", "model", "backbone", "embeddings")


def _has_yaml(group: str, name: str) -> bool:
    return (CONFIG_DIR / group / f"{name}.yaml").is_file()


def part_groups(known: Catalogue | None = None) -> dict[str, str]:
    """Every generated group -> the kind of its options: the sections, then every part's slots, nested."""
    known = known or catalogue()
    kinds: dict[str, str] = {}
    owners: dict[str, str] = {}  # group -> the part whose slot first declared it, for the message below

    def add(group: str, kind: str, owner: str) -> None:
        if group in kinds:
            # One group offers one kind's options: a slot name two parts use for different kinds would
            # silently offer one of them the other's parts.
            if kinds[group] != kind:
                raise ValueError(f"slot {group}: {owners[group]} declares it of kind {kinds[group]!r} and {owner} "
                                 f"of kind {kind!r}; one slot name means one kind: rename one of the two slots")
            return
        kinds[group], owners[group] = kind, owner
        for name in known.available(kind):
            for slot, key in known.entry(kind, name)["slots"].items():
                if key is not None:
                    add(f"{group}/{slot.replace('.', '/')}", key[0], f"{kind} {name!r}")

    for section in SECTIONS:
        add(section, section, "the configuration")
    return kinds


def _part_node(known: Catalogue, group: str, kind: str, name: str) -> dict:
    """The entry of option ``name`` in ``group``: its own fields, and a defaults list choosing its slots."""
    item = known.entry(kind, name)
    spec = item["schema"]
    slots = item["slots"]
    node = {key: value for key, value in spec.items() if key not in {slot.split(".")[0] for slot in slots}}
    defaults: list = []
    presets = item["part_defaults"]
    for slot, key in slots.items():
        slot_group = slot.replace(".", "/")
        if key is None:
            defaults.append({slot_group: None})
            continue
        defaults.append({slot_group: key[1]})
        if slot in presets:
            hidden = f"part_defaults/{group}/{name}/{slot_group}"
            defaults.append({f"optional /{hidden}@{slot}": "${" + f"{group}/{slot_group}" + "}"})
    return {"defaults": ["_self_", *defaults], **node}


def _part_defaults_entries(known: Catalogue, group: str, kind: str, name: str) -> list[tuple[str, str, dict]]:
    """(hidden group, option, values): a slot's part defaults restricted to each option's fields."""
    item = known.entry(kind, name)
    out = []
    for slot, values in item["part_defaults"].items():
        slot_kind = item["slots"][slot][0]
        for option in known.available(slot_kind):
            fields = known.entry(slot_kind, option)["fields"]
            applicable = {field: value for field, value in values.items() if field in fields}
            if applicable:
                out.append((f"part_defaults/{group}/{name}/{slot.replace('.', '/')}", option, applicable))
    return out


_STORED: set[tuple[str, str]] = set()


def register_schemas() -> None:
    """Store every generated entry in Hydra's ConfigStore (again when parts were registered since)."""
    from pyhighlights.config.store_copy import share_store_on_copy

    share_store_on_copy()  # every composition that follows skips copying these entries
    known = catalogue()
    if known.keys() == _STORED:
        return
    store = ConfigStore.instance()
    for item in known.entries:
        node = OmegaConf.create(item["schema"])
        # A configuration that accepts keys beyond its fields (the trainer: any lightning.Trainer argument)
        # checks them itself; Hydra must let `trainer.gradient_clip_val=1` through without a `+`.
        if item["open_keys"]:
            OmegaConf.set_struct(node, False)
        store.store(group=f"schema/{item['kind']}", name=item["name"], node=node)
    for group, kind in part_groups(known).items():
        for name in known.available(kind):
            if _has_yaml(group, name):
                continue
            store.store(group=group, name=name, node=_part_node(known, group, kind, name))
            for hidden, option, values in _part_defaults_entries(known, group, kind, name):
                store.store(group=hidden, name=option, node=values)
    _STORED.clear()
    _STORED.update(known.keys())


def _yaml_groups() -> list[str]:
    """Groups written as YAML under pyhighlights/configs/ that a user chooses (not hydra/, not the presets chosen for them)."""
    import yaml

    automatic = set()
    for entry in yaml.safe_load((CONFIG_DIR / "train.yaml").read_text()).get("defaults", []):
        if isinstance(entry, dict):
            automatic |= {key.split()[-1] for key, value in entry.items() if "${" in str(value)}
    return [folder.name for folder in sorted(CONFIG_DIR.iterdir())
            if folder.is_dir() and folder.name not in automatic | {"hydra"} | set(SECTIONS)]


def options(group: str, groups: dict[str, str] | None = None) -> list[str]:
    """A group's options: its registered parts and its YAML presets (``groups``: :func:`part_groups`, when
    the caller has it already)."""
    folder = CONFIG_DIR / group
    yaml = {p.stem for p in folder.glob("*.yaml")} if folder.is_dir() else set()
    kind = (groups if groups is not None else part_groups()).get(group)
    return sorted(yaml | set(catalogue().available(kind) if kind else ()))


def offered(group: str, groups: dict[str, str], chosen: Mapping[str, str]) -> list[str] | None:
    """What ``--help`` offers in ``group``: for a slot, the parts that fit it in the chosen part of its section
    (in any part of the section when none is chosen) and its YAML presets; None when no such part has the slot."""
    section, _, rest = group.partition("/")
    if not rest or section not in SECTIONS:
        return options(group, groups)
    known = catalogue()
    names = [chosen[section]] if chosen.get(section) in known.available(section) else known.available(section)
    slot = rest.replace("/", ".")
    fits = [set(known.entry(section, name)["fits"][slot]) for name in names
            if slot in known.entry(section, name).get("fits", {})]
    if not fits:
        return None
    folder = CONFIG_DIR / group
    return sorted({p.stem for p in folder.glob("*.yaml")} | set().union(*fits))


def help_text(config_yaml: str, chosen: Mapping[str, str] | None = None) -> str:
    """``--help``: every group with the options that fit it, then the config.

    ``chosen``: section -> the part chosen there (``{"model": "grat"}``): its slots are listed with the parts
    that fit each (a loss slot: the terms that read what the model produces there); the terms of one field
    that fit alike share a line: ``model/losses/<term>: options (terms: ...)``.
    """
    chosen = chosen or {}
    lines, done = [], set()
    groups = part_groups()
    shown = {group: offered(group, groups, chosen) for group in groups}
    shown = {group: names for group, names in shown.items() if names is not None}
    for group in [*shown, *_yaml_groups()]:
        if group in done:
            continue
        parent = group.rpartition("/")[0]
        siblings = [g for g in shown if g.rpartition("/")[0] == parent and parent not in groups
                    and groups[g] == groups.get(group) and shown[g] == shown[group]] if parent else []
        if len(siblings) > 1:
            done.update(siblings)
            terms = ", ".join(g.rpartition("/")[2] for g in siblings)
            lines.append(f"  {parent}/<term>: {', '.join(shown[group])}  (terms: {terms})")
        else:
            done.add(group)
            lines.append(f"  {group}: {', '.join(shown.get(group) or options(group, groups))}")
    return "\n".join([
        "pyhighlights: train select-then-predict rationalisers",
        "== Choices (group=option; a model's parts: model/<slot>=option, e.g. model/selector=random) ==",
        *lines, "",
        "== Config (override any field: model.selector.temperature=0.5) ==", config_yaml,
        "Docs: README.md (Training, Adding a model, Adding a part)"])


def group_overrides(overrides: Sequence[str]) -> list[str]:
    """The overrides with ``a.b.name=x`` spelled as the group choice ``a/b=x``, each choice checked.

    ``model.guider.name=additive`` then swaps the whole part, as ``model/guider=additive`` does; an
    option that no registered part has is refused in one line naming the group and its options.
    """
    groups = part_groups()
    out = []
    for override in overrides:
        key, sep, value = override.partition("=")
        if sep and key.endswith(".name") and key[:-5].replace(".", "/") in groups:
            key = key[:-5].replace(".", "/")
            override = f"{key}={value}"
        if sep and key in groups and value.isidentifier() and value != "null" and value not in options(key, groups):
            raise ConfigError(f"{key}={value}: no such option; {key}: {', '.join(options(key, groups))}")
        out.append(override)
    return out
