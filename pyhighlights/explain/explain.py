"""Explaining a trained run with a post-hoc method, and scoring the explanation.

For each seed's best checkpoint and each batch of the split (Lightning's
predict loop): the model's
full-input prediction ŷ is the attribution target; the method's word scores
become a highlight of the top round(rate·n) words; the scores and the
highlight are scored like a rationaliser's (plausibility: highlight P/R/F1,
IOU-F1, AUPRC of the raw scores; faithfulness on the explained model itself:
comprehensiveness, sufficiency, AOPC), plus captum's normalised infidelity,
max sensitivity and, for Integrated Gradients, the mean absolute convergence
delta. Outputs: ``<run>/explain/<method>[-<tag>]/metrics.json`` and
``scores.jsonl`` (``seed<N>/scores.jsonl`` for several seeds).
"""
from __future__ import annotations

import json
import logging
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import torch

from pyhighlights.evaluation.loops import device_trainer
from pyhighlights.evaluation.outputs import check_output, slug, staged_output, write_metrics
from pyhighlights.evaluation.restore import SPLIT_PREFIX, RestoredRun, canonical_split
from pyhighlights.evaluation.scores import ExplanationScores, model_probabilities
from pyhighlights.explain.forward import batch_fields, rebuild
from pyhighlights.explain.heap import heap_kept
from pyhighlights.explain.methods import METHODS, Attribution, make_method, method_parameters
from pyhighlights.explain.robustness import word_infidelity, word_sensitivity
from pyhighlights.explain.selection import rate_of_run, top_k_selection
from pyhighlights.explain.tdhook_backend import check_backend
from pyhighlights.metrics import AOPC_FRACTIONS
from pyhighlights.metrics._common import real_words
from pyhighlights.metrics.aopc import top_k_masks
from pyhighlights.training.rundir import summarise

log = logging.getLogger("pyhighlights.explain")

DEFAULT_RATE = 0.15


class ExplanationRun:
    """Accumulates one seed's metrics and per-document rows."""

    def __init__(self, num_classes: int):
        self.scores = ExplanationScores(num_classes)
        self.infidelity: list[torch.Tensor] = []
        self.sensitivity: list[torch.Tensor] = []
        self.delta: list[torch.Tensor] = []
        self.rows: list[dict[str, Any]] = []

    def metrics(self) -> dict[str, float]:
        values = self.scores.compute()
        for name, parts in (("infidelity", self.infidelity), ("sensitivity", self.sensitivity),
                            ("convergence_delta", self.delta)):
            if parts:
                values[name] = float(torch.cat(parts).double().mean())
        return values


def explain_batch(method: Attribution, model, batch, rate: float, state: ExplanationRun, *,
                  infidelity_samples: int, infidelity_drop: float, sensitivity_samples: int,
                  sensitivity_radius: float, doc_ids: list[str], seed: int = 0) -> None:
    """Attribute, select, score and record one batch.

    Every step treats the documents of the batch independently (padding is masked, the robustness
    perturbations are drawn per document), so a document's outputs do not depend on its batch."""
    fields = batch_fields(batch)
    keep = batch.word_mask.to(torch.float32)
    with torch.no_grad():
        logits = model.predict(batch, keep)
    target = logits.argmax(dim=-1)
    attribution = method(keep, fields, target)
    scores = attribution.scores.detach()
    selection = top_k_selection(scores, batch.word_mask, rate)
    masks = faithfulness_masks(selection, scores, batch.word_mask, state.scores.fractions)
    state.scores.update(batch, selection, scores, logits,
                        full_input_known(stacked_probabilities(model, batch, masks), batch.word_mask, logits))
    if attribution.delta is not None:
        state.delta.append(attribution.delta.detach().abs().reshape(-1))
    if infidelity_samples:
        state.infidelity.append(word_infidelity(method.forward, keep, fields, scores, target, batch.sample_ids,
                                                seed, n_samples=infidelity_samples, drop=infidelity_drop,
                                                full=method.forward.finish(logits)))
    if sensitivity_samples:
        # only the scores of the perturbed inputs are compared: no convergence delta for them
        explain = lambda k, f, t: method(k, f, t, with_delta=False).scores.detach()  # noqa: E731
        state.sensitivity.append(word_sensitivity(explain, keep, fields, target, scores, batch.sample_ids, seed,
                                                  n_samples=sensitivity_samples, radius=sensitivity_radius))
    for row, sample in enumerate(batch.sample_ids.tolist()):
        n = int(batch.word_mask[row].sum())
        human = batch.highlights[row, :n]
        state.rows.append({
            "id": doc_ids[sample], "sample": sample, "label": int(batch.labels[row]),
            "prediction": int(target[row]),
            "scores": [float(f"{float(s):.6g}") for s in scores[row, :n]],
            "selected": torch.nonzero(selection[row, :n]).flatten().tolist(),
            "highlight": None if bool((human < 0).all()) else torch.nonzero(human == 1).flatten().tolist(),
            "highlight_spans": batch.spans_of(row),
        })


