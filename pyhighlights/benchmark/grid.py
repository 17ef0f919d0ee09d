"""A benchmark suite (``pyhighlights/configs/suite/*.yaml``) as its grid of cells.

A cell is one model on one aspect at one sparsity level, all the suite's seeds
in one run directory (``seeds=[...]``, so its ``results.json`` holds every
seed's test metrics). Its training overrides are, in order: the model, the
model's published experiment config for this corpus and aspect where one
exists (the suite's ``experiment`` pattern), the suite's corpus and aspect,
the sparsity target (see ``published_target``), the user's overrides, the
seeds. The user's overrides come after the suite's, so ``trainer.max_epochs=1``
wins over a published setting.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from pyhighlights.config.files import CONFIG_DIR
from pyhighlights.config.errors import ConfigError

SPARSITY_TARGET = "model.losses.sparsity.target"
_SUITE_KEYS = {"name", "dataset", "dataset_settings", "experiment", "published_target", "aspects", "model_targets",
               "models", "seeds", "posthoc"}
#: The table needs the highlight scores only: the robustness estimates (extra forward passes) are skipped.
EXPLAIN_SETTINGS = ("infidelity_samples=0", "sensitivity_samples=0")
#: The full-input model the post-hoc rows explain.
POSTHOC_MODEL = "classifier"


@dataclass(frozen=True)
class Level:
    label: str  # "S10", "S18.5": a column heading and a folder name
    target: float


@dataclass
class Cell:
    """One run directory of the grid: ``name`` is its folder below the benchmark's output folder."""

    name: str
    model: str
    overrides: list[str]
    seeds: list[int]
    aspect: str | None = None
    level: str | None = None
    experiment: str | None = None
    #: post-hoc explanations of this cell's run, each {method, level, rate}: written to
    #: ``<run>/explain/<method>-<level>/`` after training, in the same job
    explanations: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "model": self.model, "aspect": self.aspect, "level": self.level,
                "experiment": self.experiment, "overrides": list(self.overrides), "seeds": list(self.seeds),
                "explanations": [dict(e) for e in self.explanations]}

    @classmethod
    def from_dict(cls, payload: dict[str, Any]) -> "Cell":
        return cls(**payload)


@dataclass
class Suite:
    name: str
    dataset: str
    dataset_settings: dict[str, Any]
    experiment: str | None
    published_target: str
    aspects: dict[str, list[Level]]
    model_targets: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    models: list[str] | None = None
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2, 3, 4])
    posthoc: list[str] = field(default_factory=list)


def _where(name: str, key: str) -> str:
    return f"suite {name} (pyhighlights/configs/suite/{name}.yaml): {key}"


def suite_from_config(node: Any) -> Suite:
    """The suite of a composed ``benchmark`` config's ``suite`` node, every field checked."""
    from omegaconf import OmegaConf

    raw = OmegaConf.to_container(node, resolve=True) if not isinstance(node, dict) else dict(node)
    name = str(raw.get("name", "?"))
    unknown = sorted(set(raw) - _SUITE_KEYS)
    if unknown:
        raise ConfigError(f"{_where(name, ', '.join(unknown))}: unknown field(s); expected {sorted(_SUITE_KEYS)}")
    for key in ("name", "dataset", "aspects"):
        if not raw.get(key):
            raise ConfigError(f"{_where(name, key)}: required")
    if raw.get("published_target", "keep") not in ("keep", "level"):
        raise ConfigError(f"{_where(name, 'published_target')}: expected keep or level, "
                          f"got {raw['published_target']!r}")
    aspects: dict[str, list[Level]] = {}
    for aspect, levels in raw["aspects"].items():
        if not isinstance(levels, list) or not levels:
            raise ConfigError(f"{_where(name, f'aspects.{aspect}')}: expected a list of {{label, target}}")
        parsed = []
        for level in levels:
            if not isinstance(level, dict) or set(level) != {"label", "target"}:
                raise ConfigError(f"{_where(name, f'aspects.{aspect}')}: each level is {{label: S.., target: 0..1}}, "
                                  f"got {level!r}")
            target = float(level["target"])
            if not 0.0 < target < 1.0 or not re.fullmatch(r"[A-Za-z0-9_.]+", str(level["label"])):
                raise ConfigError(f"{_where(name, f'aspects.{aspect}')}: level {level!r}: the target must be in "
                                  f"(0, 1) and the label letters, digits, '.' or '_' (it names a folder)")
            parsed.append(Level(str(level["label"]), target))
        if len({lv.label for lv in parsed}) != len(parsed):
            raise ConfigError(f"{_where(name, f'aspects.{aspect}')}: level labels repeat")
        aspects[str(aspect)] = parsed
    seeds = raw.get("seeds") or [0, 1, 2, 3, 4]
    posthoc = list(raw.get("posthoc") or [])
    if posthoc:
        from pyhighlights import registry

        registry.load_registrations()
        unknown = [m for m in posthoc if m not in registry.available("method")]
        if unknown:
            raise ConfigError(f"{_where(name, 'posthoc')}: unknown attribution method(s) {unknown}; available: "
                              f"{', '.join(registry.available('method'))}")
    return Suite(posthoc=posthoc, name=name, dataset=str(raw["dataset"]),
                 dataset_settings=dict(raw.get("dataset_settings") or {}),
                 experiment=raw.get("experiment"), published_target=raw.get("published_target", "keep"),
                 aspects=aspects, model_targets=dict(raw.get("model_targets") or {}),
                 models=list(raw["models"]) if raw.get("models") else None, seeds=[int(s) for s in seeds])


