#!/usr/bin/env python
"""Write the synthetic Beer corpus (Lei et al. 2016 format) into a directory.

Example::

    python scripts/make_synthetic.py data/synth_beer --seed 0 --correlation 0.5

The same arguments always give the same bytes; see pyhighlights.data.synthetic.
"""
from __future__ import annotations

import argparse
import inspect
import time

from pyhighlights.data.synthetic import write_synthetic_beer

DEFAULTS = {
    name: p.default
    for name, p in inspect.signature(write_synthetic_beer).parameters.items()
    if p.default is not inspect.Parameter.empty
}


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", help="directory to write the corpus files into")
    parser.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    parser.add_argument("--n-train", type=int, default=DEFAULTS["n_train"], help="reviews per training file")
    parser.add_argument(
        "--n-heldout", type=int, default=DEFAULTS["n_heldout"], help="reviews per heldout file"
    )
    parser.add_argument("--n-test", type=int, default=DEFAULTS["n_test"], help="annotated reviews")
    parser.add_argument(
        "--correlation",
        type=float,
        default=DEFAULTS["correlation"],
        help="probability that an aspect copies the anchor aspect's polarity (0 independent, 1 all equal)",
    )
    parser.add_argument(
        "--min-length", type=int, default=DEFAULTS["min_length"], help="fewest tokens per review"
    )
    parser.add_argument(
        "--max-length", type=int, default=DEFAULTS["max_length"], help="most tokens per review"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_arguments(argv)
    parameters = {name: value for name, value in vars(args).items() if name != "out_dir"}
    start = time.perf_counter()
    try:
        out = write_synthetic_beer(args.out_dir, **parameters)
    except ValueError as error:
        raise SystemExit(f"make_synthetic: {error}") from None
    print(f"wrote synthetic Beer corpus to {out} in {time.perf_counter() - start:.2f}s ({parameters})")


if __name__ == "__main__":
    main()
