"""The viewer's data: one JSON-able payload from the outputs of one or more runs.

Every document appears once with its words, true label and human
highlight, and one *line* per source of a highlight: each run's model, then
each post-hoc method explained on that run (its top-k selection). Labels
carry their class names when the run's checkpoint describes them; a
document is shown by its position in the split and a readable form of its
id (``annotations.json:41`` reads "annotations.json, line 41").
"""
from __future__ import annotations

import re
from typing import Any

from pyhighlights.viewer.runs import RunOutputs
from pyhighlights.viewer.scores import corpus_scores, document_scores


_FILE_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


def readable_id(doc_id: str) -> str:
    """``file:line`` ids (the Lei Beer reader's) as "file, line N"; any other id as it is."""
    match = _FILE_LINE.match(doc_id)
    return f"{match['file']}, line {match['line']}" if match else doc_id


def label_name(label: int, names: list[str] | None) -> str:
    """The class name of ``label`` (its number when the names are unknown or do not cover it)."""
    return names[label] if names and 0 <= label < len(names) else str(label)


def _lines(runs: list[RunOutputs]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    lines = []
    for index, run in enumerate(runs):
        lines.append(({"name": run.name, "kind": "model", "run": index, "model": run.model,
                       "dataset": run.dataset, "seed": run.seed, "path": str(run.path),
                       "label_names": run.label_names}, run.predictions))
        for method, rows in run.explain.items():
            lines.append(({"name": f"{method} top-k · {run.name}", "kind": "explain", "run": index,
                           "model": run.model, "dataset": run.dataset, "seed": run.seed,
                           "path": str(run.path / "explain" / method), "label_names": run.label_names}, rows))
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
                title = readable_id(row["id"])
                doc = documents[info["dataset"], row["id"]] = {
                    "id": f"{row['id']} ({info['dataset']})" if several else row["id"],
                    "number": len(documents) + 1, "title": f"{title} ({info['dataset']})" if several else title,
                    "words": words, "label": row["label"],
                    "label_name": label_name(row["label"], info["label_names"]),
                    "human": row["highlight"], "rows": [None] * len(lines)}
            elif words is not None and doc["words"] is not None and words != doc["words"]:
                raise ValueError(f"document {row['id']}: the runs given hold different words for it "
                                 f"(different corpora?)")
            elif doc["words"] is None:
                doc["words"] = words
    for index, (info, rows) in enumerate(lines):
        for row in rows:
            documents[info["dataset"], row["id"]]["rows"][index] = {
                "prediction": row["prediction"], "prediction_name": label_name(row["prediction"], info["label_names"]),
                "selected": row["selected"],
                **document_scores(row["selected"], row["highlight"])}
    missing = [d["id"] for d in documents.values() if d["words"] is None]
    if missing:
        raise ValueError(f"document {missing[0]} (and {len(missing) - 1} more): no run gives its words")
    summaries = []
    for info, rows in lines:
        lengths = [len(documents[info["dataset"], row["id"]]["words"]) for row in rows]
        summaries.append({**info, **corpus_scores(rows, lengths)})
    return {"lines": summaries, "documents": list(documents.values())}
