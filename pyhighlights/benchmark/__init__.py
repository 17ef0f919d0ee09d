"""Benchmark suites (``pyhighlights/configs/suite/``): :mod:`grid` turns a suite into cells, :mod:`runner` trains
them into run directories keyed by their configuration, :mod:`table` and :mod:`report` write the papers' table."""
