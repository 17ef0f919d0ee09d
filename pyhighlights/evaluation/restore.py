"""Reading a training run back from its directory: manifest, state, checkpoints, models, corpus.

Each seed's best checkpoint (``checkpoints/*.ckpt``, the one the training
run tested) rebuilds its model on its own, vocabulary or tokenizer included
(:func:`pyhighlights.load`). ``manifest.json`` gives the run's seeds and its
dataset spec, so any split of the training corpus, or another corpus in the
same format, is read and encoded with the model's own encoder.
"""
from __future__ import annotations

import json
import logging
from functools import cached_property
from pathlib import Path
from typing import Any

from pyhighlights.checkpoint_file import read_checkpoint
from pyhighlights.config.resolve import validate
from pyhighlights.data.batch import Corpus
from pyhighlights.inference import load, read_description
from pyhighlights.training.manifest import sha256

log = logging.getLogger("pyhighlights.evaluation")

SPLIT_ALIASES = {"test": "test", "validation": "validation", "val": "validation", "dev": "validation",
                 "train": "train"}
#: Metric-name prefix of each split, as the training loop logs them.
SPLIT_PREFIX = {"test": "test", "validation": "val", "train": "train"}


class RunNotFound(FileNotFoundError):
    """The path is not a training run directory (or a checkpoint inside one)."""


def canonical_split(split: str) -> str:
    try:
        return SPLIT_ALIASES[str(split)]
    except KeyError:
        raise ValueError(f"split={split}: expected one of test, validation (val), train") from None


def locate(path: str | Path) -> tuple[Path, Path | None]:
    """``(run directory, checkpoint or None)`` for a run directory or a checkpoint file inside one."""
    path = Path(path).expanduser()
    if not path.exists():
        raise RunNotFound(f"{path}: no such file or directory")
    checkpoint = path if path.is_file() else None
    for candidate in ([path] if path.is_dir() else []) + list(path.parents):
        if (candidate / "manifest.json").is_file():
            return candidate, checkpoint
    raise RunNotFound(f"{path}: no manifest.json here or above; expected a training run directory "
                      f"(written by scripts/train.py) or a checkpoint inside one")


