"""The viewer's data: one JSON-able payload from the outputs of one or more runs.

Every document appears once with its words, true label and human
highlight, and one *line* per source of a highlight: each run's model, then
each post-hoc method explained on that run (its top-k selection).
"""
from __future__ import annotations

from typing import Any

from pyhighlights.viewer.runs import RunOutputs
from pyhighlights.viewer.scores import corpus_scores, document_scores


def _lines(runs: list[RunOutputs]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    lines = []
    for index, run in enumerate(runs):
        lines.append(({"name": run.name, "kind": "model", "run": index, "model": run.model,
                       "dataset": run.dataset, "seed": run.seed, "path": str(run.path)}, run.predictions))
        for method, rows in run.explain.items():
            lines.append(({"name": f"{method} top-k · {run.name}", "kind": "explain", "run": index,
                           "model": run.model, "dataset": run.dataset, "seed": run.seed,
                           "path": str(run.path / "explain" / method)}, rows))
    return lines


def assemble(runs: list[RunOutputs]) -> dict[str, Any]:
    """``{"lines": [...], "documents": [...]}``; ``ValueError`` if runs disagree on a document's words."""
    if not runs:
        raise ValueError("no run to show")
    lines = _lines(runs)
    # Runs on different corpora may share document ids: a document is its corpus and its id.
    several = len({run.dataset for run in runs}) > 1
    documents: dict[tuple[str, str], dict[str, Any]] = {}
    for info, rows in lines:
        for row in rows:
            doc = documents.get((info["dataset"], row["id"]))
            words = row.get("words")
            if doc is None:
                doc = documents[info["dataset"], row["id"]] = {
                    "id": f"{row['id']} ({info['dataset']})" if several else row["id"], "words": words,
                    "label": row["label"], "human": row["highlight"], "rows": [None] * len(lines)}
            elif words is not None and doc["words"] is not None and words != doc["words"]:
                raise ValueError(f"document {row['id']}: the runs given hold different words for it "
                                 f"(different corpora?)")
            elif doc["words"] is None:
                doc["words"] = words
    for index, (info, rows) in enumerate(lines):
        for row in rows:
            documents[info["dataset"], row["id"]]["rows"][index] = {
                "prediction": row["prediction"], "selected": row["selected"],
                **document_scores(row["selected"], row["highlight"])}
    missing = [d["id"] for d in documents.values() if d["words"] is None]
    if missing:
        raise ValueError(f"document {missing[0]} (and {len(missing) - 1} more): no run gives its words")
    summaries = []
    for info, rows in lines:
        lengths = [len(documents[info["dataset"], row["id"]]["words"]) for row in rows]
        summaries.append({**info, **corpus_scores(rows, lengths)})
    return {"lines": summaries, "documents": list(documents.values())}
