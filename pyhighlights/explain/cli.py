"""``scripts/explain.py``: explain a trained model with a post-hoc method and score the explanation (a Hydra app)."""
from __future__ import annotations

import hydra
from omegaconf import DictConfig, OmegaConf

from pyhighlights.cli.common import CONFIG_DIR, fail
from pyhighlights.cli.trained_run import command, dataset_overrides, require_run, run_app

USAGE = """\
usage: python scripts/explain.py RUN_DIR_OR_CHECKPOINT method=NAME [method.<param>=VALUE ...] [key=value ...] [--force]

Attribute the run's predictions (usually a model=classifier run) to words with
a post-hoc method, select the top round(rate * n) words of each document, and
score them like a rationaliser: highlight P/R/F1/IoU, IOU-F1, AUPRC of the raw
scores, comprehensiveness / sufficiency / AOPC on the explained model, plus
captum's normalised infidelity, max sensitivity and (IG) convergence delta.
Writes RUN_DIR/explain/<method>[-<tag>]/metrics.json and scores.jsonl.

The overrides after the path follow Hydra's grammar, as for train.py
(--cfg job prints the resolved configuration; pyhighlights/configs/explain.yaml):
  method=NAME                {methods}
  method.<param>=VALUE       a method parameter (below)
  backend=captum             captum | tdhook (tdhook: saliency, input_x_gradient, integrated_gradients;
                             output folder <method>-tdhook)
  rate=0.15                  fraction of each document's words highlighted (default 0.15)
  rate_from=RUN              use the test sparsity of a rationaliser's run instead
  split=test                 test | validation (val) | train
  dataset.<field>=VALUE      read the run's corpus from elsewhere, e.g. dataset.data_dir=/data/beer
  batch_size=16              documents per attribution batch
  max_documents=N            explain only the first N documents of the split
  infidelity_samples=10      perturbations per document for infidelity (0 = skip)
  infidelity_drop=0.25       probability that a perturbation removes a word
  sensitivity_samples=3      perturbations per document for max sensitivity (0 = skip)
  sensitivity_radius=0.02    relative noise on each word's presence for sensitivity
  seed=0                     seed of sampling methods and perturbations
  tag=NAME                   output folder suffix (several settings of one method)
  device=cpu                 cpu | cuda | cuda:N
  progress_every=N           a progress line per N documents (default: 50 when no bar shows, i.e. not a terminal)
  overwrite=false            replace an existing output folder (or --force)

method parameters (defaults):
{parameters}
"""

OPTIONS = ("rate", "rate_from", "split", "batch_size", "max_documents", "infidelity_samples", "infidelity_drop",
           "sensitivity_samples", "sensitivity_radius", "seed", "tag", "device", "backend", "progress_every")


def usage() -> str:
    from pyhighlights.explain.methods import METHODS, method_parameters

    parameters = "\n".join(f"  {name}: " + ", ".join(f"{k}={v}" for k, v in method_parameters(name).items())
                           for name in METHODS)
    return USAGE.format(methods=" | ".join(METHODS), parameters=parameters)


def store_methods() -> None:
    """One option of the ``method`` group per attribution method: its name and its parameters' defaults."""
    from hydra.core.config_store import ConfigStore

    from pyhighlights.explain.methods import METHODS, method_parameters

    for name in METHODS:
        ConfigStore.instance().store(group="method", name=name, node={"name": name, **method_parameters(name)})


@hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="explain")
def _explain(cfg: DictConfig) -> None:
    from pyhighlights.config.resolve import ConfigError
    from pyhighlights.evaluation.outputs import OutputExists
    from pyhighlights.evaluation.restore import RunNotFound
    from pyhighlights.explain.explain import explain_run

    try:
        params = OmegaConf.to_container(cfg.method, resolve=True)
        method = params.pop("name")
        out_dir, payload = explain_run(require_run(cfg), method, params=params, dataset=dataset_overrides(cfg),
                                       overwrite=bool(cfg.overwrite), command=command(),
                                       **{key: cfg[key] for key in OPTIONS})
    except (ConfigError, OutputExists, RunNotFound, FileNotFoundError, ValueError) as error:
        fail(error)
    print_explanation(payload)
    print(f"explanation written to {out_dir}")


def print_explanation(payload: dict) -> None:
    """The headline metrics, each with what it measures and which direction is better."""
    from pyhighlights.evaluation.restore import SPLIT_PREFIX

    notes = payload["notes"]
    rows = []
    summary = payload["summary"]
    for name in notes:  # in the notes' order: what is explained first, then plausibility, then faithfulness
        key = f"{SPLIT_PREFIX[payload['split']]}/{name}"
        stats = summary.get(key, {})
        if stats.get("mean") is not None:
            spread = f" ± {stats['std']:.4f} (n={stats['n']})" if stats["n"] > 1 else ""
            rows.append((f"{key} = {stats['mean']:.4f}{spread}", notes[name]))
    width = max((len(value) for value, _ in rows), default=0)
    for value, note in rows:
        print(f"{value:<{width}}   {note}")


def main(argv: list[str] | None = None) -> int:
    return run_app(_explain, argv, usage, store=store_methods)
