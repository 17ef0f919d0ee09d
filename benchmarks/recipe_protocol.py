#!/usr/bin/env python
"""The recipe protocol: models x recipes x generated corpora x seeds at a short budget, and its table.

A recipe chosen on one corpus may only fit that corpus. The protocol generates corpora that differ in what
breaks rationalisers (generator seed, aspect correlation 0 / 0.5 / 0.9, human highlight rate 6-15 %, short
and long reviews) in the three on-disk layouts the real corpora come in (Lei et al. Beer, R2A beer, R2A
hotel; see pyhighlights/data/synthetic_layouts.py), read by the real corpora's loaders. Settings are chosen
on the ``tuning`` corpora; the table reports the ``held-out`` ones, which no choice looked at.

    python benchmarks/recipe_protocol.py --out runs/recipe_protocol                  # held-out, every recipe
    python benchmarks/recipe_protocol.py --out runs/recipe_tuning --role tuning --recipes reference,recommended
    python benchmarks/recipe_protocol.py --out DIR --models fr --seeds 0 --corpora beer_appearance \
        -- backbone.hidden_size=64

Each cell is ``python scripts/train.py model=M recipe=R dataset=... seed=N`` into
``<out>/cells/<model>/<recipe>/<corpus>/seed<N>``; a cell whose directory holds a finished run is not run
again (rerunning the command resumes the grid), an unfinished one is resumed in place. Each cell's command is
recorded beside it (``seed<N>.command.json``): a rerun with other settings (corpus sizes, overrides) refuses the
cell instead of mixing results of two settings in one table, and so does a rerun whose overrides now compose another
configuration than the cell ran with (a recipe file changed since). Corpora are written once into
``<out>/corpora/<name>`` (the same arguments give the same bytes). Hydra overrides after ``--`` go to every
cell. The command exits 1 when a cell failed (its log is beside it).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pyhighlights.config.recipe import models_with_recipe  # noqa: E402
from pyhighlights.data.synthetic_layouts import write_layout_corpus  # noqa: E402

LONG, SHORT = (100, 250), (30, 80)
# aspect_share -> test human rate per aspect (measured by the writer, in each corpus's synthetic.json):
# long reviews (0.27, 0.37) about 6 %, (0.5, 0.8) about 11 %; short reviews (0.8, 1.0) about 15 %.
RATE_SHARE = {6: (0.27, 0.37), 11: (0.5, 0.8), 15: (0.8, 1.0)}
DATASET = {"lei": "beer", "beer_r2a": "beer_r2a", "hotel": "hotel"}
ASPECT_NAMES = {"lei": ("appearance", "aroma", "palate"), "beer_r2a": ("look", "aroma", "palate"),
                "hotel": ("location", "service", "cleanliness")}


def corpus(role, name, layout, seed, correlation, rate, lengths, aspect):
    return {"role": role, "name": name, "layout": layout, "seed": seed, "correlation": correlation,
            "rate": rate, "lengths": lengths, "aspect": aspect}


# Generator seeds 1-9 are tuning corpora (one of each kind the held-out set has: correlation 0, 0.5 and 0.9, the
# three layouts, both lengths), 10 and up held out: Lei-layout Beer at a 6 % human rate (appearance,
# palate), the same with correlation 0.9, Hotel service, and short R2A reviews at a 15 % rate.
CORPORA = [
    corpus("tuning", "tune_beer_appearance", "lei", 1, 0.0, 6, LONG, 0),
    corpus("tuning", "tune_r2a_palate_corr05", "beer_r2a", 2, 0.5, 11, LONG, 2),
    corpus("tuning", "tune_hotel_location_short", "hotel", 3, 0.0, 15, SHORT, 0),
    corpus("tuning", "tune_beer_aroma_corr09", "lei", 4, 0.9, 6, LONG, 1),
    corpus("tuning", "tune_hotel_cleanliness_corr05", "hotel", 5, 0.5, 11, LONG, 2),
    corpus("held-out", "beer_appearance", "lei", 10, 0.0, 6, LONG, 0),
    corpus("held-out", "beer_palate", "lei", 10, 0.0, 6, LONG, 2),
    corpus("held-out", "beer_palate_corr09", "lei", 11, 0.9, 6, LONG, 2),
    corpus("held-out", "hotel_service", "hotel", 12, 0.5, 11, LONG, 1),
    corpus("held-out", "r2a_aroma_short", "beer_r2a", 13, 0.0, 15, SHORT, 1),
]
# The short budget: 4 epochs of batches of 32 at sparsity target 0.15 for every model; G-RAT spends one of the
# four on its guider alone and selects by the monitor (its reference presets on Beer and Hotel select by
# accuracy within the rate band, which four epochs rarely reach); a model that pre-trains a teacher or an
# evaluator (DAR, DMR, EVAL-X) spends one of the four on it too.
TARGET = "model.losses.sparsity.target=0.15"
BUDGET = ["trainer.max_epochs=4", "trainer.batch_size=32", TARGET, "trainer.progress_bar=false"]
# SPECTRA has no sparsity term: its budget (percent of each document's words) is the target. GenSPP has none
# either: its fitness rewards fewer kept words, with no target.
MODEL_TARGET = {"spectra": "model.selector.budget=15", "genspp": None}
MODEL_BUDGET = {"grat": ["model.pretrain_epochs=1", "trainer.selection=monitor"],
                "dar": ["model.auxiliary_epochs=1"], "dmr": ["model.auxiliary_epochs=1"],
                "evalx": ["model.pretrain_epochs=1"],
                "invrat": ["dataset.environments=2"]}  # its environments: a random per-class partition, as quick_invrat


def corpus_dir(out: Path, spec: dict, sizes: dict) -> Path:
    """The corpus of ``spec`` (its files written once; a corpus of other sizes is another directory)."""
    tag = f"{spec['layout']}_g{spec['seed']}_c{spec['correlation']}_r{spec['rate']}_l{spec['lengths'][0]}" \
          f"_n{sizes['n_train']}-{sizes['n_heldout']}-{sizes['n_test']}"
    path = out / "corpora" / tag
    if not (path / "synthetic.json").is_file():
        write_layout_corpus(path, spec["layout"], seed=spec["seed"], correlation=spec["correlation"],
                            aspect_share=RATE_SHARE[spec["rate"]], min_length=spec["lengths"][0],
                            max_length=spec["lengths"][1], **sizes)
    return path


def finished(cell: Path) -> bool:
    try:
        return json.loads((cell / "status.json").read_text())["state"] == "finished" and \
            (cell / "results.json").is_file()
    except (OSError, ValueError, KeyError):
        return False


def cell_overrides(model: str, recipe: str, spec: dict, data_dir: Path, seed: int, extra: list[str]) -> list[str]:
    target = MODEL_TARGET.get(model, TARGET)
    budget = [target if item == TARGET else item for item in BUDGET]
    return [f"model={model}", f"recipe={recipe}", f"dataset={DATASET[spec['layout']]}", f"dataset.data_dir={data_dir}",
            f"dataset.aspect={spec['aspect']}", f"seed={seed}", *filter(None, budget), *MODEL_BUDGET.get(model, []),
            *extra]


def recorded_command(cell: Path, overrides: list[str]) -> None:
    """Record ``overrides`` beside ``cell``, or refuse a cell recorded with others."""
    record = cell.parent / f"{cell.name}.command.json"
    if record.is_file():
        before = json.loads(record.read_text())
        if before != overrides:
            changed = sorted(set(before) ^ set(overrides))
            raise SystemExit(f"{record}: the cell {cell} was run with other settings (differing: {changed}); "
                             f"use another --out, or delete the cell and its record to run it again")
    elif cell.exists():
        raise SystemExit(f"{cell} exists but has no {record.name}: not a cell of this protocol; use another --out")
    else:
        cell.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(overrides, indent=1) + "\n", encoding="utf-8")


def refuse_stale(cell: Path, overrides: list[str]) -> None:
    """Refuse a cell whose run recorded another configuration than its overrides compose now: a recipe or preset
    file changed since it ran, which its recorded overrides cannot show, and its result would enter the table.
    The recorded parameters are read by today's schemas first, so a field added since the cell ran takes its
    default there (what the cell ran with) and counts only where the overrides now set it otherwise."""
    manifest = cell / "manifest.json"
    if not manifest.is_file():
        return
    from pyhighlights.checkpoint_match import differences
    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import resolve_specs

    now = resolve_specs(compose_config([*overrides, f"hydra.run.dir={cell}"])).as_dict()
    recorded = resolve_specs(json.loads(manifest.read_text())["parameters"]).as_dict()
    changed = [key for key, _, _ in differences(now, recorded)]
    if changed:
        raise SystemExit(f"{cell}: ran with settings its overrides no longer compose (differing: {changed}; a recipe "
                         f"or preset file changed since); use another --out, or delete the cell and its record to "
                         f"run it again")


def run_cell(cell: Path, overrides: list[str]) -> bool:
    """Train (or resume) ``cell``; whether it finished."""
    train = [sys.executable, str(ROOT / "scripts" / "train.py")]
    # a resumed run takes its settings from its own directory, which refuses any other override
    command = [*train, f"resume={cell}"] if (cell / "status.json").is_file() else \
        [*train, *overrides, f"hydra.run.dir={cell}"]
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    with open(cell.parent / f"{cell.name}.log", "a", encoding="utf-8") as log:
        code = subprocess.call(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    if code != 0:
        print(f"cell {cell} failed (exit {code}); see {cell.parent / (cell.name + '.log')}", file=sys.stderr)
    return code == 0


def score(cell: Path, metric: str) -> float | None:
    if not finished(cell):
        return None
    return json.loads((cell / "results.json").read_text())["summary"][metric]["mean"]


def known_metric(out: Path, metric: str) -> None:
    """Refuse a ``--metric`` that a finished cell's results.json does not report."""
    for results in sorted(out.glob("cells/*/*/*/seed*/results.json")):
        summary = json.loads(results.read_text())["summary"]
        if metric not in summary:
            raise SystemExit(f"--metric {metric}: not in {results}; it reports {', '.join(sorted(summary))}")
        return


