"""Results tables over any set of run directories: :mod:`reader` collects, :mod:`table` aggregates and formats."""
from pyhighlights.reporting.reader import ResultSet, read_results
from pyhighlights.reporting.table import Row, aggregate, format_table

__all__ = ["ResultSet", "Row", "aggregate", "format_table", "read_results"]
