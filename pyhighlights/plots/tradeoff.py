"""The sparsity–F1 trade-off across runs and models: one point per model (mean over seeds) with ±1 std bars."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pyhighlights.reporting.reader import ResultSet
from pyhighlights.reporting.table import aggregate


@dataclass
class TradeoffPoint:
    label: str
    sparsity: float
    sparsity_std: float
    f1: float
    f1_std: float
    n: int


def tradeoff_points(sets: list[ResultSet], split: str = "test") -> list[TradeoffPoint]:
    """Rows of the report table (one per model or method and dataset) that have both a sparsity and an F1."""
    points = []
    datasets = {s.dataset for s in sets}
    for row in aggregate(sets, ["sparsity", "highlight_f1"], split):
        sparsity, f1 = row.cell("sparsity"), row.cell("highlight_f1")
        if sparsity.mean is None or f1.mean is None:
            continue
        label = row.label if len(datasets) == 1 else f"{row.label} ({row.dataset})"
        points.append(TradeoffPoint(label, sparsity.mean, sparsity.std, f1.mean, f1.std, min(sparsity.n, f1.n)))
    return points


def plot_tradeoff(sets: list[ResultSet], path: str | Path, split: str = "test") -> Path:
    """Write the trade-off PNG; ``ValueError`` when no run has both metrics."""
    from pyhighlights.plots.draw import new_figure

    points = tradeoff_points(sets, split)
    if not points:
        raise ValueError(f"no run has both {split}/sparsity and {split}/highlight_f1 to plot")
    figure = new_figure(7, 4.5)
    axes = figure.add_subplot()
    markers = "osD^v<>pPX*h"
    for i, point in enumerate(points):
        axes.errorbar(point.sparsity, point.f1, xerr=point.sparsity_std, yerr=point.f1_std, fmt=markers[i % 12],
                      capsize=3, label=f"{point.label} (n={point.n})")
    axes.set(title=f"sparsity vs highlight F1 ({split}; mean ± std over seeds)",
             xlabel="sparsity (share of words selected)", ylabel="highlight F1")
    axes.legend(fontsize="small")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    return path
