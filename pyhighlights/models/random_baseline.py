"""The random-selection sanity baseline (in the spirit of EVAL-X, Jethani et al., AISTATS 2021).

RNP's parts with a selector that keeps each word independently with
probability ``model.selector.rate``, whatever the text says: the predictor
learns to classify from random subsets. A rationaliser whose highlights are
no more plausible than this one's has learned nothing about where the
evidence is.
"""
from __future__ import annotations

from cinnamon.registry import RegistrationKey

from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, registration_key as key


class RandomBaselineConfig(RNPConfig):
    selector: RegistrationKey = Param(key("selector", "random"))
    losses: dict[str, RegistrationKey] = Param({"task": key("loss", "cross_entropy")})


class RandomBaseline(RNP):
    pass
