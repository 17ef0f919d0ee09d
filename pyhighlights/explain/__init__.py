"""Post-hoc attribution baselines through captum, scored like the rationalisers' highlights.

- :mod:`forward`: the model as captum sees it (word-presence inputs, or input embeddings);
- :mod:`methods`: the attribution methods (Integrated Gradients, Saliency, Input x Gradient,
  Feature Ablation, Occlusion, Shapley Value Sampling, LIME), each per word, in one table;
- :mod:`selection`: top-k words at a rate, and the rate of a rationaliser's run;
- :mod:`robustness`: captum's infidelity and sensitivity on word scores;
- :mod:`explain`: explaining a trained run's split and writing scores and metrics.
"""
from pyhighlights.explain.methods import METHODS, make_method

__all__ = ["METHODS", "make_method"]
