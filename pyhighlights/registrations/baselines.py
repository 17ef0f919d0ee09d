"""The baselines rationalization papers compare against: A2R (and the loss terms it brings)."""
from pyhighlights.components import agreement
from pyhighlights.models.baselines import a2r
from pyhighlights.registry import register

register("loss", "symmetric_kl", agreement.TwoSidedConfig, agreement.SymmetricKLTerm)
register("loss", "two_sided_js", agreement.TwoSidedConfig, agreement.TwoSidedJSDTerm)

register("model", "a2r", a2r.A2RConfig, a2r.A2R)

from pyhighlights.components import policy  # noqa: E402
from pyhighlights.models.baselines import three_player  # noqa: E402

register("selector", "policy", policy.PolicySelectorConfig, policy.PolicySelector)
register("loss", "policy_gradient", policy.PolicyGradientConfig, policy.PolicyGradientTerm)
register("model", "three_player", three_player.ThreePlayerConfig, three_player.ThreePlayer)

from pyhighlights.components import complement_gap  # noqa: E402

register("loss", "complement_gap", complement_gap.ComplementGapConfig, complement_gap.ComplementGapTerm)
register("model", "three_player_pathwise", three_player.PathwiseThreePlayerConfig, three_player.ThreePlayer)

from pyhighlights.components import introspection  # noqa: E402

register("selector", "introspective", introspection.IntrospectiveSelectorConfig, introspection.IntrospectiveSelector)
register("model", "three_player_introspective", three_player.IntrospectiveThreePlayerConfig, three_player.ThreePlayer)

from pyhighlights.models.baselines import nir  # noqa: E402

register("loss", "mixture_kl", agreement.TwoSidedConfig, agreement.MixtureKLTerm)
register("model", "nir", nir.NIRConfig, nir.NIR)

from pyhighlights.models.baselines import invrat  # noqa: E402

register("model", "invrat", invrat.InvRatConfig, invrat.InvRat)

from pyhighlights.components import distribution_matching  # noqa: E402
from pyhighlights.models.baselines import dmr  # noqa: E402

register("loss", "cmd", distribution_matching.CMDConfig, distribution_matching.CMDTerm)
register("loss", "soft_cross_entropy", distribution_matching.SoftCrossEntropyConfig,
         distribution_matching.SoftCrossEntropyTerm)
register("model", "dmr", dmr.DMRConfig, dmr.DMR)
from pyhighlights.components import classwise  # noqa: E402
from pyhighlights.models.baselines import car  # noqa: E402

register("loss", "target_probability", classwise.TargetProbabilityConfig, classwise.TargetProbabilityTerm)
register("model", "car", car.CARConfig, car.CAR)
from pyhighlights.models.baselines import inter_rat  # noqa: E402

register("model", "inter_rat", inter_rat.InterRATConfig, inter_rat.InterRAT)
