"""A self-contained HTML page of a run's highlights: :mod:`runs` reads, :mod:`data` assembles, :mod:`page` renders."""
from pyhighlights.viewer.data import assemble
from pyhighlights.viewer.page import render, write_page
from pyhighlights.viewer.runs import RunOutputs, find_runs, load_run

__all__ = ["RunOutputs", "assemble", "find_runs", "load_run", "render", "write_page"]
