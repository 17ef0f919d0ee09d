"""From a composed Hydra config to trained models and a results table.

``run(cfg)`` validates every config section against its registered
configuration before building anything, loads the corpus once, then trains
and tests one model per seed, writing the run directory as it goes.
"""
from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import torch
from omegaconf import DictConfig, OmegaConf

from pyhighlights import registry
from pyhighlights.checkpoint_file import read_checkpoint
from pyhighlights.checkpoint_match import check_run_checkpoints
from pyhighlights.components.backbones.base import BackboneFactory
from pyhighlights.components.losses import SparsityTerm
from pyhighlights.config.recipe import check_recipe
from pyhighlights.config.resolve import ConfigError, Spec, build, validate
from pyhighlights.data.inputs import prepare_inputs
from pyhighlights.plots import plot_run_safely
from pyhighlights.plots.series import sparsity_target
from pyhighlights.training.callbacks import (BandSelectionCheckpoint, FeasibleCheckpoint, FaultPoints, PredictionWriter,
                                             WarmupAwareCheckpoint, WarmupAwareEarlyStopping, check_monitors)
from pyhighlights.training.checkpoint_io import SafeCheckpointIO
from pyhighlights.training.checkpoints import LastCheckpoint, latest_checkpoint, remove_unreferenced_best
from pyhighlights.training.csvlog import ROWS_KEY, AppendingCSVLogger, MetricsRowsInCheckpoint, truncate_after
from pyhighlights.training.description import ModelDescription, describe
from pyhighlights.training.draws import score_over_draws
from pyhighlights.faults import VARIABLE as FAULT_VARIABLE, fault_point
from pyhighlights.training.guards import DivergenceWatch, MonitorCheck, NonFiniteGuard, NonFiniteTraining
from pyhighlights.training.lightning_args import (arguments_for, check_clipping, check_fits_model, trainer_settings,
                                                  trainer_spec)
from pyhighlights.training.lightning_objects import build_callbacks, build_loggers, validate_section
from pyhighlights.training.manifest import write_manifest
from pyhighlights.training.phases import VARIABLE as PHASE_VARIABLE, PhaseMarks, mark as phase_mark
from pyhighlights.training.progress import corpus_summary, progress_callbacks
from pyhighlights.training.resume import check_resumable, note_resumed, slurm_job
from pyhighlights.training.rundir import RunDirectory, RunWriteFailed, summarise, write_failure
from pyhighlights.training.warmup import check_warmup

log = logging.getLogger("pyhighlights")

SECTIONS = ("dataset", "model", "backbone", "embeddings", "trainer")
#: Lightning loggers and callbacks chosen by class (see training/lightning_objects.py).
EXTRA_SECTIONS = ("logger", "callbacks")


@dataclass
class RunSpecs:
    dataset: Spec
    model: Spec
    backbone: Spec
    embeddings: Spec
    trainer: Spec
    logger: Spec = field(default_factory=dict)
    callbacks: Spec = field(default_factory=dict)

    def as_dict(self) -> dict[str, Spec]:
        # Extra loggers and callbacks only when chosen: a run without them records what earlier runs recorded.
        extras = {name: getattr(self, name) for name in EXTRA_SECTIONS if getattr(self, name)}
        return {**{name: getattr(self, name) for name in SECTIONS}, **extras}


def resolve_specs(cfg: DictConfig | dict) -> RunSpecs:
    """Validate every section; the first bad field raises :class:`ConfigError` naming it."""
    container = OmegaConf.to_container(cfg, resolve=True) if isinstance(cfg, DictConfig) else dict(cfg)
    check_recipe(container)
    specs = {}
    for section in SECTIONS:
        if section not in container:
            raise ConfigError(f"{section}: missing section; choose one of {', '.join(registry.available(section))}")
        specs[section] = trainer_spec(container[section]) if section == "trainer" else \
            validate(section, container[section], section)
    check_clipping(specs["model"], specs["trainer"])
    extras = {section: validate_section(section, container.get(section)) for section in EXTRA_SECTIONS}
    return RunSpecs(**specs, **extras)


