"""``scripts/evaluate.py``: re-score a trained run on any split or corpus (a Hydra app, see cli/trained_run.py)."""
from __future__ import annotations

import hydra
from omegaconf import DictConfig

from pyhighlights.cli.common import CONFIG_DIR, fail
from pyhighlights.cli.trained_run import command, dataset_overrides, print_summary, require_run, run_app

USAGE = """\
usage: python scripts/evaluate.py RUN_DIR_OR_CHECKPOINT [key=value ...] [--force]

Recompute every metric of a trained SPP model or classifier (task, highlight
P/R/F1/IoU micro and macro, sparsity, spans, IOU-F1, AUPRC of p(keep),
comprehensiveness, sufficiency and their AOPC versions) and write them to
RUN_DIR/evaluation/<split>[-<tag>]/metrics.json. Training results are never
touched; an existing evaluation is kept unless overwrite=true (or --force).
A run directory evaluates every seed's best checkpoint; a .ckpt file only that
one (any path train.py writes, e.g. .../checkpoints/best-epoch=1.ckpt).

The overrides after the path follow Hydra's grammar, as for train.py
(--cfg job prints the resolved configuration; pyhighlights/configs/evaluate.yaml):
  split=test                 test | validation (val) | train
  dataset.<field>=VALUE      read another corpus in the same format, e.g. dataset.data_dir=/data/beer
                             dataset.aspect=aroma; dataset.name=<reader> switches the reader (vocabulary
                             stays the model's); a field the run's reader lacks: +dataset.<field>=VALUE
  tag=NAME                   output folder suffix (default: made from the dataset fields changed, if any)
  faithfulness_model=RUN     score comprehensiveness/sufficiency with this classifier run (default: the model
                             itself); quote a path holding '=': faithfulness_model='.../best-epoch=1.ckpt'
  batch_size=N               evaluation batch size (default: the run's)
  device=cpu                 cpu | cuda | cuda:N
  overwrite=false            replace an existing evaluation folder

The encoding check (EVAL-X, Jethani et al., AISTATS 2021), instead of the metrics above:
  evalx=train                train an EVAL-X evaluator per seed on the run's corpus with random masks
                             (each word kept with probability evalx_keep=0.5, evalx_epochs=3 epochs at
                             evalx_lr=null: model=evalx's lr; saved under RUN/evaluation/evalx-evaluators/
                             and reused), then score the run's rationales with it
  evalx=RUN                  use the predictor of a model=evalx run as the evaluator
  Writes RUN/evaluation/<split>-evalx[-<tag>]/metrics.json: evalx_predictor_accuracy (the run's own
  predictor on its rationales), evalx_accuracy (the evaluator on them), evalx_encoding_gap (the first
  minus the second), evalx_full_accuracy, evalx_random_accuracy (a random rationale of the same size).
"""


EVALX_NAMES = ("evalx_predictor_accuracy", "evalx_accuracy", "evalx_encoding_gap", "evalx_full_accuracy",
               "evalx_random_accuracy", "evalx_sparsity")


@hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="evaluate")
def _evaluate(cfg: DictConfig) -> None:
    from pyhighlights.config.resolve import ConfigError
    from pyhighlights.evaluation.evaluate import evaluate_run
    from pyhighlights.evaluation.outputs import OutputExists
    from pyhighlights.evaluation.restore import RunNotFound

    try:
        if cfg.evalx is not None:
            from pyhighlights.evaluation.evalx import check_run

            out_dir, payload = check_run(
                require_run(cfg), evalx=str(cfg.evalx), split=cfg.split, dataset=dataset_overrides(cfg),
                tag=cfg.tag, batch_size=cfg.batch_size, device=cfg.device, epochs=int(cfg.evalx_epochs),
                keep_probability=float(cfg.evalx_keep),
                lr=None if cfg.evalx_lr is None else float(cfg.evalx_lr), overwrite=bool(cfg.overwrite),
                command=command())
            print_summary(payload["summary"], names=EVALX_NAMES)
            print(f"encoding check written to {out_dir}")
            return
        out_dir, payload = evaluate_run(
            require_run(cfg), split=cfg.split, dataset=dataset_overrides(cfg), tag=cfg.tag,
            batch_size=cfg.batch_size, device=cfg.device, faithfulness_model=cfg.faithfulness_model,
            overwrite=bool(cfg.overwrite), command=command())
    except (ConfigError, OutputExists, RunNotFound, FileNotFoundError, ValueError) as error:
        fail(error)
    print_summary(payload["summary"])
    print(f"evaluation written to {out_dir}")


def main(argv: list[str] | None = None) -> int:
    return run_app(_evaluate, argv, lambda: USAGE)
