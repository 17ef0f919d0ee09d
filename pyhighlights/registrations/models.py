"""Select-then-predict models."""
from pyhighlights.models import rnp
from pyhighlights.registry import register

register("model", "rnp", rnp.RNPModelConfig, rnp.RNP)

from pyhighlights.models import grat  # noqa: E402

register("model", "grat", grat.GRATConfig, grat.GRAT)

from pyhighlights.models import random_baseline  # noqa: E402

register("model", "random", random_baseline.RandomBaselineConfig, random_baseline.RandomBaseline)
