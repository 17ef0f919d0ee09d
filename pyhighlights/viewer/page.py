"""Rendering the viewer's payload into one self-contained HTML file (inline CSS and JS, no network)."""
from __future__ import annotations

import html
import json
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any


def _template() -> str:
    return resources.files("pyhighlights.viewer").joinpath("template.html").read_text(encoding="utf-8")


def embedded_json(payload: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<`` can close it (``\\u003c`` is the same JSON string)."""
    return json.dumps(payload, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


def render(payload: dict[str, Any], title: str = "pyhighlights: highlights") -> str:
    """The page's text for a payload from :func:`pyhighlights.viewer.data.assemble`."""
    sources = ", ".join(sorted({line["path"] for line in payload["lines"] if line["kind"] == "model"}))
    subtitle = (f"{len(payload['documents'])} test documents from {sources}; "
                f"written {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
    # Placeholders are replaced in one pass so text from the data can never be taken for one.
    values = {"__TITLE__": html.escape(title), "__SUBTITLE__": html.escape(subtitle),
              "__DATA__": embedded_json(payload)}
    template = _template()
    out, position = [], 0
    while True:
        found = [(template.find(key, position), key) for key in values]
        found = [(index, key) for index, key in found if index >= 0]
        if not found:
            out.append(template[position:])
            return "".join(out)
        index, key = min(found)
        out += [template[position:index], values[key]]
        position = index + len(key)


def write_page(payload: dict[str, Any], path: str | Path, title: str = "pyhighlights: highlights") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(payload, title), encoding="utf-8")
    return path
