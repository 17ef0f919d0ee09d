"""The baselines rationalization papers compare against: A2R (and the loss terms it brings)."""
from pyhighlights.components import agreement
from pyhighlights.models import a2r
from pyhighlights.registry import register

register("loss", "symmetric_kl", agreement.TwoSidedConfig, agreement.SymmetricKLTerm)
register("loss", "two_sided_js", agreement.TwoSidedConfig, agreement.TwoSidedJSDTerm)

register("model", "a2r", a2r.A2RConfig, a2r.A2R)

from pyhighlights.models import invrat  # noqa: E402

register("model", "invrat", invrat.InvRatConfig, invrat.InvRat)
