"""EVAL-X: the encoding check of a run's rationales (Jethani et al., AISTATS 2021).

A selector trained together with its predictor can pass the label through the *shape* of its mask (which
positions it keeps, how many), and its own predictor learns to read that shape: the pair scores well while
the kept words say little. EVAL-X (``realx.py`` build_evalx / evaluate in github.com/rajesh-lab/realx)
scores a rationale with an *evaluator* that never saw a learned mask: a predictor trained on the run's
training documents with every word kept independently with probability 0.5 (the uniform distribution over
subsets, ``sample.py`` Random_Bernoulli_Sampler), so it approximates p(y | the kept words) for any subset
and cannot decode a mask's shape. The paper detects encoding as a gap: a jointly trained method whose own
predictor is accurate on its selections while EVAL-X is not on the same selections.

Reported per seed, over the evaluated split's documents, with R the run's rationale (its evaluation-mode
selection, the one its test metrics score), f the run's own predictor and q the EVAL-X evaluator:

- ``evalx_predictor_accuracy`` = mean[argmax f(x_R) = y] (the run's own accuracy on its rationales);
- ``evalx_accuracy`` = mean[argmax q(x_R) = y] (the paper's eACC);
- ``evalx_encoding_gap`` = ``evalx_predictor_accuracy - evalx_accuracy``: the share of the documents the run
  gets right that the kept words alone do not explain (near 0 for an honest selector; large when the mask
  encodes the label);
- ``evalx_full_accuracy`` = mean[argmax q(x) = y]: the evaluator on the whole text (its ceiling);
- ``evalx_random_accuracy``: q on a random rationale of the same size per document (as many words, drawn
  uniformly without replacement): what the kept *number* of words gives without the selector's choice;
- ``evalx_sparsity``: the rationales' share of real words.

The evaluator is a ``model=evalx`` predictor: ``evalx=train`` trains one per seed on the run's corpus with
the run's backbone and layout (only its random-mask phase; saved under ``RUN/evaluation/evalx-evaluators/``
and reused), or
``evalx=<run of model=evalx>`` reads the predictor that run pre-trained on random masks.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import torch

from pyhighlights.data.batch import Batch

log = logging.getLogger("pyhighlights.evaluation")

PREFIX = "evalx_"
#: The layout fields every model has: the evaluator pads and batches as the run did.
LAYOUT_FIELDS = ("pad_to", "bucket", "recurrence")


def same_size_random_mask(rationale: torch.Tensor, word_mask: torch.Tensor,
                          generator: torch.Generator | None = None) -> torch.Tensor:
    """Per document, as many real words as ``rationale`` keeps, drawn uniformly without replacement."""
    real = word_mask > 0
    counts = ((rationale > 0.5) & real).sum(dim=1, keepdim=True)
    scores = torch.rand(word_mask.shape, generator=generator, device=word_mask.device)
    scores = scores.masked_fill(~real, -1.0)  # padding ranks after every real word
    ranks = scores.argsort(dim=1, descending=True).argsort(dim=1)
    return ((ranks < counts) & real).to(torch.float32)


def encoding_scores(labels: torch.Tensor, predictor_logits: torch.Tensor, evaluator_logits: torch.Tensor,
                    full_logits: torch.Tensor, random_logits: torch.Tensor) -> dict[str, torch.Tensor]:
    """Per-document 0/1 correctness of each reading (summed by :class:`EncodingCheck`)."""
    def correct(logits):
        return (logits.argmax(dim=-1) == labels).to(torch.float64)

    return {"predictor_accuracy": correct(predictor_logits), "accuracy": correct(evaluator_logits),
            "full_accuracy": correct(full_logits), "random_accuracy": correct(random_logits)}


def summarise_check(sums: dict[str, float], documents: int, kept: float, real: float) -> dict[str, float]:
    """Means over documents and the gap (see the module docstring)."""
    values = {PREFIX + name: total / documents for name, total in sums.items()}
    values[PREFIX + "encoding_gap"] = values[PREFIX + "predictor_accuracy"] - values[PREFIX + "accuracy"]
    values[PREFIX + "sparsity"] = kept / real
    return values


class EncodingCheck(pl.LightningModule):
    """Lightning's test loop over paired batches ``{"model": ..., "evaluator": ...}`` of the same documents."""

    def __init__(self, model, evaluator, seed: int = 0):
        super().__init__()
        self.model, self.evaluator = model, evaluator
        self.seed = seed
        self.values: dict[str, float] = {}

    def on_test_epoch_start(self) -> None:
        self.sums: dict[str, float] = {}
        self.documents, self.kept, self.real = 0, 0.0, 0.0
        self.generator = torch.Generator(device=self.device).manual_seed(self.seed)

    def test_step(self, batch, batch_idx: int) -> None:
        model_batch, evaluator_batch = batch["model"], batch["evaluator"]
        check_aligned(model_batch, evaluator_batch)
        outputs = self.model(model_batch)
        word_mask = model_batch.word_mask.to(torch.float32)
        rationale = (outputs["mask"] > 0.5).to(torch.float32) * word_mask
        random = same_size_random_mask(rationale, word_mask, self.generator)
        scores = encoding_scores(model_batch.labels, outputs["logits"],
                                 self.evaluator.predict(evaluator_batch, rationale),
                                 self.evaluator.predict(evaluator_batch, word_mask),
                                 self.evaluator.predict(evaluator_batch, random))
        for name, value in scores.items():
            self.sums[name] = self.sums.get(name, 0.0) + float(value.sum())
        self.documents += model_batch.size
        self.kept += float(rationale.sum())
        self.real += float(word_mask.sum())

    def on_test_epoch_end(self) -> None:
        self.values = summarise_check(self.sums, self.documents, self.kept, self.real)


