"""Where a training command's time goes: start-up, training, finish (run by hand, never as a timed test).

    python benchmarks/run_phases.py [--repeats 3] [--case rnp|grat|all] [-- extra overrides]

Each repeat runs ``scripts/train.py`` in a fresh interpreter (``OMP_NUM_THREADS=1``, a fresh run
directory, the user's cache directory) with ``PYHIGHLIGHTS_PHASE_LOG`` set, so the run appends the
wall time and its own CPU seconds at the first training batch's start and the last training batch's
end (pyhighlights/training/phases.py). The three phases:

    start-up  the command -> the first training batch starts
    training  the first training batch -> the last training batch ends (with validation)
    finish    the last training batch -> the process has exited (test, predictions, plots, results)

Wall seconds come from ``time.time()`` in both processes; CPU seconds (user + system) from the
child's own ``getrusage`` at the markers and ``RUSAGE_CHILDREN`` after it exits. Prints medians.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The finish, step by step: the last validation, the test, results and plots, the run's end, the exit.
FINISH_EVENTS = ("train_end", "fit_end", "test_end", "plots_end", "run_end")
CASES = {"rnp": [], "grat": ["model=grat", "trainer.max_epochs=2", "model.pretrain_epochs=1"]}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def once(overrides: list[str], scratch: Path, index: int) -> dict[str, float]:
    marks_file = scratch / f"phases-{index}.txt"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT), "PYHIGHLIGHTS_PHASE_LOG": str(marks_file)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [sys.executable, str(ROOT / "scripts" / "train.py"), *overrides,
               f"hydra.run.dir={scratch / f'run-{index}'}"]
    cpu_before, began = children_cpu(), time.time()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=scratch)
    ended, cpu = time.time(), children_cpu() - cpu_before
    if done.returncode:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    marks: dict[str, tuple[float, float]] = {}
    for line in marks_file.read_text().splitlines():
        event, wall, own_cpu = line.split()
        if event not in marks or event != "first_train_batch_start":  # the first start, the last of the others
            marks[event] = (float(wall), float(own_cpu))
    (first_wall, first_cpu), (last_wall, last_cpu) = marks["first_train_batch_start"], marks["last_train_batch_end"]
    result = {"start-up wall": first_wall - began, "start-up CPU": first_cpu,
              "training wall": last_wall - first_wall, "training CPU": last_cpu - first_cpu,
              "finish wall": ended - last_wall, "finish CPU": cpu - last_cpu,
              "total wall": ended - began, "total CPU": cpu}
    previous = ("last batch", last_wall, last_cpu)
    for event in FINISH_EVENTS:
        if event in marks:
            result[f"{previous[0]} -> {event} wall"] = marks[event][0] - previous[1]
            result[f"{previous[0]} -> {event} CPU"] = marks[event][1] - previous[2]
            previous = (event, *marks[event])
    result[f"{previous[0]} -> exit wall"], result[f"{previous[0]} -> exit CPU"] = ended - previous[1], cpu - previous[2]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--case", choices=[*CASES, "all"], default="all")
    parser.add_argument("overrides", nargs="*", help="appended to every case's command (after --)")
    args = parser.parse_args()
    cases = CASES if args.case == "all" else {args.case: CASES[args.case]}
    with tempfile.TemporaryDirectory() as scratch:
        for name, overrides in cases.items():
            runs = [once([*overrides, *args.overrides], Path(scratch), f"{name}-{i}") for i in range(args.repeats)]
            print(f"{name} ({' '.join([*overrides, *args.overrides]) or 'defaults'}), median of {args.repeats}:")
            phases = ["start-up", "training", "finish", "total"]
            phases += [key[:-5] for key in runs[0] if key.endswith(" wall") and " -> " in key]
            for phase in phases:
                wall = statistics.median(run[f"{phase} wall"] for run in runs)
                cpu = statistics.median(run[f"{phase} CPU"] for run in runs)
                spread = ", ".join(f"{run[f'{phase} wall']:.2f}" for run in runs)
                print(f"  {phase:30s} {wall:7.2f} s wall  {cpu:7.2f} s CPU   (wall per run: {spread})")


if __name__ == "__main__":
    main()
