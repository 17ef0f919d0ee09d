"""The evaluation pass: re-score a trained SPP model (or classifier) on any split or corpus.

For each batch of Lightning's test loop the model, in eval mode, gives its selection and prediction
(``forward``, exactly as in its test step) and its soft word scores
(``word_scores``, p(keep)); :class:`~pyhighlights.evaluation.scores.ExplanationScores`
scores them against the human highlights and, for faithfulness, against a
probability model: the SPP's own predictor through ``predict`` (default) or
a separately trained full-input classifier (``faithfulness_model=<run>``).
Results go to ``<run>/evaluation/<split>[-<tag>]/metrics.json``; the
training outputs are never touched.
"""
from __future__ import annotations

import logging
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import torch

from pyhighlights.evaluation.loops import device_trainer
from pyhighlights.evaluation.outputs import check_output, slug, staged_output, write_metrics
from pyhighlights.evaluation.restore import SPLIT_PREFIX, RestoredRun, canonical_split
from pyhighlights.evaluation.scores import ExplanationScores, model_probabilities
from pyhighlights.metrics import AOPC_FRACTIONS
from pyhighlights.training.rundir import summarise

log = logging.getLogger("pyhighlights.evaluation")


class MisalignedBatches(ValueError):
    """The faithfulness model's batches do not hold the same documents and words as the model's."""


class EvaluationPass(pl.LightningModule):
    """Lightning's test loop over a model's batches (or dicts pairing them with the faithfulness model's)."""

    def __init__(self, model, num_classes: int, scorer=None, fractions=AOPC_FRACTIONS):
        super().__init__()
        self.model, self.scorer = model, scorer
        self.scores = ExplanationScores(num_classes, fractions)
        self.values: dict[str, float] = {}

    def test_step(self, batch, batch_idx: int) -> None:
        probe_batch = batch
        if isinstance(batch, dict):
            batch, probe_batch = batch["model"], batch["scorer"]
            if batch is None or probe_batch is None or not (
                    torch.equal(probe_batch.sample_ids, batch.sample_ids)
                    and torch.equal(probe_batch.word_mask, batch.word_mask)):
                raise MisalignedBatches("the faithfulness model's batches hold other documents or words than "
                                        "the model's; both must read the corpus in the same order")
        outputs = self.model(batch)
        soft = self.model.word_scores(batch)
        prob_fn = model_probabilities(self.scorer if self.scorer is not None else self.model, probe_batch)
        self.scores.update(batch, outputs["mask"], soft, outputs["logits"], prob_fn)

    def on_test_epoch_end(self) -> None:
        self.values = self.scores.compute()


def evaluate_model(model, loader, num_classes: int, *, scorer=None, scorer_loader=None,
                   fractions=AOPC_FRACTIONS, device: str = "cpu") -> dict[str, float]:
    """Every metric of ``model`` over ``loader``; faithfulness probed on ``scorer`` (default: ``model``).

    ``scorer_loader`` yields the same documents encoded for ``scorer`` (needed
    when its vocabulary or tokenizer differs); batches are paired in order and
    must agree on documents and words.
    """
    from lightning.pytorch.utilities import CombinedLoader

    evaluation = EvaluationPass(model, num_classes, scorer, fractions)
    if scorer_loader is not None:
        loader = CombinedLoader({"model": loader, "scorer": scorer_loader}, mode="max_size")
    device_trainer(device).test(evaluation, dataloaders=loader, verbose=False)
    return evaluation.values


def output_name(split: str, tag: str | None, dataset_overrides: dict[str, Any]) -> str:
    """``<split>`` or ``<split>-<tag>``; another corpus without a tag gets one made from its overrides."""
    if tag is None and dataset_overrides:
        tag = "-".join(slug(Path(str(v)).name if k == "data_dir" else v) for k, v in sorted(dataset_overrides.items()))
    return split if not tag else f"{split}-{slug(tag)}"


def evaluate_run(path: str | Path, *, split: str = "test", dataset: dict[str, Any] | None = None,
                 tag: str | None = None, batch_size: int | None = None, device: str = "cpu",
                 faithfulness_model: str | Path | None = None, overwrite: bool = False,
                 command: list[str] | None = None) -> tuple[Path, dict[str, Any]]:
    """Evaluate every seed of a run (or the one checkpoint named) and write ``metrics.json``.

    Returns the output folder and the payload: ``seeds`` (per-seed metrics
    named ``<split>/<metric>`` like the training results), ``summary`` (mean,
    std, n over seeds), and what was evaluated.
    """
    split = canonical_split(split)
    run = RestoredRun(path)
    run.warn_if_unfinished()
    dataset = dict(dataset or {})
    out_dir = run.path / "evaluation" / output_name(split, tag, dataset)
    dataset_spec = run.dataset_spec(dataset)  # validates the overrides before any work
    check_output(out_dir, overwrite)

    corpus = run.corpus(dataset)
    batch_size = batch_size or run.default_batch_size
    scorer_run = RestoredRun(faithfulness_model) if faithfulness_model else None
    prefix = SPLIT_PREFIX[split]
    seeds: dict[str, dict[str, float]] = {}
    checkpoints = run.checkpoints()
    for seed, checkpoint in checkpoints.items():
        log.info("seed %d: reading %s", seed, checkpoint)
        model = run.load_model(checkpoint)
        loader = run.loader(corpus, split, model, batch_size)
        scorer = scorer_loader = None
        if scorer_run is not None:
            scorer_checkpoint = scorer_run.checkpoints().get(seed) or next(iter(scorer_run.checkpoints().values()))
            scorer = scorer_run.load_model(scorer_checkpoint)
            scorer_loader = scorer_run.loader(corpus, split, scorer, batch_size)
        values = evaluate_model(model, loader, corpus.num_classes, scorer=scorer, scorer_loader=scorer_loader,
                                device=device)
        seeds[str(seed)] = {f"{prefix}/{name}": value for name, value in values.items()}
        log.info("seed %d: %s", seed, ", ".join(f"{k} = {v:.4f}" for k, v in seeds[str(seed)].items()
                                                   if k.endswith(("highlight_f1", "accuracy", "auprc"))))
    payload = {
        "kind": "evaluation",
        "model": run.model_name,
        "run": str(run.path),
        "run_state": run.state,
        "split": split,
        "dataset": dataset_spec,
        "documents": len(corpus.split(split)),
        "checkpoints": {str(seed): str(path) for seed, path in checkpoints.items()},
        "faithfulness_model": str(scorer_run.path) if scorer_run is not None else "self",
        "aopc_fractions": list(AOPC_FRACTIONS),
        "command": command if command is not None else sys.argv,
        "created": datetime.now(timezone.utc).isoformat(),
        "seeds": {seed: {k: _clean(v) for k, v in values.items()} for seed, values in seeds.items()},
        "summary": summarise(seeds),
    }
    with staged_output(out_dir, overwrite) as staging:
        write_metrics(staging, payload)
    return out_dir, payload


def _clean(value: float) -> float | None:
    return None if value != value else value