def check_aligned(model_batch: Batch | None, evaluator_batch: Batch | None) -> None:
    if model_batch is None or evaluator_batch is None or not (
            torch.equal(model_batch.sample_ids, evaluator_batch.sample_ids)
            and torch.equal(model_batch.word_mask, evaluator_batch.word_mask)):
        raise ValueError("evalx: the evaluator's batches hold other documents or words than the model's; "
                         "both must read the corpus in the same order")


def run_check(model, loader, evaluator, evaluator_loader, *, seed: int = 0, device: str = "cpu") -> dict[str, float]:
    """The encoding check of ``model``'s rationales over ``loader`` (see the module docstring)."""
    from lightning.pytorch.utilities import CombinedLoader

    from pyhighlights.evaluation.loops import device_trainer

    check = EncodingCheck(model, evaluator, seed)
    paired = CombinedLoader({"model": loader, "evaluator": evaluator_loader}, mode="max_size")
    device_trainer(device).test(check, dataloaders=paired, verbose=False)
    return check.values


# --- the evaluator ------------------------------------------------------------------------
def evaluator_specs(parameters: dict[str, Any], epochs: int, keep_probability: float,
                    lr: float | None = None) -> dict[str, Any]:
    """A training run's sections for an EVAL-X evaluator on the run's corpus, backbone and layout
    (``lr``: its learning rate; None = model=evalx's)."""
    model = {"name": "evalx", "pretrain_epochs": epochs, "keep_probability": keep_probability}
    if lr is not None:
        model["lr"] = lr
    model.update({name: parameters["model"][name] for name in LAYOUT_FIELDS if name in parameters["model"]})
    trainer = {**parameters["trainer"], "max_epochs": epochs, "progress_bar": False}
    return {"dataset": parameters["dataset"], "model": model, "backbone": parameters["backbone"],
            "embeddings": parameters["embeddings"], "trainer": trainer}


def train_evaluator(parameters: dict[str, Any], seed: int, epochs: int, keep_probability: float, path: Path,
                    lr: float | None = None):
    """Train an evaluator's random-mask phase for ``epochs`` epochs from ``seed``; save it to ``path``
    (written whole or not at all); return it loaded as :func:`pyhighlights.load` reads it."""
    from pyhighlights.inference import load
    from pyhighlights.training.checkpoint_io import SafeCheckpointIO
    from pyhighlights.training.description import ModelDescription
    from pyhighlights.training.run import Experiment, resolve_specs

    experiment = Experiment(resolve_specs(evaluator_specs(parameters, epochs, keep_probability, lr)))
    pl.seed_everything(seed, workers=True, verbose=False)
    model = experiment.model()
    trainer = pl.Trainer(max_epochs=epochs, accelerator="cpu", logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, use_distributed_sampler=False,
                         limit_val_batches=0, num_sanity_val_steps=0, plugins=[SafeCheckpointIO()],
                         callbacks=[ModelDescription(experiment.description)])
    trainer.fit(model, datamodule=experiment.datamodule(seed))
    path.parent.mkdir(parents=True, exist_ok=True)
    trainer.save_checkpoint(path, weights_only=False)
    return load(path)


def evaluator_folder(run_path: Path, epochs: int, keep_probability: float, lr: float | None = None) -> Path:
    """Where ``evalx=train`` keeps its evaluators, one folder per setting (beside the evaluations)."""
    rate = "" if lr is None else f"-lr{lr:g}"
    return Path(run_path) / "evaluation" / "evalx-evaluators" / f"epochs{epochs}-keep{keep_probability:g}{rate}"


