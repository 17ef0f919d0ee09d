"""Test selection rate per seed, sparsity penalty against sparsity constraint, on the embedded corpus.

Run by hand (hours on one thread; never as a test):

    OMP_NUM_THREADS=1 python benchmarks/sparsity_constraint.py --out runs/sparsity [--models rnp,fr,grat]
        [--modes penalty,constraint] [--seeds 0,1,2,3,4] [--jobs 1] [override ...]

Each (model, mode, seed) is one ``scripts/train.py <setting> model.losses.sparsity.mode=<mode> seed=<seed>`` in
its own run directory under ``--out`` (the quick settings as they were measured: RNP's defaults, and FR's and
G-RAT's before they followed the recommended recipes, spelled out in ``SETTINGS``; target 0.15 in each); a directory that already holds results.json is read, not
retrained, so an interrupted measurement continues. Extra arguments are passed to every run
(``model.losses.sparsity.multiplier_lr=0.2``). Prints, per model and mode, each seed's test selection rate,
their mean and sample std, and the largest distance from the target.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {
    "rnp": [],
    # FR's quick setting when this was measured: our options on the reference encoder layout, lr 4e-3
    "fr": ["model=fr", "layout=packed", "model.selector.evaluation=threshold", "model.predictor_pool=kept",
           "model.lr=0.004", "model.losses.sparsity.weight=2", "model.losses.sparsity.padding=excluded",
           "model.losses.continuity.weight=2", "model.losses.continuity.padding=excluded", "trainer.batch_size=32",
           "trainer.max_epochs=8"],
    # G-RAT's quick setting when this was measured: the reference arithmetic on the quick schedule
    "grat": ["model=grat", "layout=packed", "model.shared_embeddings=false"],
}
TARGET = 0.15


def train(model: str, mode: str, seed: int, out: Path, extra: list[str]) -> float | None:
    """One seed's test selection rate (None when its run failed: the table says so)."""
    run_dir = out / f"{model}_{mode}_seed{seed}"
    results = run_dir / "results.json"
    if not results.exists():
        command = [sys.executable, str(ROOT / "scripts" / "train.py"), *SETTINGS[model],
                   f"model.losses.sparsity.mode={mode}", f"model.losses.sparsity.target={TARGET}",
                   f"seed={seed}", f"hydra.run.dir={run_dir}", "trainer.progress_bar=false", *extra]
        env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
        log = out / f"{model}_{mode}_seed{seed}.log"
        with log.open("w") as handle:
            done = subprocess.run(command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
        if done.returncode != 0:
            print(f"{model} {mode} seed {seed}: scripts/train.py failed (exit {done.returncode}); see {log}",
                  file=sys.stderr)
            return None
    return json.loads(results.read_text())["seeds"][str(seed)]["test/sparsity"]


def row(model: str, mode: str, rates: list[float | None]) -> str:
    cells = " | ".join("failed" if v is None else f"{v:.3f}" for v in rates)
    values = [v for v in rates if v is not None]
    if not values:
        return f"| {model} | {mode} | {cells} | | |"
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    worst = max(abs(v - TARGET) for v in values)
    return f"| {model} | {mode} | {cells} | {statistics.mean(values):.3f} ± {spread:.3f} | {worst:.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", default="rnp,fr,grat")
    parser.add_argument("--modes", default="penalty,constraint")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once, each on one thread")
    args, extra = parser.parse_known_args()
    models, modes = args.models.split(","), args.modes.split(",")
    unknown = sorted(set(models) - set(SETTINGS))
    if unknown:
        parser.error(f"--models: unknown {unknown[0]!r}; known: {', '.join(SETTINGS)}")
    seeds = [int(s) for s in args.seeds.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    # seed by seed, every model and mode in turn, so an early stop leaves comparable cells
    runs = [(model, mode, seed) for seed in seeds for model in models for mode in modes]
    with ThreadPoolExecutor(args.jobs) as pool:
        rates = dict(zip(runs, pool.map(lambda run: train(*run, args.out, extra), runs)))
    header = " | ".join(f"seed {s}" for s in seeds)
    print(f"| model | mode | {header} | mean ± std | max abs(rate - {TARGET}) |")
    print("|---|---|" + "---:|" * (len(seeds) + 2))
    for model in models:
        for mode in modes:
            print(row(model, mode, [rates[(model, mode, seed)] for seed in seeds]))


if __name__ == "__main__":
    main()
