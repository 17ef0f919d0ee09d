"""Post-hoc attribution methods (``scripts/explain.py method=<name>``)."""
from pyhighlights.explain import methods
from pyhighlights.registry import register

register("method", "integrated_gradients", methods.IntegratedGradientsConfig, methods.IntegratedGradientsMethod)
register("method", "saliency", methods.GradientConfig, methods.SaliencyMethod)
register("method", "input_x_gradient", methods.GradientConfig, methods.InputXGradientMethod)
register("method", "feature_ablation", methods.PerturbationConfig, methods.FeatureAblationMethod)
register("method", "occlusion", methods.OcclusionConfig, methods.OcclusionMethod)
register("method", "shapley_value_sampling", methods.ShapleyConfig, methods.ShapleyValueSamplingMethod)
register("method", "lime", methods.LimeConfig, methods.LimeMethod)
