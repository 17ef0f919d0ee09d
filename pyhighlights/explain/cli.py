"""``scripts/explain.py``: explain a trained classifier with a captum method and score the explanation."""
from __future__ import annotations

import sys

from pyhighlights.evaluation.cli import configure_logging, print_summary, split_flags
from pyhighlights.evaluation.overrides import ArgumentError, parse_overrides, section

USAGE = """\
usage: python scripts/explain.py RUN_DIR_OR_CHECKPOINT method=NAME [backend=captum|tdhook] [key=value ...] [--force]

Attribute the run's predictions (usually a model=classifier run) to words with
a post-hoc method, select the top round(rate * n) words of each document, and
score them like a rationaliser: highlight P/R/F1/IoU, IOU-F1, AUPRC of the raw
scores, comprehensiveness / sufficiency / AOPC on the explained model, plus
captum's normalised infidelity, max sensitivity and (IG) convergence delta.
Writes RUN_DIR/explain/<method>[-<tag>]/metrics.json and scores.jsonl.

arguments (key=value):
  method=NAME                {methods}
  method.<param>=VALUE       a method parameter (below)
  backend=captum             captum | tdhook (tdhook: saliency, input_x_gradient, integrated_gradients;
                             output folder <method>-tdhook)
  rate=0.15                  fraction of each document's words highlighted (default 0.15)
  rate_from=RUN              use the test sparsity of a rationaliser's run instead
  split=test                 test | validation (val) | train
  batch_size=16              documents per attribution batch
  max_documents=N            explain only the first N documents of the split
  infidelity_samples=10      perturbations per document for infidelity (0 = skip)
  infidelity_drop=0.25       probability that a perturbation removes a word
  sensitivity_samples=3      perturbations per document for max sensitivity (0 = skip)
  sensitivity_radius=0.02    relative noise on each word's presence for sensitivity
  seed=0                     seed of sampling methods and perturbations
  tag=NAME                   output folder suffix (several settings of one method)
  device=cpu                 cpu | cuda | cuda:N
  overwrite=false            replace an existing output folder (or --force)

method parameters (defaults):
{parameters}
"""

ARGUMENTS = ("method", "rate", "rate_from", "split", "batch_size", "max_documents", "infidelity_samples",
             "infidelity_drop", "sensitivity_samples", "sensitivity_radius", "seed", "tag", "device", "backend",
             "overwrite")


def usage() -> str:
    from pyhighlights.explain.methods import METHODS, method_parameters

    parameters = "\n".join(f"  {name}: " + ", ".join(f"{k}={v}" for k, v in method_parameters(name).items())
                           for name in METHODS)
    return USAGE.format(methods=" | ".join(METHODS), parameters=parameters)


def main(argv: list[str] | None = None) -> int:
    from pyhighlights.cli.common import fail
    from pyhighlights.config.resolve import ConfigError
    from pyhighlights.evaluation.outputs import OutputExists
    from pyhighlights.evaluation.restore import RunNotFound

    argv = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in argv):
        print(usage())
        return 0
    configure_logging()
    try:
        positional, pairs, force = split_flags(argv)
        if len(positional) != 1:
            raise ArgumentError("expected one run directory or checkpoint (see --help)")
        args = parse_overrides(pairs, ARGUMENTS)
        params = section(args, "method")
        method = params.pop("name", None)
        if method is None:
            raise ArgumentError("method=NAME is required (see --help)")
        from pyhighlights.explain.explain import explain_run

        options = {k: v for k, v in args.items() if k in ARGUMENTS and k not in ("method", "overwrite")}
        out_dir, payload = explain_run(positional[0], method, params=params,
                                       overwrite=force or bool(args.get("overwrite", False)),
                                       command=[sys.argv[0], *argv], **options)
    except (ArgumentError, ConfigError, OutputExists, RunNotFound, FileNotFoundError, ValueError) as error:
        fail(error)
    print_summary(payload["summary"])
    print(f"explanation written to {out_dir}")
    return 0
