"""Writing tiny corpora and training tiny runs for the evaluation tests."""
from __future__ import annotations

import hashlib
from pathlib import Path

from pyhighlights.data.synthetic import write_synthetic_beer

TINY = ["trainer.max_epochs=1", "trainer.batch_size=16", "trainer.progress_bar=false", "backbone.hidden_size=8",
        "embeddings.dim=8"]


def write_tiny_corpus(out: Path, seed: int) -> Path:
    return write_synthetic_beer(out, seed=seed, n_train=40, n_heldout=16, n_test=12, min_length=40, max_length=60)


def compose(*overrides: str):
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    from pyhighlights.cli.common import CONFIG_DIR
    from pyhighlights.config.hydra_schema import register_schemas

    register_schemas()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return hydra_compose("train", overrides=list(overrides))


def train_tiny(out: Path, corpus: Path, model: str, *extra: str) -> Path:
    """Train ``model`` for one epoch on ``corpus`` into ``out`` (in this process)."""
    from pyhighlights.training.run import run

    cfg = compose(f"model={model}", "dataset=beer", f"dataset.data_dir={corpus}", *TINY, *extra)
    run(cfg, out, command=["tests"])
    return out


def tree_digest(folder: Path, skip: str) -> dict[str, str]:
    """sha256 of every file under ``folder`` except those under ``folder/<skip>``."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.relative_to(folder).parts[0] != skip}