def faithfulness_masks(selection: torch.Tensor, scores: torch.Tensor, word_mask: torch.Tensor,
                       fractions) -> list[torch.Tensor]:
    """The words-kept masks [B, W] the faithfulness scores ask the model about, built as
    :meth:`ExplanationScores.update` and :func:`aopc_probabilities` build them: the selection removed, the
    selection alone, then each AOPC bin's top words removed and alone."""
    selection = (selection > 0.5).long() * word_mask
    real, tops = real_words(word_mask), top_k_masks(scores, word_mask, fractions).bool()
    return [word_mask * (1 - selection), selection, *((real & ~top).to(word_mask.dtype) for top in tops),
            *(top.to(word_mask.dtype) for top in tops)]


def stacked_probabilities(model, batch, masks: list[torch.Tensor]):
    """``prob_fn`` (as :func:`model_probabilities`) answering each of ``masks`` from one forward pass over all
    of them stacked along the batch (the documents are independent, so each row's probabilities are the
    same to float rounding, at a dozen times the rows per pass: small passes of a recurrent encoder are
    mostly per-time-step overhead); any other mask gets its own forward pass."""
    alone = model_probabilities(model, batch)
    if not masks:
        return alone
    stacked = rebuild(*(f.repeat(len(masks), 1) for f in batch_fields(batch)))
    keep = torch.cat(masks).to(torch.float32) * stacked.word_mask.to(torch.float32)
    with torch.no_grad():
        answers = torch.softmax(model.predict(stacked, keep).float(), dim=-1).split(batch.word_mask.shape[0])

    def probabilities(keep_words: torch.Tensor) -> torch.Tensor:
        for mask, answer in zip(masks, answers):
            if mask.dtype == keep_words.dtype and torch.equal(mask, keep_words):
                return answer
        return alone(keep_words)

    return probabilities


def full_input_known(prob_fn, word_mask: torch.Tensor, logits: torch.Tensor):
    """``prob_fn`` that answers the full input (``word_mask`` itself, as the scores ask for it) with
    ``softmax(logits)``, the logits of that same input computed once already, instead of a forward pass."""
    known = torch.softmax(logits.float(), dim=-1)

    def probabilities(keep_words: torch.Tensor) -> torch.Tensor:
        return known if keep_words is word_mask else prob_fn(keep_words)

    return probabilities