def seeds_of(cfg: DictConfig | dict) -> list[int]:
    seeds = cfg.get("seeds")
    if seeds is None:
        seed = cfg.get("seed", 0)
        # Seeds feed numpy's and torch's generators, which take 0 .. 2**32 - 1.
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 32:
            raise ConfigError(f"seed={seed}: expected an integer from 0 to {2 ** 32 - 1}")
        return [seed]
    seeds = list(seeds)
    if not seeds or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2 ** 32 for s in seeds) \
            or len(set(seeds)) != len(seeds):
        raise ConfigError(f"seeds: expected a list of distinct integers from 0 to {2 ** 32 - 1}, got {seeds}")
    return seeds


class Experiment:
    """The pieces shared by every seed of a run: corpus, inputs, specs."""

    def __init__(self, specs: RunSpecs):
        self.specs = specs
        self.warnings: list[dict[str, Any]] = []  # divergence warnings of the last seed trained
        self.settings = trainer_settings(specs.trainer)
        # refused before the corpus is read
        model_class = registry.entry("model", specs.model["name"]).component
        if hasattr(model_class, "search_before_fit") and self.settings.devices * self.settings.num_nodes > 1:
            # every process would run the whole search; its candidates are spread by model.search_workers instead
            raise ConfigError(f"model={specs.model['name']} searches in one process: set trainer.devices=1 and "
                              f"trainer.num_nodes=1 (model.search_workers scores its candidates in parallel)")
        torch.set_num_threads(self.settings.threads())
        self.source = build("dataset", specs.dataset)
        self.corpus = self.source.load()
        from pyhighlights.data.split_checks import check_shardable, check_trainable

        check_trainable(self.corpus)
        check_shardable(self.corpus, self.settings.devices * self.settings.num_nodes, self.settings.batch_size)
        self.inputs = prepare_inputs(self.corpus, specs.backbone, specs.embeddings)
        self.backbone_factory = BackboneFactory(specs.backbone, **self.inputs.backbone_runtime)
        log.info("%s", corpus_summary(self.corpus))

    def datamodule(self, seed: int):
        from pyhighlights.data.datamodule import SPPDataModule

        encoder = self.inputs.text_encoder
        # The batching layout is the model's (model.pad_to, model.bucket): it changes a padded batch's loss.
        model = self.specs.model
        return SPPDataModule(self.corpus, getattr(encoder, "vocabulary", None), encoder=encoder, batch_size=self.settings.batch_size,
                             eval_batch_size=self.settings.eval_batch_size, seed=seed,
                             num_workers=self.settings.num_workers, bucket=model.get("bucket", True),
                             pad_to=model.get("pad_to"))

    def model(self) -> pl.LightningModule:
        return build("model", self.specs.model, path="model", backbone_factory=self.backbone_factory,
                     num_classes=self.corpus.num_classes)

    @cached_property
    def description(self) -> dict[str, Any]:
        """What every checkpoint of this run stores to rebuild its model (see training/description.py); the
        same for every seed."""
        return describe(self.specs.as_dict(), self.corpus.label_names, self.inputs.text_encoder,
                        self.backbone_factory)

    def trainer(self, out_dir: Path, model: pl.LightningModule, **overrides: Any) -> pl.Trainer:
        s = self.settings
        selection = checkpoint_selection(s, model)
        callbacks: list[pl.Callback] = []
        if s.save_checkpoints and selection == "accuracy_in_band":
            callbacks.append(BandSelectionCheckpoint(dirpath=out_dir / "checkpoints", target=_band_centre(s, model),
                                                     band=s.selection_band, floor=s.selection_floor))
        elif s.save_checkpoints and selection == "feasible":
            callbacks.append(FeasibleCheckpoint(dirpath=out_dir / "checkpoints", target=_band_centre(s, model),
                                                monitor=s.monitor, mode=s.mode, tolerance=s.selection_tolerance))
        elif s.save_checkpoints:
            callbacks.append(WarmupAwareCheckpoint(dirpath=out_dir / "checkpoints", filename="best-{epoch}",
                                                   monitor=s.monitor, mode=s.mode, save_top_k=1,
                                                   ties=s.monitor_ties))
        if s.save_checkpoints:
            callbacks.append(LastCheckpoint(out_dir / "checkpoints", every_n_steps=s.checkpoint_every_n_steps))
        if s.patience:
            callbacks.append(WarmupAwareEarlyStopping(monitor=s.monitor, mode=s.mode, patience=s.patience))
        check_monitors(callbacks)
        callbacks.append(MetricsRowsInCheckpoint())
        if callbacks:
            callbacks.append(MonitorCheck(s.monitor))
        callbacks += [NonFiniteGuard(out_dir, [d.doc_id for d in self.corpus.train]), DivergenceWatch()]
        callbacks.append(PredictionWriter(out_dir / "predictions.jsonl", [d.doc_id for d in self.corpus.test],
                                          words=[d.tokens for d in self.corpus.test]))
        callbacks.extend(progress_callbacks(s.show_progress()))
        callbacks.append(ModelDescription(self.description))
        callbacks += build_callbacks(self.specs.callbacks)
        if os.environ.get(FAULT_VARIABLE):
            callbacks.append(FaultPoints())
        if os.environ.get(PHASE_VARIABLE):
            callbacks.append(PhaseMarks())
        kwargs = dict(
            max_epochs=s.max_epochs, accelerator=s.accelerator, devices=s.devices, num_nodes=s.num_nodes,
            strategy=s.strategy, precision=s.precision, callbacks=callbacks,
            logger=[AppendingCSVLogger(out_dir, name="", version=""), *build_loggers(self.specs.logger, out_dir)],
            enable_progress_bar=s.show_progress(),
            enable_model_summary=False, limit_train_batches=s.limit_train_batches,
            limit_val_batches=s.limit_val_batches, log_every_n_steps=s.log_every_n_steps,
            deterministic=s.deterministic, use_distributed_sampler=False, enable_checkpointing=s.save_checkpoints,
            default_root_dir=out_dir,
        )
        kwargs.update(arguments_for(model, s.lightning))
        kwargs.update(overrides)
        # Every checkpoint Lightning reads or writes goes through our reader and atomic writer.
        given = kwargs.pop("plugins", None) or []
        kwargs["plugins"] = [SafeCheckpointIO(), *(given if isinstance(given, (list, tuple)) else [given])]
        return pl.Trainer(**kwargs)

    def train_seed(self, seed: int, out_dir: Path, resume_from: Path | None = None, restart: bool = False,
                   **trainer_overrides: Any) -> dict[str, float]:
        """Train and test one seed.

        ``resume_from`` continues from a checkpoint of this same run; ``restart``
        trains an interrupted seed that left no checkpoint again from the start.
        """
        pl.seed_everything(seed, workers=True, verbose=False)
        datamodule = self.datamodule(seed)
        model = self.model()
        if (resume_from is not None or restart) and _global_zero():
            snapshot = None if resume_from is None else read_checkpoint(resume_from, mmap=True)
            # Rows logged after the snapshot are logged again by the resumed run.
            rows = 0 if snapshot is None else snapshot.get(ROWS_KEY)
            if rows is not None:
                truncate_after(out_dir / "metrics.csv", rows)
            # Best checkpoints written after the snapshot are chosen again (or not) by the resumed run.
            remove_unreferenced_best(out_dir / "checkpoints", snapshot)
        search = getattr(model, "search_before_fit", None)
        if search is not None and resume_from is None:
            # A model found by search (GenSPP) is searched first; the search resumes from its own files.
            search(datamodule, out_dir / "search", seed, write=_global_zero())
        trainer = self.trainer(out_dir, model, **trainer_overrides)
        trainer.fit(model, datamodule=datamodule, ckpt_path=resume_from)
        checkpoint = trainer.checkpoint_callback
        best = checkpoint.best_model_path if checkpoint is not None and checkpoint.best_model_path else None
        if best is None and checkpoint is not None:
            log.warning("no checkpoint was selected (no scored validation epoch); testing the final weights")
        phase_mark("fit_end")
        metrics = score_over_draws(trainer, model, datamodule, best, self.settings.evaluation_draws, seed)
        phase_mark("test_end")
        check_test_metrics(metrics, out_dir)
        self.warnings = next((c.warnings for c in trainer.callbacks if isinstance(c, DivergenceWatch)), [])
        for name in ("test/accuracy", "test/highlight_f1", "test/sparsity"):
            if name in metrics and trainer.is_global_zero:
                log.info("seed %d %s = %.4f", seed, name, metrics[name])
        metrics["best_epoch"] = _epoch_of(best)
        return metrics


