"""Named by this package's entry point (pyproject.toml); pyhighlights imports it with its own registrations."""
from pyhighlights.registry import register

from soft_agreement.agreement import TwoSidedJSDConfig, TwoSidedJSDTerm
from soft_agreement.model import SoftAgreement, SoftAgreementConfig
from soft_agreement.soft_predictor import AttentionPredictor, AttentionPredictorConfig

register("soft_predictor", "attention", AttentionPredictorConfig, AttentionPredictor)
register("loss", "two_sided_jsd", TwoSidedJSDConfig, TwoSidedJSDTerm)
register("model", "soft_agreement", SoftAgreementConfig, SoftAgreement)