class ProgressLines:
    """One log line each time another ``every`` documents are done (0: none); for logs, where no bar shows."""

    def __init__(self, total: int, every: int, label: str):
        self.total, self.every, self.label = total, every, label
        self.done, self.shown = 0, 0
        self.start = time.perf_counter()

    def add(self, documents: int) -> None:
        self.done += documents
        if not self.every or (self.done // self.every == self.shown // self.every and self.done < self.total):
            return
        self.shown = self.done
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else float("inf")
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        log.info("%s: %d/%d documents explained, %.2f documents/s, about %s left", self.label, self.done,
                 self.total, rate, _duration(left))


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


class ExplainPass(pl.LightningModule):
    """Lightning's predict loop over a split: each step explains, selects and scores one batch."""

    def __init__(self, model, method: Attribution, rate: float, state: ExplanationRun, doc_ids: list[str],
                 robustness: dict[str, Any], seed: int = 0, progress: ProgressLines | None = None):
        super().__init__()
        self.model, self.method, self.rate, self.state = model, method, rate, state
        self.scores = state.scores  # a submodule, so Lightning moves the metric states to the device
        self.doc_ids, self.robustness, self.seed, self.progress = doc_ids, robustness, seed, progress

    def predict_step(self, batch, batch_idx: int) -> int:
        with torch.enable_grad():
            explain_batch(self.method, self.model, batch, self.rate, self.state, doc_ids=self.doc_ids,
                          seed=self.seed, **self.robustness)
        if self.progress is not None:
            self.progress.add(batch.size)
        return batch.size  # the rows are in ``state``; Lightning warns about steps that return nothing


def explain_run(path: str | Path, method: str, *, params: dict[str, Any] | None = None, split: str = "test",
                rate: float | None = None, rate_from: str | Path | None = None, batch_size: int = 16,
                max_documents: int | None = None, infidelity_samples: int = 10, infidelity_drop: float = 0.25,
                sensitivity_samples: int = 3, sensitivity_radius: float = 0.02, seed: int = 0,
                tag: str | None = None, device: str = "cpu", backend: str = "captum", overwrite: bool = False,
                progress_every: int | None = None,
                dataset: dict[str, Any] | None = None,
                command: list[str] | None = None) -> tuple[Path, dict[str, Any]]:
    """Explain every seed of a trained run (or the checkpoint named) with ``method`` computed by
    ``backend``; write the outputs. ``dataset`` overrides fields of the run's dataset spec (its files moved).
    ``progress_every``: a log line per that many documents (None: 50 when no progress bar shows, else none)."""
    split = canonical_split(split)
    parameters = method_parameters(method, params)  # fail on a bad parameter before any work
    check_backend(backend, method)
    rate, rate_source = _rate(rate, rate_from)
    run = RestoredRun(path)
    # a second backend gets its own folder, so both can be compared side by side
    name = method if backend == "captum" else f"{method}-{backend}"
    out_dir = check_output(run.path / "explain" / (name if not tag else f"{name}-{slug(tag)}"), overwrite)
    with staged_output(out_dir, overwrite) as staging:
        payload = _explain_seeds(run, method, parameters, params, staging, split=split, rate=rate,
                                 rate_source=rate_source, batch_size=batch_size, max_documents=max_documents,
                                 robustness={"infidelity_samples": infidelity_samples,
                                             "infidelity_drop": infidelity_drop,
                                             "sensitivity_samples": sensitivity_samples,
                                             "sensitivity_radius": sensitivity_radius},
                                 seed=seed, device=device, backend=backend, dataset=dict(dataset or {}),
                                 command=command, progress_every=_progress_every(progress_every))
        write_metrics(staging, payload)
    return out_dir, payload


def _explain_seeds(run: RestoredRun, method: str, parameters: dict[str, Any], params: dict[str, Any] | None,
                   out_dir: Path, *, split: str, rate: float, rate_source: str, batch_size: int,
                   max_documents: int | None, robustness: dict[str, Any], seed: int, device: str,
                   backend: str, dataset: dict[str, Any], command: list[str] | None,
                   progress_every: int = 0) -> dict[str, Any]:
    """Explain and score every seed's checkpoint, writing ``scores.jsonl`` into ``out_dir``; the payload."""
    corpus = run.corpus(dataset)
    documents = corpus.split(split)
    if max_documents is not None:
        from dataclasses import replace

        corpus = replace(corpus, **{split: documents[:max_documents]})
        documents = corpus.split(split)
    doc_ids = [d.doc_id for d in documents]
    checkpoints = run.checkpoints()
    several = len(checkpoints) > 1
    prefix = SPLIT_PREFIX[split]
    seeds: dict[str, dict[str, float]] = {}
    for model_seed, checkpoint in checkpoints.items():
        pl.seed_everything(seed, verbose=False)
        model = run.load_model(checkpoint)
        loader = run.loader(corpus, split, model, batch_size)
        for p in model.parameters():
            p.requires_grad_(False)
        progress = ProgressLines(len(documents), progress_every, f"{method} seed {model_seed}")
        explanation = ExplainPass(model, make_method(method, model, params, backend), rate,
                                  ExplanationRun(corpus.num_classes), doc_ids, robustness, seed, progress)
        # gradients are needed inside the steps: no inference mode (Lightning then runs under no_grad)
        with heap_kept():
            device_trainer(device, inference_mode=False).predict(explanation, dataloaders=loader,
                                                                 return_predictions=False)
        state = explanation.state
        seeds[str(model_seed)] = {f"{prefix}/{FULL_INPUT.get(name, name)}": value
                                  for name, value in state.metrics().items()}
        _write_rows((out_dir / f"seed{model_seed}" if several else out_dir) / "scores.jsonl", state.rows)
        log.info("%s seed %d: %s", method, model_seed, ", ".join(
            f"{k} = {v:.4f}" for k, v in seeds[str(model_seed)].items() if k.split("/")[-1] in _SHOWN))
    payload = {
        "kind": "explain", "method": method, "backend": backend, "parameters": parameters, "model": run.model_name,
        "run": str(run.path), "split": split, "dataset": run.dataset_spec(dataset), "documents": len(documents),
        "rate": rate, "rate_source": rate_source, "seed": seed, "robustness": robustness,
        "aopc_fractions": list(AOPC_FRACTIONS),
        "checkpoints": {str(s): str(p) for s, p in checkpoints.items()},
        "command": command if command is not None else sys.argv,
        "created": datetime.now(timezone.utc).isoformat(),
        "seeds": {s: {k: (None if v != v else v) for k, v in values.items()} for s, values in seeds.items()},
        "summary": summarise(seeds),
        "notes": dict(NOTES),
    }
    return payload


#: The task metrics score the prediction being explained, ŷ from the whole document; for a rationaliser
#: that is not its own test accuracy (it predicts from its selection), so their names say so.
FULL_INPUT = {name: f"full_input_{name}" for name in ("accuracy", "balanced_accuracy", "macro_f1")}

#: What each headline metric measures and which direction is better; written into metrics.json and
#: printed beside the numbers. Faithfulness follows ERASER (DeYoung et al., 2020), anchored on ŷ.
NOTES = {
    "full_input_accuracy": "accuracy of the explained prediction, the model on the whole document "
                           "(a rationaliser's own test accuracy predicts from its selection instead)",
    "highlight_f1": "top-k words against the human highlight; higher is better",
    "auprc": "raw word scores ranked against the human highlight; higher is better",
    "comprehensiveness": "p(ŷ|x) − p(ŷ|x without the top-k words); higher is more faithful "
                         "(removing the words hurts the prediction)",
    "sufficiency": "p(ŷ|x) − p(ŷ|the top-k words alone); lower is more faithful, below 0 the words alone "
                   "are more confident than the whole document",
    "sparsity": "share of the words highlighted (the top round(rate·n) of each document)",
    "infidelity": "normalised infidelity (Yeh et al., 2019); lower is better",
    "sensitivity": "max sensitivity under presence noise (Yeh et al., 2019); lower is better",
    "convergence_delta": "mean |Σ attributions − (f(x) − f(baseline))| of Integrated Gradients; "
                         "closer to 0 is a more exact integral",
}

_SHOWN = ("highlight_f1", "auprc", "comprehensiveness", "sufficiency", "infidelity", "convergence_delta")


#: documents per progress line when no bar shows (a log, CI)
PROGRESS_EVERY = 50


def _progress_every(every: int | None) -> int:
    if every is None:
        from pyhighlights.training.progress import interactive

        return 0 if interactive() else PROGRESS_EVERY
    if int(every) < 0:
        raise ValueError(f"progress_every={every}: expected a number of documents >= 0 (0 = no lines)")
    return int(every)


def _rate(rate: float | None, rate_from: str | Path | None) -> tuple[float, str]:
    if rate is not None and rate_from is not None:
        raise ValueError("give rate or rate_from, not both")
    if rate_from is not None:
        return rate_of_run(rate_from), f"test sparsity of {rate_from}"
    if rate is None:
        return DEFAULT_RATE, "default"
    rate = float(rate)
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate={rate}: expected a value in [0, 1]")
    return rate, "given"


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = sorted(rows, key=lambda row: row["sample"])
    with open(path, "w") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


__all__ = ["METHODS", "explain_run", "explain_batch", "ExplanationRun"]
