"""Finding run directories and reading what the viewer shows from them.

A path may be a training run (``predictions.jsonl``, or ``seed<N>/predictions.jsonl``
when several seeds ran), one seed's folder of such a run, or any folder
above runs. Post-hoc explanations of a run are read from
``explain/<method>/[seed<N>/]scores.jsonl``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyhighlights.reporting.reader import dataset_label
from pyhighlights.run_files import MANIFEST_FILE, PREDICTIONS_FILE as PREDICTIONS, RESULTS_FILE, read_json, read_jsonl

SCORES = "scores.jsonl"
_SEED_DIR = re.compile(r"seed(\d+)$")


@dataclass
class RunOutputs:
    """One seed of one run: its test predictions and any post-hoc methods' top-k selections."""

    name: str
    path: Path
    model: str
    dataset: str
    seed: int | None
    predictions: list[dict[str, Any]]
    explain: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: class names by label index (from the run's checkpoint description); None when unknown
    label_names: list[str] | None = None


def _is_run(path: Path) -> bool:
    return (path / PREDICTIONS).is_file() or any(path.glob(f"seed*/{PREDICTIONS}"))


def find_runs(paths: list[str | Path]) -> list[Path]:
    """Every run directory given or below the paths given, in order, each once."""
    found: list[Path] = []
    for given in paths:
        path = Path(given).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"{path}: no such directory")
        if _is_run(path):
            runs = [path]
        else:
            runs = sorted({p.parent for p in path.rglob(RESULTS_FILE) if _is_run(p.parent)})
        if not runs:
            raise FileNotFoundError(f"{path}: no {PREDICTIONS} here, in seed*/ or in a run below")
        found += [run for run in runs if run.resolve() not in {f.resolve() for f in found}]
    return found


def _seeds_of(run: Path) -> dict[int, Path]:
    return {int(m.group(1)): p.parent for p in run.glob(f"seed*/{PREDICTIONS}")
            if (m := _SEED_DIR.match(p.parent.name))}


def _manifest(run: Path) -> dict[str, Any]:
    for folder in (run, run.parent):
        if (folder / MANIFEST_FILE).is_file():
            return read_json(folder / MANIFEST_FILE)
    return {}


def load_run(path: str | Path, seed: int | None = None, name: str | None = None) -> RunOutputs:
    """The predictions (and explanations) of one seed of the run at ``path`` (its first seed by default)."""
    run = Path(path)
    seed_dirs = _seeds_of(run)
    manifest = _manifest(run)
    if (run / PREDICTIONS).is_file():
        folder = run
        match = _SEED_DIR.match(run.name)
        chosen = int(match.group(1)) if match else (manifest.get("seeds") or [None])[0]
        if seed is not None and chosen is not None and seed != chosen:
            raise ValueError(f"{run}: holds seed {chosen}, not seed {seed}")
    elif seed_dirs:
        chosen = min(seed_dirs) if seed is None else seed
        if chosen not in seed_dirs:
            raise ValueError(f"{run}: no seed {seed}; it holds seeds {sorted(seed_dirs)}")
        folder = seed_dirs[chosen]
    else:
        raise FileNotFoundError(f"{run}: no {PREDICTIONS} (nor seed*/{PREDICTIONS})")
    parameters = manifest.get("parameters", {})
    model = parameters.get("model", {}).get("name", "?")
    folder_name = (run.parent if _SEED_DIR.match(run.name) else run).name
    label = name or (model if folder_name == model else f"{model} · {folder_name}")
    if seed_dirs and name is None:
        label += f" · seed {chosen}"
    outputs = RunOutputs(name=label, path=run, model=model, dataset=dataset_label(parameters.get("dataset")),
                         seed=chosen, predictions=read_jsonl(folder / PREDICTIONS))
    explain_root = (run.parent if folder is run and _SEED_DIR.match(run.name) else run) / "explain"
    for method_dir in sorted(p for p in explain_root.glob("*") if p.is_dir()):
        scores = method_dir / (f"seed{chosen}" if (method_dir / f"seed{chosen}").is_dir() else "") / SCORES
        if scores.is_file():
            outputs.explain[method_dir.name] = read_jsonl(scores)
    if any("words" not in row for row in outputs.predictions):
        _add_corpus_words(outputs, explain_root.parent)
    outputs.label_names = run_label_names(explain_root.parent)
    return outputs


def run_label_names(run: Path) -> list[str] | None:
    """The class names the run's checkpoints describe; None when the run kept no readable checkpoint
    (``trainer.save_checkpoints=false``, an older run), and the page then shows label numbers."""
    if not any(run.glob("**/checkpoints/*.ckpt")):
        return None  # no checkpoint to describe them: not worth importing torch to find out
    from pyhighlights.evaluation.restore import RestoredRun

    try:
        return RestoredRun(run).label_names
    except Exception:  # noqa: BLE001 - names are a courtesy: any failure falls back to the numbers
        return None


def _add_corpus_words(outputs: RunOutputs, run: Path) -> None:
    """Runs written before predictions carried their words: take the words from the run's corpus, reloaded."""
    from pyhighlights.evaluation.restore import RestoredRun

    try:
        words = {d.doc_id: d.tokens for d in RestoredRun(run).corpus().test}
    except Exception as error:  # noqa: BLE001 - any failure means the same thing here
        raise ValueError(f"{run}/{PREDICTIONS} has no 'words' (an older run) and its corpus could not be "
                         f"reloaded to find them: {error}") from None
    for row in outputs.predictions:
        if "words" not in row:
            if row["id"] not in words:
                raise ValueError(f"{run}: document {row['id']} of {PREDICTIONS} is not in the reloaded test split")
            row["words"] = words[row["id"]]
