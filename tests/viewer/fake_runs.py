"""Small synthetic run directories: predictions.jsonl (with words), manifest.json, results.json, explanations."""
from __future__ import annotations

import json
import random
import zlib
from pathlib import Path


def fake_documents(count: int, seed: int = 0, annotated_every: int = 7) -> list[dict]:
    """Documents of 8-30 words with one or two human spans; every ``annotated_every``-th has no annotation."""
    rng = random.Random(seed)
    documents = []
    for i in range(count):
        n = rng.randint(8, 30)
        words = [f"w{i}_{j}" for j in range(n)]
        human = None
        if i % annotated_every != annotated_every - 1:
            human = set()
            for _ in range(rng.randint(1, 2)):
                start = rng.randrange(n - 3)
                human |= set(range(start, start + rng.randint(1, 4)))
            human = sorted(human)
        documents.append({"id": f"doc{i}", "words": words, "label": rng.randint(0, 2), "highlight": human})
    return documents


def fake_rows(documents: list[dict], seed: int, keep_words: bool = True) -> list[dict]:
    """One model's predictions: right ~70% of the time, each word selected with probability 0.3."""
    rng = random.Random(seed)
    rows = []
    for sample, doc in enumerate(documents):
        prediction = doc["label"] if rng.random() < 0.7 else (doc["label"] + 1) % 3
        row = {"id": doc["id"], "sample": sample, "label": doc["label"], "prediction": prediction,
               "selected": [j for j in range(len(doc["words"])) if rng.random() < 0.3],
               "highlight": doc["highlight"]}
        if keep_words:
            row["words"] = doc["words"]
        rows.append(row)
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def write_run(root: Path, model: str, documents: list[dict], seeds=(0,), methods=(), keep_words=True) -> Path:
    """A run directory of ``model`` over ``documents``; one seed folder per seed when there are several."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "manifest.json").write_text(json.dumps({
        "seeds": list(seeds), "parameters": {"model": {"name": model},
                                             "dataset": {"name": "synthetic", "aspect": "a", "data_dir": None}}}))
    (root / "results.json").write_text(json.dumps({"seeds": {str(s): {} for s in seeds}, "summary": {}}))
    for seed in seeds:
        folder = root / f"seed{seed}" if len(seeds) > 1 else root
        write_jsonl(folder / "predictions.jsonl", fake_rows(documents, seed=zlib.crc32(f"{model}/{seed}".encode()),
                                                            keep_words=keep_words))
        for method in methods:
            out = root / "explain" / method / (f"seed{seed}" if len(seeds) > 1 else "")
            rows = fake_rows(documents, seed=zlib.crc32(f"{method}/{seed}".encode()), keep_words=False)
            write_jsonl(out / "scores.jsonl", [{**row, "scores": [0.0] * len(d["words"])}
                                               for row, d in zip(rows, documents)])
    return root


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_description(root: Path, label_names: list[str], seeds=(0,)) -> None:
    """A best checkpoint per seed holding only the run's description (the class names the viewer reads)."""
    import torch

    from pyhighlights.training.description import FORMAT, KEY

    for seed in seeds:
        folder = (root / f"seed{seed}" if len(seeds) > 1 else root) / "checkpoints"
        folder.mkdir(parents=True, exist_ok=True)
        torch.save({KEY: {"format": FORMAT, "label_names": list(label_names)}}, folder / "best-epoch=1.ckpt")
