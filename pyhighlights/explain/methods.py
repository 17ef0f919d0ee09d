"""Attribution methods, each giving one score per word of a trained model's prediction.

Computed by captum; the gradient methods can also be computed by tdhook
(``backend=tdhook``, see :mod:`tdhook_backend`), on the same embeddings.

Every method attributes the model's output for the class it predicts on the
full input (probability by default, ``output=logit`` for the logit) and
returns scores [B, W] over words, zero on padding. Two families:

Gradient methods, on the input embeddings of the backbone the prediction
reads (see :mod:`forward`); a token's score is the **sum over the embedding
dimensions** of its attribution (for Saliency, of the absolute gradient, i.e.
the gradient's L1 norm), and a word's score is the sum over its tokens:

- ``integrated_gradients``: Sundararajan, Taly and Yan, 2017, "Axiomatic
  Attribution for Deep Networks", ICML. Baseline: zero embeddings. Its
  convergence delta, sum of attributions - (f(x) - f(baseline)), is returned.
  On a one-layer GRU backbone the steps run through the linear input
  projection (:mod:`recurrent_ig`, same numbers; ``recurrent_shortcut=false``
  for captum throughout).
- ``saliency``: Simonyan, Vedaldi and Zisserman, 2014, gradient magnitude.
- ``input_x_gradient``: Shrikumar et al., 2016, embeddings times gradient.

Perturbation methods, on word presence (a word is removed as the model
removes it for faithfulness), one feature per word:

- ``feature_ablation``: the output drop when the word alone is removed.
- ``occlusion``: Zeiler and Fergus, 2014; windows of ``window`` words slid
  with ``stride``, a word's score averaging the windows that cover it.
- ``shapley_value_sampling``: Castro, Gómez and Tejada, 2009, "Polynomial
  calculation of the Shapley value based on sampling", Computers & OR;
  ``n_samples`` random word orders.
- ``lime``: Ribeiro, Singh and Guestrin, 2016, "Why Should I Trust You?",
  KDD; a weighted linear surrogate (ridge by default, as LIME's reference
  code) fitted on ``n_samples`` random subsets of each document's words.

The table :data:`METHODS` maps a name to its typed configuration and class;
:func:`make_method` validates parameters (e.g. ``method.n_steps=50``).
"""
from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import logging

import torch

from pyhighlights.components.words import tokens_to_words_sum
from pyhighlights.explain.forward import CaptumForward
from pyhighlights.explain.tdhook_backend import check_backend, tdhook_attributions
from pyhighlights import registry
from pyhighlights.registry import Configuration, Param, Real, kind

log = logging.getLogger("pyhighlights.explain")

_OUTPUT = Param("probability", pattern="^(probability|logit)$", description="attributed output of the predicted class")


@dataclass
class WordAttribution:
    scores: torch.Tensor  # [B, W], zero on padding
    delta: torch.Tensor | None = None  # [B] convergence delta (IG)


@kind("method", runtime=("forward",))
class Attribution:
    """A captum method wrapped to give per-word scores; ``__call__(keep, fields, target)``."""

    name: ClassVar[str]
    has_delta: ClassVar[bool] = False

    def __init__(self, forward: CaptumForward, backend: str = "captum", **params: Any):
        self.forward = forward
        self.backend = backend
        self.params = params

    @abstractmethod
    def __call__(self, keep: torch.Tensor, fields: tuple[torch.Tensor, ...], target: torch.Tensor, *,
                 with_delta: bool = True) -> WordAttribution:
        """Per-word scores [B, W] of class ``target`` for the documents ``fields`` with words ``keep``;
        ``with_delta=False``: the scores alone (IG then skips the forward passes its delta needs)."""


# --- gradient methods on input embeddings -------------------------------------------------
class GradientConfig(Configuration):
    output: str = _OUTPUT