def rationalization_models() -> list[str]:
    """Every registered model that has a sparsity loss (not the full-input classifier or the random baseline)."""
    from pyhighlights import registry

    registry.load_registrations()
    # a model's losses are a mapping of term name -> term configuration
    return [name for name in registry.available("model")
            if "sparsity" in (getattr(registry.default_configuration("model", name), "losses", None) or {})]


def published_experiment(pattern: str | None, model: str, aspect: str) -> str | None:
    """The experiment config the suite's pattern names for this model and aspect, when its file exists."""
    if not pattern:
        return None
    name = pattern.format(model=model, aspect=aspect)
    return name if (CONFIG_DIR / "experiment" / f"{name}.yaml").is_file() else None


def build_grid(suite: Suite, models: Sequence[str] | None = None, seeds: Sequence[int] | None = None,
               aspects: Sequence[str] | None = None, overrides: Sequence[str] = (),
               posthoc: Sequence[str] | None = None) -> list[Cell]:
    """Models × aspects × levels, in that order, then one full-input classifier per aspect explained by each
    post-hoc method at each level's rate; ``models``/``seeds``/``aspects``/``posthoc`` narrow the suite's."""
    chosen_models = list(models or suite.models or rationalization_models())
    chosen_seeds = [int(s) for s in (seeds if seeds is not None else suite.seeds)]
    unknown = [a for a in (aspects or []) if a not in suite.aspects]
    if unknown:
        raise ConfigError(f"aspects: {unknown} not in suite {suite.name}; it has {', '.join(suite.aspects)}")
    if not chosen_seeds or len(set(chosen_seeds)) != len(chosen_seeds):
        raise ConfigError(f"seeds: expected distinct integers, got {chosen_seeds}")
    from pyhighlights import registry

    registry.load_registrations()
    missing = [m for m in chosen_models if m not in registry.available("model")]
    if missing:
        raise ConfigError(f"models: unknown {missing}; available: {', '.join(registry.available('model'))}")
    dataset = [f"dataset={suite.dataset}", *(f"dataset.{k}={_value(v)}" for k, v in suite.dataset_settings.items())]
    seeds_override = f"seeds=[{','.join(str(s) for s in chosen_seeds)}]"
    cells = []
    for model in chosen_models:
        for aspect in (aspects or list(suite.aspects)):
            experiment = published_experiment(suite.experiment, model, aspect)
            for level in suite.aspects[aspect]:
                target = suite.model_targets.get(model, {}).get(aspect, {}).get(level.label, level.target)
                keep_own = experiment is not None and suite.published_target == "keep"
                cell_overrides = [f"model={model}", *([f"experiment={experiment}"] if experiment else []), *dataset,
                                  f"dataset.aspect={aspect}", *([] if keep_own else [f"{SPARSITY_TARGET}={target}"]),
                                  *overrides, seeds_override]
                cells.append(Cell(name=f"{model}/{aspect}/{level.label}", model=model, overrides=cell_overrides,
                                  seeds=chosen_seeds, aspect=aspect, level=level.label, experiment=experiment))
    methods = list(suite.posthoc if posthoc is None else posthoc)
    unknown_methods = [m for m in methods if m not in registry.available("method")]
    if unknown_methods:
        raise ConfigError(f"posthoc: unknown {unknown_methods}; available: {', '.join(registry.available('method'))}")
    for aspect in (aspects or list(suite.aspects)) if methods else []:
        # the classifier's registered defaults: it has no sparsity; the methods select each level's rate
        explanations = [{"method": method, "level": level.label, "rate": level.target}
                        for level in suite.aspects[aspect] for method in methods]
        cells.append(Cell(name=f"{POSTHOC_MODEL}/{aspect}", model=POSTHOC_MODEL, aspect=aspect,
                          overrides=[f"model={POSTHOC_MODEL}", *dataset, f"dataset.aspect={aspect}", *overrides,
                                     seeds_override],
                          seeds=chosen_seeds, explanations=explanations))
    return cells


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def listing(cells: Sequence[Cell], out_dir: Any, script: str = "python scripts/train.py") -> str:
    """The grid as text: one line per cell and the training command that is the same run (the benchmark runs it
    in process, or through a launcher; a rerun may resume into the same directory or pick ``<name>-2``)."""
    lines = [f"{len(cells)} cells, {sum(len(c.seeds) for c in cells)} runs (cells × seeds) below {out_dir}"]
    for cell in cells:
        lines.append(f"{cell.name}  seeds={cell.seeds}" + (f"  [{cell.experiment}]" if cell.experiment else ""))
        lines.append(f"    {script} {' '.join(_quoted(o) for o in cell.overrides)} hydra.run.dir={out_dir}/{cell.name}")
        for item in cell.explanations:
            lines.append(f"    python scripts/explain.py {out_dir}/{cell.name} method={item['method']} "
                         f"rate={item['rate']} tag={item['level']} {' '.join(EXPLAIN_SETTINGS)}")
    return "\n".join(lines) + "\n"


def _quoted(override: str) -> str:
    return f"'{override}'" if any(c in override for c in " []{}*?$") else override