def seed_values(out: Path, model: str, recipe: str, spec: dict, seeds, metric: str) -> list[float]:
    return [v for s in seeds if (v := score(out / "cells" / model / recipe / spec["name"] / f"seed{s}",
                                             metric)) is not None]


def corpus_mean(per_corpus: list[list[float]]) -> str:
    """The mean over corpora of each corpus's seed mean; – unless every corpus has a finished seed."""
    return "–" if not all(per_corpus) else f"{statistics.mean(statistics.mean(v) for v in per_corpus):.3f}"


def describe(values: list[float]) -> str:
    """``mean ± sample std (n=…)`` of one cell's finished seeds; – when none finished."""
    std = f" ± {statistics.stdev(values):.3f}" if len(values) > 1 else ""
    return f"{statistics.mean(values):.3f}{std} (n={len(values)})" if values else "–"


def summary(out: Path, model: str, recipe: str, spec: dict, seeds, metric: str) -> str:
    """``mean ± sample std (n=…)`` of ``metric`` over the finished seeds of one model, recipe and corpus."""
    return describe(seed_values(out, model, recipe, spec, seeds, metric))


def table(out: Path, models, recipes, corpora, seeds, metric: str, rows: str = "corpus") -> str:
    """Markdown, mean ± sample std over finished seeds: one row per corpus and one column per model and recipe
    (``rows="corpus"``), or one row per model and recipe, one column per corpus and the mean over the corpora of
    their seed means (``rows="model"``)."""
    columns = [(m, r) for m in models for r in recipes]
    if rows == "model":
        names = [f"{spec['name']} ({ASPECT_NAMES[spec['layout']][spec['aspect']]})" for spec in corpora]
        lines = ["| model | recipe | " + " | ".join(names) + " | mean |", "|---|---|" + "---:|" * (len(corpora) + 1)]
        for model, recipe in columns:
            per_corpus = [seed_values(out, model, recipe, spec, seeds, metric) for spec in corpora]
            lines.append(f"| {model} | {recipe} | " + " | ".join(map(describe, per_corpus)) +
                         f" | {corpus_mean(per_corpus)} |")
        return "\n".join(lines)
    lines = ["| corpus | layout | correlation | human rate | " + " | ".join(f"{m} {r}" for m, r in columns) + " |",
             "|---|---|---:|---:|" + "---:|" * len(columns)]
    for spec in corpora:
        cells = [summary(out, model, recipe, spec, seeds, metric) for model, recipe in columns]
        aspect = ASPECT_NAMES[spec["layout"]][spec["aspect"]]
        lines.append(f"| {spec['name']} ({aspect}) | {spec['layout']} | {spec['correlation']} | "
                     f"{spec['rate']} % | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="output directory (cells, corpora, table.md)")
    parser.add_argument("--models", default=None, help="comma-separated (default: every model with a recommended recipe)")
    parser.add_argument("--recipes", default="recommended")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--role", choices=("held-out", "tuning", "all"), default="held-out")
    parser.add_argument("--corpora", default=None, help="comma-separated corpus names (default: all of --role)")
    parser.add_argument("--n-train", type=int, default=2000, help="reviews per training file")
    parser.add_argument("--n-heldout", type=int, default=300, help="reviews per validation file")
    parser.add_argument("--n-test", type=int, default=300, help="annotated test reviews")
    parser.add_argument("--metric", default="test/highlight_f1")
    parser.add_argument("--table-only", action="store_true", help="print the table of the cells already run")
    parser.add_argument("--rows", choices=("corpus", "model"), default="corpus",
                        help="a row per corpus (a column per model and recipe) or a row per model and recipe")
    parser.add_argument("extra", nargs="*", help="Hydra overrides for every cell (after --)")
    return parser.parse_args(argv)


def main(argv=None) -> str:
    args = parse_arguments(argv)
    corpora = [c for c in CORPORA if args.role in ("all", c["role"])]
    if args.corpora:
        names = args.corpora.split(",")
        unknown = sorted(set(names) - {c["name"] for c in CORPORA})
        if unknown:
            raise SystemExit(f"--corpora: unknown {unknown}; known: {', '.join(c['name'] for c in CORPORA)}")
        corpora = [c for c in CORPORA if c["name"] in names]
    models = args.models.split(",") if args.models else models_with_recipe("recommended")
    recipes = args.recipes.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    sizes = {"n_train": args.n_train, "n_heldout": args.n_heldout, "n_test": args.n_test}
    failed = []
    if not args.table_only:
        for spec in corpora:
            data_dir = corpus_dir(args.out, spec, sizes)
            for model in models:
                for recipe in recipes:
                    for seed in seeds:
                        cell = args.out / "cells" / model / recipe / spec["name"] / f"seed{seed}"
                        overrides = cell_overrides(model, recipe, spec, data_dir, seed, args.extra)
                        recorded_command(cell, overrides)
                        refuse_stale(cell, overrides)
                        if finished(cell):
                            print(f"skip {cell} (finished)")
                            continue
                        print(f"run {cell}", flush=True)
                        if not run_cell(cell, overrides):
                            failed.append(cell)
    known_metric(args.out, args.metric)
    text = table(args.out, models, recipes, corpora, seeds, args.metric, args.rows)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "table.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    if failed:
        raise SystemExit(f"{len(failed)} cell(s) failed: {', '.join(map(str, failed))}")
    return text


if __name__ == "__main__":
    main()
