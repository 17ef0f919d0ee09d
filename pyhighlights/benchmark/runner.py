"""Train the cells of a grid into run directories keyed by their resolved configuration.

The one mechanism behind ``scripts/benchmark.py`` and ``scripts/compare.py``.
A cell's directory is ``<out>/<name>`` first, then ``<name>-2``, ``-3``, ...:
the first whose manifest records exactly the cell's resolved parameters and
seeds, else the first unused name. So the same command skips a finished cell,
resumes an interrupted one in place (the resume guarantees of
:func:`pyhighlights.training.run.run`), and a changed override trains into a
new directory instead of reusing results of another configuration.

Cells run one after the other in this process, or, with a Hydra launcher
(``hydra/launcher=local`` or ``slurm``, the submitit launchers), as one job
per unfinished cell of a Hydra multirun of :mod:`pyhighlights.cli.benchmark_cell`,
which runs the same :func:`run_cell`.
"""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from pyhighlights.benchmark.grid import Cell

log = logging.getLogger("pyhighlights")

GRID_FILE = "grid.json"


@dataclass
class Planned:
    cell: Cell
    run_dir: Path
    state: str  # new, finished or interrupted
    cfg: Any = None


def _seeds_done(run_dir: Path) -> set[str]:
    results = run_dir / "results.json"
    return set(json.loads(results.read_text()).get("seeds", {})) if results.is_file() else set()


def _recorded(run_dir: Path) -> tuple[Any, Any] | None:
    """(parameters, seeds) from a run directory's manifest; None without one."""
    manifest = run_dir / "manifest.json"
    if not manifest.is_file():
        return None
    recorded = json.loads(manifest.read_text())
    return recorded.get("parameters"), recorded.get("seeds")


def _wanted(specs: dict[str, Any], seeds: Sequence[int]) -> tuple[Any, list[int]]:
    # Through JSON, as the manifest stored them (tuples become lists, paths strings).
    return json.loads(json.dumps(specs, default=str)), list(seeds)


def state_of(run_dir: Path, specs: dict[str, Any], seeds: Sequence[int]) -> str | None:
    """``new`` (no directory), ``finished``, ``interrupted``, or None: the directory holds another configuration."""
    if not run_dir.exists():
        return "new"
    if _recorded(run_dir) != _wanted(specs, seeds):
        return None
    return "finished" if {str(s) for s in seeds} <= _seeds_done(run_dir) else "interrupted"


def run_directory(out_dir: Path, name: str, specs: dict[str, Any], seeds: Sequence[int]) -> tuple[Path, str]:
    """The directory for this configuration below ``out_dir`` and its state (see the module's docstring)."""
    index = 1
    while True:
        run_dir = Path(out_dir) / (name if index == 1 else f"{name}-{index}")
        state = state_of(run_dir, specs, seeds)
        if state is not None:
            return run_dir, state
        index += 1


def _compose(cell: Cell) -> tuple[Any, dict[str, Any]]:
    from hydra.core.global_hydra import GlobalHydra

    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import resolve_specs
    from pyhighlights.training.warmup import check_warmup

    if GlobalHydra.instance().is_initialized():
        # inside a launcher's job (pyhighlights/cli/benchmark_cell.py), whose Hydra reads the same config folder
        from hydra import compose

        from pyhighlights.config.hydra_schema import group_overrides

        cfg = compose("train", overrides=group_overrides(cell.overrides))
    else:
        cfg = compose_config(cell.overrides)
    resolved = resolve_specs(cfg)
    check_warmup(resolved.model, resolved.trainer)
    return cfg, resolved.as_dict()


def plan(cells: Sequence[Cell], out_dir: Path) -> list[Planned]:
    """Every cell's configuration checked (a typo fails in seconds, not hours) and its directory and state."""
    names = [cell.name for cell in cells]
    if len(set(names)) != len(names):
        raise ValueError(f"cells: names repeat ({names})")
    planned = []
    for cell in cells:
        cfg, specs = _compose(cell)
        run_dir, state = run_directory(Path(out_dir), cell.name, specs, cell.seeds)
        planned.append(Planned(cell, run_dir, state, cfg))
    return planned


def run_cell(cell: Cell, run_dir: Path, cfg: Any = None, command: list[str] | None = None) -> str:
    """Train, resume or skip one cell in ``run_dir``; return what was done: skipped, resumed or trained."""
    from pyhighlights.training.run import run

    if cfg is None:
        cfg, specs = _compose(cell)
    else:
        from pyhighlights.training.run import resolve_specs

        specs = resolve_specs(cfg).as_dict()
    state = state_of(run_dir, specs, cell.seeds)
    if state is None:
        raise FileExistsError(f"{run_dir}: holds a run of another configuration; not training {cell.name} there")
    if state == "finished":
        log.info("%s: %s already holds seeds %s of this configuration; not training it again",
                 cell.name, run_dir, cell.seeds)
    else:
        log.info("%s: %s seeds %s in %s (%s)", cell.name, "resuming" if state == "interrupted" else "training",
                 cell.seeds, run_dir, " ".join(cell.overrides))
        run(cfg, run_dir, command=(command or []) + [f"# cell {cell.name}: {' '.join(cell.overrides)}"],
            resume=state == "interrupted")
    explain_cell(cell, run_dir)
    return {"finished": "skipped", "interrupted": "resumed"}.get(state, "trained")


