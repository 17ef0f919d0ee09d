"""PNG plots of runs: training curves and highlight positions per run, the sparsity–F1 trade-off across runs.

:mod:`series` computes what is drawn (tested on hand-made files); :mod:`draw`
and :mod:`tradeoff` only draw it, with matplotlib's Agg renderer.
"""
from pyhighlights.plots.draw import plot_run, plot_run_safely
from pyhighlights.plots.tradeoff import plot_tradeoff

__all__ = ["plot_run", "plot_run_safely", "plot_tradeoff"]