#: Metrics a finished run must report, finite.
REQUIRED_TEST_METRICS = ("test/accuracy", "test/highlight_f1")


def check_test_metrics(metrics: dict[str, float], out_dir: Path) -> None:
    """Refuse a test without the required metrics, or with a non-finite one or a non-finite loss.

    Other metrics may be undefined for an honest reason (precision when nothing is selected);
    they are reported as null and named in a warning.
    """
    missing = [name for name in REQUIRED_TEST_METRICS if name not in metrics]
    bad = [name for name, value in metrics.items() if not math.isfinite(value)
           and (name in REQUIRED_TEST_METRICS or name.startswith("test/loss"))]
    if missing or bad:
        raise NonFiniteTraining(f"{out_dir}: testing gave {'no ' + ', '.join(missing) if missing else ''}"
                                f"{'; ' if missing and bad else ''}{'non-finite ' + ', '.join(bad) if bad else ''}; "
                                "no results are reported for this run")
    undefined = [name for name, value in metrics.items() if name.startswith("test/") and not math.isfinite(value)]
    if undefined:
        log.warning("warning: %s: %s undefined on this test set (reported as null)", out_dir, ", ".join(undefined))


def checkpoint_selection(settings, model) -> str:
    """``trainer.selection`` with ``auto`` resolved: a run whose sparsity term is a constraint keeps its best
    feasible epoch (the best-validation-loss epoch of a constrained run need not satisfy the constraint, and the
    loss prefers the epochs that select more), any other run its best monitored epoch."""
    selection = settings.selection
    if selection == "auto":
        term = _sparsity_term(model)
        # the rate *at* s (SparsityTerm's two-sided constraint); HardKuma's L0 term holds an inequality instead
        constrained = isinstance(term, SparsityTerm) and term.multiplier is not None
        selection = "feasible" if constrained else "monitor"
    if settings.monitor_ties != "earliest" and selection != "monitor":
        # the feasible and in-band rules rank epochs by their own keys; a tie rule they would not read is refused
        raise ConfigError(f"trainer.monitor_ties={settings.monitor_ties}: applies to trainer.selection=monitor (the "
                          f"best monitored epoch), but this run selects by {selection}"
                          + (" (auto: its sparsity term is a constraint)" if settings.selection == "auto" else "")
                          + "; set trainer.selection=monitor or leave monitor_ties at earliest")
    return selection