def explanation_dir(run_dir: Path, item: dict[str, Any]) -> Path:
    """Where :func:`pyhighlights.explain.explain.explain_run` writes ``method`` with ``tag=<level>``."""
    from pyhighlights.evaluation.outputs import slug

    return Path(run_dir) / "explain" / f"{item['method']}-{slug(item['level'])}"


def explain_cell(cell: Cell, run_dir: Path) -> None:
    """The cell's post-hoc explanations that are not written yet (an interrupted one left only scratch)."""
    if not cell.explanations:
        return
    import torch

    from pyhighlights.explain.explain import explain_run

    for item in cell.explanations:
        if (explanation_dir(run_dir, item) / "metrics.json").is_file():
            log.info("%s: %s is explained already", cell.name, explanation_dir(run_dir, item))
            continue
        log.info("%s: explaining with %s at rate %s", cell.name, item["method"], item["rate"])
        explain_run(run_dir, item["method"], rate=float(item["rate"]), tag=item["level"], infidelity_samples=0,
                    sensitivity_samples=0, device="cuda" if torch.cuda.is_available() else "cpu",
                    command=["# benchmark cell", cell.name])


def train_cells(cells: Sequence[Cell], out_dir: Path, command: list[str] | None = None,
                launcher: str | None = None, launcher_overrides: Sequence[str] = (),
                keep_going: bool = False) -> list[Planned]:
    """Train every unfinished cell (see the module's docstring); return the plan, cell by cell.

    ``keep_going``: a cell whose training fails is logged and left unfinished (the table marks it) and the
    next cell trains; otherwise the error ends the whole grid.
    """
    out_dir = Path(out_dir)
    planned = plan(cells, out_dir)
    if launcher is None:
        for item in planned:
            try:
                run_cell(item.cell, item.run_dir, item.cfg, command)
            except Exception as error:  # noqa: BLE001 - reported, the cell stays unfinished, the grid goes on
                if not keep_going:
                    raise
                log.error("error: %s failed in %s: %s: %s; going on with the next cell",
                          item.cell.name, item.run_dir, type(error).__name__, error)
        return planned
    pending = [i for i, item in enumerate(planned) if item.state != "finished" or not explained(item)]
    for item in planned:
        if item.state == "finished":
            log.info("%s: %s is finished; not training it again", item.cell.name, item.run_dir)
    if pending:
        launch(planned, pending, out_dir, launcher, launcher_overrides)
    return planned


def explained(item: Planned) -> bool:
    return all((explanation_dir(item.run_dir, e) / "metrics.json").is_file() for e in item.cell.explanations)


def write_grid(planned: Sequence[Planned], out_dir: Path) -> Path:
    from pyhighlights.training.rundir import write_json_atomic

    path = Path(out_dir) / GRID_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, {"cells": [{**p.cell.as_dict(), "run_dir": str(p.run_dir)} for p in planned]})
    return path


def read_grid(path: Path) -> list[tuple[Cell, Path]]:
    payload = json.loads(Path(path).read_text())
    return [(Cell.from_dict({k: v for k, v in c.items() if k != "run_dir"}), Path(c["run_dir"]))
            for c in payload["cells"]]


def launch(planned: Sequence[Planned], pending: Sequence[int], out_dir: Path, launcher: str,
           launcher_overrides: Sequence[str] = ()) -> None:
    """One Hydra multirun job per pending cell through ``hydra/launcher=<launcher>``; waits for all of them.

    The launcher's own files (submitit logs, one folder per job) go to ``<out>/launcher/``.
    """
    grid = write_grid(planned, out_dir)
    import pyhighlights

    root = str(Path(pyhighlights.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    argv = [sys.executable, "-m", "pyhighlights.cli.benchmark_cell", "-m", f"hydra/launcher={launcher}",
            *launcher_overrides, f"grid={grid.resolve()}", f"cell={','.join(str(i) for i in pending)}",
            f"hydra.sweep.dir={(Path(out_dir) / 'launcher').resolve()}"]
    log.info("launching %d cell(s) through hydra/launcher=%s: %s", len(pending), launcher, " ".join(argv[1:]))
    done = subprocess.run(argv, env=env)
    if done.returncode != 0:
        log.warning("the launcher exited with status %d; the table marks the cells it did not finish",
                    done.returncode)
