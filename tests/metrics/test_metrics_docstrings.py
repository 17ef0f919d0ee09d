"""The examples in the metric docstrings run and print what they claim."""
from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["highlight", "highlight_macro", "sparsity", "iou_f1", "auprc", "task", "faithfulness", "aopc", "rationale"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"pyhighlights.metrics.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