def _sparsity_term(model):
    """The model's loss term named ``sparsity``, or None."""
    losses = getattr(model, "losses", None)
    return losses.terms.get("sparsity") if losses is not None else None


def _band_centre(settings, model) -> float:
    if settings.selection_target is not None:
        return settings.selection_target
    term = _sparsity_term(model)
    if term is None or not hasattr(term, "target"):
        raise ConfigError(f"trainer.selection_target: required for selection={settings.selection} when the model "
                          "has no sparsity loss term")
    return term.target


def _epoch_of(path: str | None) -> int | float:
    """The epoch of a ``best-epoch=N[-vK].ckpt`` path, counted from 1; NaN (null in results.json) when none."""
    if not path:
        return float("nan")
    stem = Path(path).stem
    try:
        return int(stem.split("epoch=")[1].split("-")[0])
    except (IndexError, ValueError):
        return float("nan")


def run(cfg: DictConfig, run_dir: Path, command: list[str] | None = None,
        records: dict[str, str] | None = None, resume: bool = False) -> dict[str, Any]:
    """Train and test every seed of ``cfg`` into ``run_dir``; return the results payload.

    The corpus is loaded and checked before the directory is claimed, so bad
    input leaves no run behind; ``records`` (relative path -> text, e.g. the
    Hydra config) are written once the claim succeeded. ``status.json`` ends
    as finished, failed or interrupted.

    ``resume`` continues an unfinished run of the same configuration in
    place: finished seeds are kept, the current one continues from its latest
    checkpoint (from the start if it wrote none).
    """
    specs = resolve_specs(cfg)
    trainer_settings(specs.trainer).check_accelerator()
    check_warmup(specs.model, specs.trainer)
    seeds = seeds_of(cfg)
    rank_zero = _global_zero()
    directory = RunDirectory(run_dir)
    if resume:
        if rank_zero:
            check_resumable(directory.path, seeds)
        directory.reopen()
    elif rank_zero:
        directory.check_free()
    log.info("schedule: %s", cfg.get("schedule") or "trainer settings (no preset for this model and corpus)")
    recipe = cfg.get("recipe") or {}
    if recipe.get("name", "reference") != "reference":
        # the schedule's preset may name reference settings that the recipe then replaced
        log.info("recipe: %s (pyhighlights/configs/recipe_model/%s_%s.yaml, applied over the presets)",
                 recipe["name"], recipe["name"], recipe.get("model"))
    experiment = Experiment(specs)
    check_fits_model(experiment.settings.lightning, experiment.specs.model["name"], experiment.model)
    if resume:
        # Every checkpoint the resumed run may load is read now, before the run is marked running again.
        check_run_checkpoints([directory.seed_dir(seed, several=len(seeds) > 1) for seed in seeds
                               if str(seed) not in directory.seeds], specs.as_dict(), directory.path)
    if rank_zero and resume:
        directory.set_state("running", resumed=True)
        note_resumed(directory.path, specs.as_dict(), command)
    elif rank_zero:
        directory.claim(records)
    try:
        if rank_zero and not resume:
            write_manifest(directory.path / "manifest.json", specs=specs.as_dict(), seeds=seeds, command=command,
                           data_files=experiment.source.files(), corpus_info=experiment.corpus.info,
                           inputs_info=experiment.inputs.info, slurm_job=slurm_job())
            fault_point("claimed")
        for seed in seeds:
            out_dir = directory.seed_dir(seed, several=len(seeds) > 1)
            if str(seed) in directory.seeds:
                if rank_zero:
                    # Its results are final; the plots after them may have been cut short: drawn again.
                    plot_run_safely(out_dir, sparsity_target(specs.model))
                continue
            checkpoint = latest_checkpoint(out_dir) if resume else None
            if resume:
                log.info("seed %d: resuming from %s", seed, checkpoint or "the start (no checkpoint was written)")
            metrics = experiment.train_seed(seed, out_dir, resume_from=checkpoint,
                                            restart=resume and checkpoint is None)
            if rank_zero:
                directory.add_seed(seed, metrics, experiment.warnings)
                fault_point("results")
                # After the results are written: a plotting failure is only a warning.
                plot_run_safely(out_dir, sparsity_target(specs.model))
                phase_mark("plots_end")
    except (KeyboardInterrupt, SystemExit) as stop:
        if rank_zero:
            directory.record_end("interrupted", error=f"stopped by Ctrl-C or a signal ({type(stop).__name__} {stop})")
        raise
    except BaseException as error:
        recorded = directory.record_end("failed", error=str(error)) if rank_zero else True
        if isinstance(error, OSError) and not isinstance(error, (FileNotFoundError, FileExistsError, RunWriteFailed)):
            raise RunWriteFailed(write_failure(error, directory.path, recorded)) from error
        raise
    phase_mark("run_end")
    if rank_zero and not directory.record_end("finished"):
        raise RunWriteFailed(f"{directory.path / 'status.json'}: cannot record the run as finished (is the disk full "
                             "or read-only?); its results.json is complete")
    return {"seeds": directory.seeds, "summary": summarise(directory.seeds)}


def _global_zero() -> bool:
    """Whether this process is rank 0 of the job, read from the environment before Lightning starts.

    torchrun sets RANK and srun SLURM_PROCID; Lightning's own launcher sets NODE_RANK on every machine
    of a multi-node job and LOCAL_RANK in the processes it starts on each.
    """
    import os

    for variable in ("RANK", "SLURM_PROCID"):
        if variable in os.environ:
            return int(os.environ[variable]) == 0
    return all(int(os.environ.get(variable, "0") or 0) == 0 for variable in ("NODE_RANK", "LOCAL_RANK"))