def evaluators(run, source: str, seeds: list[int], *, epochs: int, keep_probability: float,
               lr: float | None = None) -> dict[int, Any]:
    """Seed -> evaluator: trained on the run's corpus (``source="train"``; reused once saved), or the
    predictor of a ``model=evalx`` run (``source`` its directory or one of its checkpoints)."""
    from pyhighlights.evaluation.restore import RestoredRun
    from pyhighlights.inference import load

    if str(source) == "train":
        if epochs < 1:
            raise ValueError(f"evalx_epochs={epochs}: expected at least 1 epoch of evaluator training")
        if not 0.0 < keep_probability <= 1.0:
            raise ValueError(f"evalx_keep={keep_probability}: expected a probability in (0, 1]")
        if lr is not None and not lr > 0:
            raise ValueError(f"evalx_lr={lr}: expected a positive learning rate (or null: model=evalx's)")
        folder = evaluator_folder(run.path, epochs, keep_probability, lr)
        found = {}
        for seed in seeds:
            path = folder / f"seed{seed}.ckpt"
            if path.is_file():
                log.info("seed %d: reusing the EVAL-X evaluator %s", seed, path)
                found[seed] = load(path)
            else:
                log.info("seed %d: training an EVAL-X evaluator on random masks (%d epochs) -> %s", seed, epochs, path)
                found[seed] = train_evaluator(run.manifest["parameters"], seed, epochs, keep_probability, path, lr)
        return found
    other = RestoredRun(source)
    if other.model_name != "evalx":
        raise ValueError(f"evalx={source}: a run of model={other.model_name}; an EVAL-X evaluator is the predictor "
                         f"of a model=evalx run (trained on random masks), or evalx=train")
    if list(other.label_names) != list(run.label_names):
        raise ValueError(f"evalx={source}: its classes ({', '.join(other.label_names)}) are not the run's "
                         f"({', '.join(run.label_names)})")
    checkpoints = other.checkpoints()
    return {seed: other.load_model(checkpoints.get(seed) or next(iter(checkpoints.values()))) for seed in seeds}


def check_run(path: str | Path, *, evalx: str, split: str = "test", dataset: dict[str, Any] | None = None,
              tag: str | None = None, batch_size: int | None = None, device: str = "cpu", epochs: int = 3,
              keep_probability: float = 0.5, lr: float | None = None, overwrite: bool = False,
              command: list[str] | None = None) -> tuple[Path, dict[str, Any]]:
    """The encoding check of every seed of a run; written to ``RUN/evaluation/<split>-evalx[-<tag>]/metrics.json``
    (never over an earlier one unless ``overwrite``)."""
    import sys
    from datetime import datetime, timezone

    from pyhighlights.evaluation.evaluate import output_name
    from pyhighlights.evaluation.outputs import check_output, staged_output, write_metrics
    from pyhighlights.evaluation.restore import SPLIT_PREFIX, RestoredRun, canonical_split
    from pyhighlights.training.rundir import summarise

    split = canonical_split(split)
    run = RestoredRun(path)
    run.warn_if_unfinished()
    dataset = dict(dataset or {})
    name = output_name(split, tag, dataset)
    out_dir = run.path / "evaluation" / (f"{split}-evalx" + name[len(split):])
    dataset_spec = run.dataset_spec(dataset)
    check_output(out_dir, overwrite)
    corpus = run.corpus(dataset)
    batch_size = batch_size or run.default_batch_size
    checkpoints = run.checkpoints()
    found = evaluators(run, evalx, list(checkpoints), epochs=epochs, keep_probability=keep_probability, lr=lr)
    prefix = SPLIT_PREFIX[split]
    seeds: dict[str, dict[str, float]] = {}
    for seed, checkpoint in checkpoints.items():
        model = run.load_model(checkpoint)
        evaluator = found[seed]
        values = run_check(model, run.loader(corpus, split, model, batch_size), evaluator,
                           run.loader(corpus, split, evaluator, batch_size), seed=seed, device=device)
        seeds[str(seed)] = {f"{prefix}/{key}": value for key, value in values.items()}
        log.info("seed %d: %s", seed, ", ".join(f"{k} = {v:.4f}" for k, v in seeds[str(seed)].items()))
    payload = {
        "kind": "evalx",
        "model": run.model_name,
        "run": str(run.path),
        "run_state": run.state,
        "split": split,
        "dataset": dataset_spec,
        "documents": len(corpus.split(split)),
        "checkpoints": {str(seed): str(p) for seed, p in checkpoints.items()},
        "evaluator": str(evalx) if str(evalx) != "train" else
        str(evaluator_folder(run.path, epochs, keep_probability, lr)),
        "evaluator_training": {"epochs": epochs, "keep_probability": keep_probability, "lr": lr}
        if str(evalx) == "train"
        else None,
        "definition": "encoding_gap = predictor_accuracy - accuracy: the run's own predictor and the EVAL-X "
                      "evaluator (trained on random masks) on the run's rationales",
        "command": command if command is not None else sys.argv,
        "created": datetime.now(timezone.utc).isoformat(),
        "seeds": seeds,
        "summary": summarise(seeds),
    }
    with staged_output(out_dir, overwrite) as staging:
        write_metrics(staging, payload)
    return out_dir, payload