class RestoredRun:
    """A training run read back: its manifest, state, checkpoints, models and corpus."""

    def __init__(self, path: str | Path):
        self.path, self.only_checkpoint = locate(path)
        self.manifest: dict[str, Any] = json.loads((self.path / "manifest.json").read_text())
        self.seeds: list[int] = list(self.manifest.get("seeds") or [0])
        from pyhighlights.run_files import read_state

        #: "finished", "failed", "interrupted", "running" (or killed), None for runs older than the state file.
        self.state = read_state(self.path)
        self._loaders: dict[tuple, tuple[Corpus, Any]] = {}

    def warn_if_unfinished(self) -> None:
        """Say when the checkpoints read come from a run that did not finish."""
        if self.state is None:
            log.info("%s: no status.json (a run older than recorded run states); assuming it finished", self.path)
        elif self.state != "finished":
            log.warning("warning: %s: the run is %s, not finished (see its status.json); its checkpoints are "
                        "the last ones it saved", self.path, "still running or was killed" if self.state == "running"
                        else self.state)

    # --- parameters ---------------------------------------------------------------
    @property
    def model_name(self) -> str:
        return self.manifest["parameters"]["model"]["name"]

    @cached_property
    def trained_dataset(self) -> dict[str, Any]:
        """The run's dataset spec, re-validated (parameters added since the run get their defaults)."""
        return validate("dataset", self.manifest["parameters"]["dataset"], "dataset")

    @cached_property
    def label_names(self) -> list[str]:
        """The class names the run's models were trained on (from one of its checkpoints)."""
        first = next(iter(self.checkpoints().values()))
        return list(read_description(read_checkpoint(first, mmap=True), first)["label_names"])

    def _check_data_files(self, files: list[Path]) -> None:
        recorded = self.manifest.get("data_files") or {}
        changed = [str(p) for p in files if str(p) in recorded and sha256(p) != recorded[str(p)]]
        if changed:
            log.warning("data files changed since training (the vocabulary may differ): %s", ", ".join(changed))

    # --- checkpoints and models ---------------------------------------------------
    def seed_dir(self, seed: int) -> Path:
        return self.path / f"seed{seed}" if len(self.seeds) > 1 else self.path

    def checkpoint(self, seed: int) -> Path:
        """The best checkpoint of ``seed`` (the only ``.ckpt`` in its ``checkpoints/``, or ``best-*``)."""
        folder = self.seed_dir(seed) / "checkpoints"
        found = sorted(folder.glob("*.ckpt"))
        best = [p for p in found if p.name.startswith("best")]
        if len(best) == 1:
            return best[0]
        if len(found) == 1:
            return found[0]
        if not found:
            raise RunNotFound(f"{folder}: no checkpoint (was the run trained with trainer.save_checkpoints=false?)")
        raise RunNotFound(f"{folder}: several checkpoints ({', '.join(p.name for p in found)}); "
                          f"pass the one to evaluate instead of the run directory")

    def checkpoints(self) -> dict[int, Path]:
        """Seed -> checkpoint; only the given one when a checkpoint file was named."""
        if self.only_checkpoint is not None:
            return {self.seed_of(self.only_checkpoint): self.only_checkpoint}
        return {seed: self.checkpoint(seed) for seed in self.seeds}

    def seed_of(self, checkpoint: Path) -> int:
        """The seed whose folder holds ``checkpoint`` (the only seed of a one-seed run)."""
        parents = set(Path(checkpoint).resolve().parents)
        for seed in self.seeds:
            if self.seed_dir(seed).resolve() in parents:
                return seed
        raise RunNotFound(f"{checkpoint}: not inside a seed folder of {self.path}")

    def load_model(self, checkpoint: Path):
        """The model the checkpoint describes, with its weights and text encoder, in eval mode on the CPU
        (Lightning's loops move it to the evaluation device); a checkpoint another run wrote is refused."""
        from pyhighlights.checkpoint_match import check_belongs

        model = load(checkpoint)
        check_belongs(model.specs, checkpoint, self.manifest["parameters"], self.path)
        return model

    # --- data ---------------------------------------------------------------------
    def dataset_spec(self, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
        """The run's dataset spec with ``overrides``; ``name`` switches the reader, keeping shared fields."""
        spec = dict(self.trained_dataset)
        overrides = dict(overrides or {})
        name = overrides.pop("name", spec["name"])
        if name != spec["name"]:
            fresh = validate("dataset", {"name": name}, "dataset")
            spec = {**fresh, **{k: v for k, v in spec.items() if k in fresh and k != "name"}}
        spec = {**spec, **overrides, "name": name}
        return validate("dataset", spec, "dataset")

    def corpus(self, overrides: dict[str, Any] | None = None) -> Corpus:
        """The training corpus, or the corpus the overridden dataset spec reads (never truncated here)."""
        from pyhighlights.config.resolve import build

        source = build("dataset", self.dataset_spec(overrides))
        corpus = source.load()
        if not overrides:
            self._check_data_files(source.files())
        if corpus.num_classes != len(self.label_names):
            raise ValueError(f"dataset: {corpus.num_classes} classes, but the model was trained on "
                             f"{len(self.label_names)} ({', '.join(self.label_names)})")
        return corpus

    @cached_property
    def default_batch_size(self) -> int:
        """The run's evaluation batch size (its trainer settings, defaults filled in)."""
        from pyhighlights.training.lightning_args import trainer_settings

        settings = trainer_settings(self.manifest["parameters"].get("trainer") or {})
        return settings.eval_batch_size or settings.batch_size

    def loader(self, corpus: Corpus, split: str, model, batch_size: int | None = None):
        """Evaluation batches of one split, encoded with ``model``'s vocabulary or tokenizer.

        The seeds of a run share their text encoder, so the split is encoded once and its batches reused.
        """
        encoder = model.text_encoder
        # Padded as the model was trained (model.pad_to): a recurrent encoder run over the padding depends on it.
        pad_to = getattr(model, "pad_to", None)
        key = (id(corpus), canonical_split(split), batch_size or self.default_batch_size,
               repr(encoder.describe()), pad_to)
        if key not in self._loaders:
            self._loaders[key] = (corpus, split_loader(corpus, key[1], encoder, key[2], pad_to))
        return self._loaders[key][1]


def split_loader(corpus: Corpus, split: str, encoder, batch_size: int, pad_to: int | None = None):
    """Length-sorted evaluation batches of ``corpus``'s ``split`` (documents in their split order as ids).

    A subword encoder cuts documents to its token budget first, as in training.
    """
    from pyhighlights.data.datamodule import SPPDataModule

    only = Corpus(name=corpus.name, train=[], validation=[], test=list(corpus.split(split)),
                  label_names=corpus.label_names, info=dict(corpus.info))
    if hasattr(encoder, "truncate_corpus"):
        encoder.truncate_corpus(only)
    module = SPPDataModule(only, getattr(encoder, "vocabulary", None), encoder=encoder, batch_size=batch_size,
                           pad_to=pad_to)
    module.setup()
    return module.test_dataloader()
