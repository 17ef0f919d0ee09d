"""Helpers for tests of plugins and of models built in-process: a plugin "installed" by its metadata on a path,
``scripts/train.py`` run as a fresh process would see that plugin, and small fixed padded batches."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import torch
from forked_scripts import run_script

from pyhighlights import plugins
from pyhighlights.data.batch import Batch

ROOT = Path(__file__).resolve().parents[1]


def write_dist_info(site: Path, name: str, version: str, entry_points: dict[str, str]) -> Path:
    """What ``pip install`` leaves for a distribution: its metadata and its entry points."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = [f"{key} = {value}" for key, value in entry_points.items()]
    (info / "entry_points.txt").write_text(f"[{plugins.GROUP}]\n" + "\n".join(lines) + "\n")
    return info


# The script helper (forked_scripts) imported and loaded the registrations before the plugin was on the path;
# each run starts as a fresh process would: plugin on sys.path, registrations and schema digest not yet taken.
PRELUDE = """
import sys
sys.path[:0] = {paths!r}
import pyhighlights.config.catalogue, pyhighlights.registry
pyhighlights.registry._LOADED = False
pyhighlights.config.catalogue.source_digest.cache_clear()
"""


def train_with_plugin(tmp_path: Path, paths: list[str], *arguments: str, cache: Path) -> subprocess.CompletedProcess:
    """``python scripts/train.py *arguments`` with ``paths`` (a site with the plugin's metadata, its sources)
    importable, as an installed plugin would be."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*paths, str(ROOT)]), "PYHIGHLIGHTS_CACHE": str(cache),
           "OMP_NUM_THREADS": "1", "HYDRA_FULL_ERROR": "0"}
    return run_script("train.py", *arguments, env=env, cwd=tmp_path, timeout=300, prelude=PRELUDE.format(paths=paths))


def padded_batches(count: int = 2) -> list[Batch]:
    """``count`` seeded batches of three documents (6, 4 and 5 words, one token per word) over ids 1-11."""
    generator = torch.Generator().manual_seed(0)
    out = []
    for _ in range(count):
        lengths = [6, 4, 5]
        width = max(lengths)
        mask = torch.tensor([[1] * n + [0] * (width - n) for n in lengths])
        word_ids = torch.where(mask.bool(), torch.arange(width).expand(3, width), torch.tensor(-1))
        out.append(Batch(input_ids=torch.randint(1, 12, (3, width), generator=generator) * mask,
                         attention_mask=mask, word_ids=word_ids, word_mask=mask.clone(),
                         highlights=torch.full((3, width), -1), labels=torch.tensor([0, 1, 1]),
                         sample_ids=torch.arange(3)))
    return out
