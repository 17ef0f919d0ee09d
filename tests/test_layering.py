"""Import layering: the layers below the models never import the layers that use them.

Every module of ``pyhighlights/`` is parsed (not imported) and every import
statement counts, at any depth: inside functions, under ``if TYPE_CHECKING``,
relative or absolute, ``from pyhighlights import cli`` included. From bottom to
top:

- bottom modules (``atomic``, ``faults``, ``plugins``, ``registry``,
  ``run_files``): import nothing of the package but each other;
- the parts' layers (``config``, ``data``, ``components``, ``metrics``,
  ``plots``, ``reporting``): never import the models, their registrations or
  the layers that train, evaluate, explain, view or parse command lines;
- and no import cycle runs through a bottom module or a parts' layer.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pyhighlights"

BOTTOM = {"atomic", "faults", "kinds", "plugins", "registry", "run_files"}
LOWER = {"config", "data", "components", "metrics", "plots", "reporting"}
UPPER = {"cli", "training", "evaluation", "explain", "viewer", "models", "registrations", "inference"}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[str, int]]:
    """(imported module, line) of every import in ``tree``; ``from a import b`` yields ``a.b`` (b may be a
    module), relative imports are resolved against ``module``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                anchor = package[:len(package) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            out += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return out


def unit(module: str, root_name: str) -> str | None:
    """The top-level subpackage or module of the package that ``module`` belongs to (None: outside it)."""
    parts = module.split(".")
    return parts[1] if parts[0] == root_name and len(parts) > 1 else None


def import_graph(root: Path) -> dict[str, list[tuple[str, str]]]:
    """unit -> [(imported unit, "file:line")] over every ``.py`` file under ``root``."""
    graph: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        source = unit(module, root.name) or path.stem
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for target, line in imported(tree, module, path.name == "__init__.py"):
            target_unit = unit(target, root.name)
            if target_unit is not None and target_unit != source:
                graph[source].append((target_unit, f"{path.relative_to(root.parent)}:{line}"))
    return graph


def violations(graph: dict[str, list[tuple[str, str]]]) -> list[str]:
    found: list[str] = []
    for source, targets in sorted(graph.items()):
        for target, where in targets:
            if source in BOTTOM and target not in BOTTOM:
                found.append(f"{where}: bottom module {source} imports {target}")
            elif source in LOWER and target in UPPER:
                found.append(f"{where}: {source} imports {target}, a layer above it")
    return list(dict.fromkeys(found))  # ``from a import b, c``: one line, one problem


def cycles(graph: dict[str, list[tuple[str, str]]]) -> list[list[str]]:
    """Import cycles between units (strongly connected components of more than one unit), each sorted."""
    edges = {source: {target for target, _ in targets} for source, targets in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in edges.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def layering_problems(root: Path) -> list[str]:
    graph = import_graph(root)
    problems = violations(graph)
    for cycle in cycles(graph):
        if set(cycle) & (BOTTOM | LOWER):
            first = {}  # one place per edge is enough to find it
            for source in cycle:
                for target, at in graph[source]:
                    if target in cycle:
                        first.setdefault((source, target), at)
            where = [f"{source} -> {target} ({at})" for (source, target), at in first.items()]
            problems.append(f"import cycle between {', '.join(cycle)}: " + "; ".join(where))
    return problems


def test_no_lower_layer_imports_a_layer_above_it_and_no_cycle_runs_through_one():
    problems = layering_problems(PACKAGE)
    assert not problems, "\n".join(problems)


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pyhighlights" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pyhighlights"


def test_the_check_finds_local_relative_and_package_imports_with_their_line(tmp_path):
    package = _write(tmp_path, {
        "__init__.py": "",
        "cli/__init__.py": "",
        "cli/common.py": "from pyhighlights.config.files import CONFIG_DIR\n",
        "config/__init__.py": "",
        "config/files.py": "CONFIG_DIR = None\n",
        "config/compose.py": "import os\n\n\ndef f():\n    from pyhighlights.cli.common import CONFIG_DIR\n",
        "config/schema.py": "from ..training import rundir\n",
        "plots/__init__.py": "from pyhighlights import viewer\n",
        "reporting/reader.py": "import pyhighlights.run_files\n",  # allowed: a bottom module
        "run_files.py": "import json\nfrom pyhighlights.config import files\n",
        "training/rundir.py": "from pyhighlights.run_files import STATUS_FILE\n",  # allowed: downwards
    })
    problems = layering_problems(package)
    assert "pyhighlights/config/compose.py:5: config imports cli, a layer above it" in problems
    assert "pyhighlights/config/schema.py:1: config imports training, a layer above it" in problems
    assert "pyhighlights/plots/__init__.py:1: plots imports viewer, a layer above it" in problems
    assert "pyhighlights/run_files.py:2: bottom module run_files imports config" in problems
    cycle = [p for p in problems if p.startswith("import cycle")]
    # config -> training -> run_files -> config closes a second loop through config: one cycle of four units
    assert cycle == ["import cycle between cli, config, run_files, training: "
                     "cli -> config (pyhighlights/cli/common.py:1); config -> cli (pyhighlights/config/compose.py:5); "
                     "config -> training (pyhighlights/config/schema.py:1); "
                     "run_files -> config (pyhighlights/run_files.py:2); "
                     "training -> run_files (pyhighlights/training/rundir.py:1)"]
    assert len(problems) == 5, problems


def test_the_check_passes_a_package_that_only_imports_downwards(tmp_path):
    package = _write(tmp_path, {
        "__init__.py": "",
        "atomic.py": "import os\n",
        "run_files.py": "from . import atomic\n",
        "config/__init__.py": "from .files import CONFIG_DIR\n",
        "config/files.py": "CONFIG_DIR = None\n",
        "reporting/reader.py": "from pyhighlights.run_files import read_state\n",
        "viewer/runs.py": "from pyhighlights.reporting.reader import x\nfrom ..run_files import read_jsonl\n",
        "cli/train.py": "from pyhighlights.config.files import CONFIG_DIR\nfrom pyhighlights.viewer import runs\n",
    })
    assert layering_problems(package) == []