class GradientAttribution(Attribution):
    def token_attributions(self, embeddings, target, arguments, with_delta: bool = True
                           ) -> tuple[torch.Tensor, torch.Tensor | None]:
        raise NotImplementedError

    def token_scores(self, embeddings, target, arguments, with_delta: bool = True
                     ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Token scores [B, T], the attributions summed over the embedding dimensions, and the delta."""
        if self.backend == "tdhook":
            attributions, delta = tdhook_attributions(self.name, self.forward, embeddings, target, arguments,
                                                      self.params)
        else:
            attributions, delta = self.token_attributions(embeddings, target, arguments, with_delta)
        return attributions.sum(dim=-1), delta

    def __call__(self, keep, fields, target, *, with_delta=True):
        input_ids, _, word_ids, word_mask = fields
        embeddings = self.forward.input_embeddings(input_ids).requires_grad_()
        per_token, delta = self.token_scores(embeddings, target, (keep, *fields), with_delta)
        words = tokens_to_words_sum(per_token, word_ids, word_mask.shape[1])
        delta = delta.detach() if delta is not None else None
        return WordAttribution((words * word_mask.to(words.dtype)).detach(), delta)


class IntegratedGradientsConfig(GradientConfig):
    n_steps: int = Param(20, ge=1, description="integration steps")
    integration: str = Param("gausslegendre",
                             pattern="^(gausslegendre|riemann_left|riemann_right|riemann_middle|riemann_trapezoid)$",
                             description="captum's approximation method")
    internal_batch_size: int | None = Param(None, ge=1,
                                            description="examples per forward pass; null = all steps at once "
                                                        "(the GRU shortcut: about 160 rows a pass)")
    recurrent_shortcut: bool = Param(True, description="a one-layer GRU backbone: the steps through the linear "
                                                       "input projection (same numbers, see recurrent_ig); "
                                                       "false = captum throughout")


class IntegratedGradientsMethod(GradientAttribution):
    name = "integrated_gradients"
    has_delta = True

    def token_scores(self, embeddings, target, arguments, with_delta=True):
        if self.backend == "captum" and self.params["recurrent_shortcut"]:
            shortcut = self._shortcut()
            if shortcut is not None:
                keep, *fields = arguments
                scored = shortcut.attribute(embeddings, target, keep, tuple(fields), with_delta=with_delta)
                if scored is not None:
                    return scored
                if not self._warned:
                    log.warning("integrated_gradients: the recurrent shortcut disagrees with the backbone's own "
                                "forward; captum computes these attributions instead")
                    self._warned = True
        return super().token_scores(embeddings, target, arguments, with_delta)

    _warned = False

    def _shortcut(self):
        if not hasattr(self, "_recurrent"):
            from pyhighlights.explain.recurrent_ig import RecurrentIntegratedGradients, supported

            self._recurrent = (RecurrentIntegratedGradients(self.forward, self.params["n_steps"],
                                                            self.params["integration"],
                                                            self.params["internal_batch_size"])
                               if supported(self.forward.model) else None)
        return self._recurrent

    def token_attributions(self, embeddings, target, arguments, with_delta=True):
        from captum.attr import IntegratedGradients

        method = IntegratedGradients(self.forward.embeddings)
        result = method.attribute(embeddings, baselines=torch.zeros_like(embeddings), target=target,
                                  additional_forward_args=arguments, n_steps=self.params["n_steps"],
                                  method=self.params["integration"],
                                  internal_batch_size=self.params["internal_batch_size"],
                                  return_convergence_delta=with_delta)
        return result if with_delta else (result, None)


class SaliencyMethod(GradientAttribution):
    name = "saliency"

    def token_attributions(self, embeddings, target, arguments, with_delta=True):
        from captum.attr import Saliency

        return Saliency(self.forward.embeddings).attribute(embeddings, target=target, abs=True,
                                                           additional_forward_args=arguments), None


class InputXGradientMethod(GradientAttribution):
    name = "input_x_gradient"

    def token_attributions(self, embeddings, target, arguments, with_delta=True):
        from captum.attr import InputXGradient

        return InputXGradient(self.forward.embeddings).attribute(embeddings, target=target,
                                                                 additional_forward_args=arguments), None


# --- perturbation methods on word presence -------------------------------------------------
class PerturbationConfig(Configuration):
    output: str = _OUTPUT
    perturbations_per_eval: int = Param(4, ge=1, description="perturbed copies per forward pass")


class PerturbationAttribution(Attribution):
    def word_attributions(self, keep, fields, target) -> torch.Tensor:
        raise NotImplementedError

    def __call__(self, keep, fields, target, *, with_delta=True):
        scores = self.word_attributions(keep, fields, target)
        return WordAttribution((scores * fields[3].to(scores.dtype)).detach())


class FeatureAblationMethod(PerturbationAttribution):
    name = "feature_ablation"

    def word_attributions(self, keep, fields, target):
        from captum.attr import FeatureAblation

        return FeatureAblation(self.forward.presence).attribute(
            keep, baselines=0.0, target=target, additional_forward_args=fields,
            perturbations_per_eval=self.params["perturbations_per_eval"])


class OcclusionConfig(PerturbationConfig):
    window: int = Param(3, ge=1, description="words occluded together")
    stride: int = Param(1, ge=1, description="words between two windows")


class OcclusionMethod(PerturbationAttribution):
    name = "occlusion"

    def word_attributions(self, keep, fields, target):
        from captum.attr import Occlusion

        window = min(self.params["window"], keep.shape[1])
        return Occlusion(self.forward.presence).attribute(
            keep, sliding_window_shapes=(window,), strides=(self.params["stride"],), baselines=0.0,
            target=target, additional_forward_args=fields,
            perturbations_per_eval=self.params["perturbations_per_eval"])


class ShapleyConfig(PerturbationConfig):
    n_samples: int = Param(10, ge=1, description="random word orders")


class ShapleyValueSamplingMethod(PerturbationAttribution):
    name = "shapley_value_sampling"

    def word_attributions(self, keep, fields, target):
        from captum.attr import ShapleyValueSampling

        return ShapleyValueSampling(self.forward.presence).attribute(
            keep, baselines=0.0, target=target, additional_forward_args=fields, n_samples=self.params["n_samples"],
            perturbations_per_eval=self.params["perturbations_per_eval"])


class LimeConfig(PerturbationConfig):
    n_samples: int = Param(100, ge=2, description="perturbed samples per document")
    surrogate: str = Param("ridge", pattern="^(ridge|lasso|linear)$", description="interpretable model")
    alpha: float = Real(1.0, ge=0.0, description="regularisation of the ridge / lasso surrogate")
    kernel_width: float = Real(1.0, gt=0.0, description="width of the exponential cosine-distance kernel")
    perturbations_per_eval: int = Param(16, ge=1)


class LimeMethod(PerturbationAttribution):
    """One surrogate per document, over that document's real words only."""

    name = "lime"

    def _lime(self):
        from captum._utils.models.linear_model import SkLearnLasso, SkLearnLinearRegression, SkLearnRidge
        from captum.attr import Lime
        from captum.attr._core.lime import get_exp_kernel_similarity_function

        surrogate = {"ridge": lambda: SkLearnRidge(alpha=self.params["alpha"]),
                     "lasso": lambda: SkLearnLasso(alpha=self.params["alpha"]),
                     "linear": SkLearnLinearRegression}[self.params["surrogate"]]()
        similarity = get_exp_kernel_similarity_function("cosine", kernel_width=self.params["kernel_width"])
        return Lime(self.forward.presence, interpretable_model=surrogate, similarity_func=similarity)

    def word_attributions(self, keep, fields, target):
        lime = self._lime()
        input_ids, attention_mask, word_ids, word_mask = fields
        scores = torch.zeros_like(keep)
        for row in range(keep.shape[0]):
            words, tokens = int(word_mask[row].sum()), int(attention_mask[row].sum())
            if words == 0:
                continue
            one = (input_ids[row:row + 1, :tokens], attention_mask[row:row + 1, :tokens],
                   word_ids[row:row + 1, :tokens], word_mask[row:row + 1, :words])
            scores[row, :words] = lime.attribute(
                keep[row:row + 1, :words], baselines=0.0, target=target[row:row + 1], additional_forward_args=one,
                n_samples=self.params["n_samples"], perturbations_per_eval=self.params["perturbations_per_eval"])[0]
        return scores


class RegisteredMethods(Mapping):
    """name -> (configuration, class): the registry's ``method`` entries (pyhighlights/registrations/explain.py)."""

    def __getitem__(self, name: str) -> tuple[type[Configuration], type[Attribution]]:
        item = registry.entry("method", name)
        return item.configuration, item.component

    def __iter__(self) -> Iterator[str]:
        return iter(registry.available("method"))

    def __len__(self) -> int:
        return len(registry.available("method"))


METHODS = RegisteredMethods()


def method_parameters(name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The validated parameters of method ``name`` (defaults filled in); errors name the field."""
    if name not in METHODS:
        raise ValueError(f"method={name}: unknown; methods: {', '.join(METHODS)}")
    from pyhighlights.config.resolve import validate

    spec = validate("method", {**dict(params or {}), "name": name}, "method")
    spec.pop("name")
    return spec


def make_method(name: str, model, params: dict[str, Any] | None = None, backend: str = "captum") -> Attribution:
    """Method ``name`` explaining ``model`` with validated ``params``, computed by ``backend``
    (captum, or tdhook for the gradient methods)."""
    values = method_parameters(name, params)
    check_backend(backend, name)
    forward = CaptumForward(model, output=values.pop("output"))
    return METHODS[name][1](forward, backend=backend, **values)
