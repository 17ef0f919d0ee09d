"""Training-curve and highlight-position PNGs of one run (one seed's folder), written into ``<folder>/plots/``."""
from __future__ import annotations

import logging
from pathlib import Path

from pyhighlights.faults import fault_point
from pyhighlights.plots.series import highlight_positions, read_metrics_csv, training_series
from pyhighlights.run_files import METRICS_CSV, PREDICTIONS_FILE, read_jsonl

log = logging.getLogger("pyhighlights")

PLOTS_DIR = "plots"
_TITLES = {"selection": ("selection rate per epoch", "share of words selected"),
           "validation": ("validation highlight F1 and accuracy per epoch", "score"),
           "annealing": ("G-RAT annealing factor per epoch", "factor")}
_FILES = {"losses": "losses.png", "selection": "selection_rate.png", "validation": "validation.png",
          "annealing": "annealing.png"}


def new_figure(width: float = 6.4, height: float = 4.0):
    """A figure rendered by Agg, without pyplot's global state (safe in any process, no display needed)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _draw_series(axes, series: dict, colours: dict[str, str] | None = None) -> None:
    for label, (epochs, values) in series.items():
        # Train solid, validation dashed; one colour per quantity when given. metrics.csv counts epochs from 0
        # (Lightning's numbering); the axis from 1, as the log and the checkpoint names do.
        axes.plot([e + 1 for e in epochs], values, marker="o", markersize=3, label=label, linestyle="--" if label.startswith("val/")
                  else "-", color=(colours or {}).get(label.split("/", 1)[1]))
    axes.set_xlabel("epoch")
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.legend(fontsize="small")


def _losses_figure(series: dict):
    """Totals and terms on separate axes: a total can dwarf its terms."""
    figure = new_figure(11, 4)
    totals, terms = figure.subplots(1, 2)
    _draw_series(totals, {k: v for k, v in series.items() if k in ("train/loss", "val/loss")})
    names = sorted({k.split("/", 1)[1] for k in series if k not in ("train/loss", "val/loss")})
    colours = {name: f"C{i % 10}" for i, name in enumerate(names)}
    _draw_series(terms, {k: v for k, v in series.items() if k not in ("train/loss", "val/loss")}, colours)
    totals.set(title="total loss per epoch", ylabel="loss")
    terms.set(title="loss terms per epoch (unweighted)", ylabel="loss term")
    return figure


def _curves_figure(name: str, series: dict, target: float | None):
    if name == "losses":
        return _losses_figure(series)
    figure = new_figure()
    axes = figure.add_subplot()
    if name == "selection" and target is not None:
        axes.axhline(target, color="black", linestyle=":", label=f"target {target:g}")
    _draw_series(axes, series)
    if name == "validation" and "val/highlight_f1" not in series:
        axes.text(0.5, 0.05, "no highlight F1: the validation split has no human highlights",
                  transform=axes.transAxes, ha="center", fontsize="small", color="dimgray")
    title, ylabel = _TITLES[name]
    axes.set(title=title, ylabel=ylabel)
    return figure


def _positions_figure(shares: dict[str, list[float]]):
    figure = new_figure()
    axes = figure.add_subplot()
    bins = len(shares["human"])
    centres = [(b + 0.5) / bins for b in range(bins)]
    width = 0.4 / bins
    axes.bar([c - width / 2 for c in centres], shares["human"], width, label="human", hatch="//", alpha=0.8)
    axes.bar([c + width / 2 for c in centres], shares["model"], width, label="model", alpha=0.8)
    axes.set(title="where highlighted words lie in test documents", xlabel="relative position in the document",
             ylabel="share of highlighted words", xlim=(0, 1))
    axes.legend()
    return figure


def plot_run(folder: str | Path, sparsity_target: float | None = None) -> list[Path]:
    """Write the PNGs of the run folder holding ``metrics.csv`` (and ``predictions.jsonl``); their paths."""
    folder = Path(folder)
    out = folder / PLOTS_DIR
    out.mkdir(exist_ok=True)
    written = []
    for name, series in training_series(read_metrics_csv(folder / METRICS_CSV)).items():
        path = out / _FILES[name]
        _curves_figure(name, series, sparsity_target).savefig(path, dpi=100)
        written.append(path)
        fault_point("plots")
    predictions = folder / PREDICTIONS_FILE
    if predictions.is_file():
        path = out / "highlight_positions.png"
        _positions_figure(highlight_positions(read_jsonl(predictions))).savefig(path, dpi=100)
        written.append(path)
    return written


def plot_run_safely(folder: str | Path, sparsity_target: float | None = None) -> list[Path]:
    """:func:`plot_run`, where a failure is a logged warning: plots never cost a finished run its results."""
    try:
        return plot_run(folder, sparsity_target)
    except Exception as error:  # noqa: BLE001 - whatever went wrong, the results are already written
        log.warning("training plots of %s not written: %s: %s", folder, type(error).__name__, error)
        return []
