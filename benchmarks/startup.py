"""Start-up of scripts/train.py: wall time to the answer of --help, --cfg job and a misspelt field.

Run by hand (never as a timed test):

    python benchmarks/startup.py [--repeats 3]

Each command runs in a fresh interpreter, first with an empty schema cache (the first command after a code
change: it imports the registry, torch and the models, then writes the cache) and then with that cache (every
later command). Prints the median of the repeats per command, and whether the cached run imported torch.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {"--help": ["--help"], "--cfg job": ["--cfg", "job"],
            "misspelt field": ["model.selector.temprature=0.5"]}
PROBE = "import sys, runpy; sys.argv = sys.argv[1:]\ntry:\n    runpy.run_path(sys.argv[0], run_name='__main__')\n" \
        "finally:\n    print('torch imported' if 'torch' in sys.modules else 'no torch', file=sys.stderr)"


def timed(cache: str, arguments: list[str]) -> tuple[float, str]:
    env = {**os.environ, "PYHIGHLIGHTS_CACHE": cache, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, str(ROOT / "scripts" / "train.py"), *arguments],
                          env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
    return time.perf_counter() - began, done.stderr.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        cold, _ = timed(cache, ["--help"])
        print(f"--help, empty cache (builds it): {cold:.2f} s")
        for name, arguments in COMMANDS.items():
            runs = [timed(cache, arguments) for _ in range(args.repeats)]
            print(f"{name}, cached: {statistics.median(t for t, _ in runs):.2f} s (median of {args.repeats}; "
                  f"{runs[-1][1]})")


if __name__ == "__main__":
    main()
