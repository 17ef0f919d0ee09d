"""Training mechanics shared by the SPP family (FR, DR, MGR, MCD, DAR, MRD, ...).

Each model file states *what* its objective is; the *how* lives here once:

- **parts with their own learning rates** (:func:`part_optimizer`,
  :func:`scale_part_lr`): one Adam whose parameter groups are tagged with
  the part they belong to (``selector``, ``predictor``, ``generator0``...)
  and their base rate, so a model can give a part a fixed multiple of the
  learning rate (MGR) or rescale it every step (DR). Encoder parameters keep
  the ``encoder_lr`` of :meth:`SPPModel.param_groups` within each part.
- **batch statistics that are exact under DDP** (:func:`global_sums`): a
  quantity that steers an optimiser (DR's selection rate) must be the same on
  every process, or the replicas drift apart; it is summed over processes in
  one all-reduce call, so it equals the single-process value on the global
  batch.
- **frozen modules** (:func:`frozen`): parameters stop requiring gradients
  for the duration of a phase, so the phase's backward neither computes nor
  leaves gradients for them and its optimiser step cannot move them.
- **multi-phase manual steps** (:class:`PhasedSteps`, :class:`TwoPhaseModel`):
  a phase is (optimiser, loss terms, modules it trains); each phase step is
  :meth:`SPPModel.manual_step`, the DDP-safe partial step (backward with
  the strategy's sync blocked, flattened gradient averaging).
- **an auxiliary model pre-trained on the full text** (:class:`AuxiliaryPretraining`):
  trained alone for the first epochs, its best validation state (accuracy or
  F1 on the full text, summed over processes) is kept, restored when
  pre-training ends, and frozen (no gradients) for the rest of the run and in
  checkpoints.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

import torch
import torch.distributed as dist
from torch import nn

from pyhighlights.components.losses import LossSet
from pyhighlights.data.batch import Batch
from pyhighlights.models.liu_family import LiuFamilyConfig
from pyhighlights.models.rnp import RNP
from pyhighlights.registry import Param

log = logging.getLogger("pyhighlights")


# --- parts with their own learning rates -------------------------------------------------
def part_optimizer(model, parts: Mapping[str, Sequence[nn.Module]], lrs: Mapping[str, float]) -> torch.optim.Adam:
    """One Adam over ``parts``; each group is tagged ``part`` and ``base_lr`` (``lrs[part]``).

    Within a part, encoder parameters get ``encoder_lr`` scaled like the part's
    rate (see :meth:`SPPModel.param_groups`). A parameter may belong to one
    part only: a module shared between parts would be stepped twice per step.
    """
    groups: list[dict[str, Any]] = []
    owner: dict[int, str] = {}
    for part, modules in parts.items():
        for group in model.param_groups(modules, lrs[part]):
            for p in group["params"]:
                if id(p) in owner:
                    raise ValueError(f"a parameter belongs to parts {owner[id(p)]!r} and {part!r}; "
                                     f"each parameter must be in exactly one part")
                owner[id(p)] = part
            groups.append({**group, "name": f"{part}/{group['name']}", "part": part, "base_lr": group["lr"]})
    return torch.optim.Adam(groups, weight_decay=model.weight_decay)


def scale_part_lr(optimizer, part: str, factor: float) -> None:
    """Set every group of ``part`` to ``base_lr * factor``."""
    found = False
    for group in optimizer.param_groups:
        if group.get("part") == part:
            group["lr"] = group["base_lr"] * float(factor)
            found = True
    if not found:
        raise KeyError(f"the optimiser has no part {part!r}")


def part_learning_rates(optimizer) -> dict[str, float]:
    """Group name (``part/head``, ``part/encoder``) -> current learning rate."""
    return {group["name"]: group["lr"] for group in optimizer.param_groups}


# --- statistics that are exact under DDP -------------------------------------------------
def global_sums(*values: torch.Tensor) -> list[torch.Tensor]:
    """Each scalar summed over all processes, in one all-reduce call (identity on one process)."""
    stacked = torch.stack([v.detach().reshape(()).to(torch.float64) for v in values])
    if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
        backend_device = values[0].device
        stacked = stacked.to(backend_device)
        dist.all_reduce(stacked, op=dist.ReduceOp.SUM)
    return list(stacked.unbind())


def global_selection_rate(mask: torch.Tensor, word_mask: torch.Tensor, count_padding: bool = False) -> float:
    """Selected real words / real words over the global batch (all processes).

    ``count_padding``: ``mask`` is the raw sample and its selected padding counts too (the reference's
    sum(z) / sum(masks)).
    """
    selected = mask.detach().sum() if count_padding else (mask.detach() * word_mask).sum()
    selected, words = global_sums(selected, word_mask.sum())
    return float(selected / words.clamp(min=1))


# --- frozen modules ----------------------------------------------------------------------
@contextmanager
def frozen(modules: Iterable[nn.Module]):
    """Parameters of ``modules`` do not require gradients inside the block (restored after)."""
    params = [p for m in modules for p in m.parameters() if p.requires_grad]
    for p in params:
        p.requires_grad_(False)
    try:
        yield
    finally:
        for p in params:
            p.requires_grad_(True)


# --- multi-phase manual steps ------------------------------------------------------------
class PhasedSteps:
    """Mixin for :class:`SPPModel` subclasses with manual optimisation in phases."""

    def phase_step(self, optimizer, outputs: Mapping[str, torch.Tensor], terms: Iterable[str] | None,
                   modules: Sequence[nn.Module]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Loss over ``terms`` (all terms when None), then a DDP-safe step of ``modules`` with ``optimizer``."""
        total, parts = self.loss(outputs, only=None if terms is None else set(terms))
        self.manual_step(optimizer, total, modules)
        return total, parts


class TwoPhaseConfig(LiuFamilyConfig):
    """An RNP-shaped model trained in two phases per batch (MCD, MRD)."""

    term_fields = {"predictor_terms": "losses", "selector_terms": "losses"}

    predictor_terms: list[str] = Param(["task", "sparsity", "continuity"],
                                       description="loss terms of phase 1 (predictor step on the detached selection)")
    selector_terms: list[str] = Param(["sparsity", "continuity"],
                                      description="loss terms of phase 2 (selector step, predictor frozen)")
    predictor_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                       description="learning rate of the predictor; null = lr")
    phase1_selector_step: bool = Param(True, description="phase 1 also steps the selector (with the gradient "
                                                         "its terms give it: sparsity and continuity)")
    fresh_sample: bool = Param(True, description="phase 2 draws a new selection from the updated selector; "
                                                 "false reuses phase 1's sample")

    @classmethod
    def default(cls):
        config = super().default()
        config.add_condition(lambda c: bool(c.predictor_terms) and bool(c.selector_terms),
                             name="predictor_terms and selector_terms must not be empty")
        # Phase 1's backward frees the sample's graph (and may step the selector), so phase 2 can reuse
        # the sample only if phase 1 did not backpropagate through it.
        config.add_condition(lambda c: c.fresh_sample or not {"sparsity", "continuity"} & set(c.predictor_terms),
                             name="fresh_sample=false reuses phase 1's sample: model.predictor_terms must then "
                                  "leave out sparsity and continuity")
        return config


class TwoPhaseModel(PhasedSteps, RNP):
    """Per batch: (1) predictor step on the *detached* selection, (2) selector step with the predictor frozen.

    Phase 1 (MCD ``train_util.py`` train_decouple_causal2, MRD ``train_util.py``
    train_adv_causal): the selector samples; the predictor reads the detached
    sample; one backward of the phase-1 terms, then the predictor's optimiser
    steps and, with ``phase1_selector_step``, the selector's too — its only
    gradient is that of the phase-1 terms that read the selection itself
    (sparsity, continuity). Phase 2: with ``fresh_sample`` the updated
    selector samples again; the predictor is re-run frozen (no gradient to it,
    its optimiser does not step) so gradients reach the selector through it.
    A subclass says what the predictor reads in each phase (:meth:`views`).
    """

    def __init__(self, *, predictor_terms: Sequence[str], selector_terms: Sequence[str], predictor_lr: float | None,
                 phase1_selector_step: bool, fresh_sample: bool, **rnp):
        super().__init__(**rnp)
        self.automatic_optimization = False
        self.losses.require(predictor_terms, "model.predictor_terms")
        self.losses.require(selector_terms, "model.selector_terms")
        self.predictor_terms, self.selector_terms = list(predictor_terms), list(selector_terms)
        self.predictor_lr = predictor_lr or self.lr
        self.phase1_selector_step, self.fresh_sample = phase1_selector_step, fresh_sample

    def selector_modules(self) -> list[nn.Module]:
        return [self.selector_encoder, self.selector_norm, self.selector]

    def predictor_modules(self) -> list[nn.Module]:
        return [self.predictor_encoder, self.predictor_norm, self.predictor]

    def configure_optimizers(self):
        return [self.make_optimizer(self.predictor_modules(), lr=self.predictor_lr),
                self.make_optimizer(self.selector_modules())]

    def evaluation_scales(self):
        """Validation/test ``loss`` = the terms some phase trains (a term no phase uses is logged, not summed)."""
        used = set(self.predictor_terms) | set(self.selector_terms)
        return {name: 0.0 for name in self.losses.terms if name not in used}

    def full_logits(self, batch: Batch, grad: bool) -> torch.Tensor:
        """The predictor on the full text (no graph when ``grad`` is false)."""
        with torch.set_grad_enabled(grad and torch.is_grad_enabled()):
            return self.predict(batch, None)

    def views(self, batch: Batch, mask: torch.Tensor, phase: str) -> dict[str, torch.Tensor]:
        """Named predictor outputs for ``phase`` in {"predictor", "selector", "evaluate"}."""
        raise NotImplementedError

    def _outputs(self, batch, selection, views):
        views = dict(views)
        return self.outputs(batch, selection, views.pop("logits", None), **views)

    def forward(self, batch):
        selection = self.select(batch)
        return self._outputs(batch, selection, self.views(batch, selection.mask, "evaluate"))

    def training_step(self, batch, batch_idx):
        predictor_opt, selector_opt = self.optimizers()
        selection = self.select(batch)
        # The predictor reads the detached sample; the selection terms read the sample itself.
        first = self._outputs(batch, selection, self.views(batch, selection.mask.detach(), "predictor"))
        stepped = [predictor_opt, selector_opt] if self.phase1_selector_step else predictor_opt
        p_total, p_parts = self.phase_step(stepped, first, self.predictor_terms,
                                           self.predictor_modules() + self.selector_modules())
        if self.fresh_sample:
            selection = self.select(batch)
        with frozen(self.predictor_modules()):
            second = self._outputs(batch, selection, self.views(batch, selection.mask, "selector"))
            s_total, s_parts = self.phase_step(selector_opt, second, self.selector_terms, self.selector_modules())
        self.log("train/predictor_loss", p_total.detach(), batch_size=batch.size)
        self.log("train/selector_loss", s_total.detach(), batch_size=batch.size)
        phase1 = {f"phase1_{name}" if name in s_parts else name: value for name, value in p_parts.items()}
        self.log_train(p_total.detach() + s_total.detach(), {**phase1, **s_parts}, second, batch.size)
        return None


# --- an auxiliary model pre-trained on the full text -------------------------------------
#: How the auxiliary model's best pre-training epoch is chosen on the full validation text:
#: accuracy, or the F1 of class 1 (macro F1 over classes beyond two), as DAR's ``teacher_beer.py``.
AUXILIARY_SELECTIONS = ("accuracy", "f1")


def confusion_counts(predicted: torch.Tensor, labels: torch.Tensor, num_classes: int) -> torch.Tensor:
    """[C, 3] float64: per class, true positives, false positives, false negatives."""
    classes = torch.arange(num_classes, device=labels.device).unsqueeze(1)
    hit, said, truth = predicted == labels, predicted.unsqueeze(0) == classes, labels.unsqueeze(0) == classes
    tp = (said & hit.unsqueeze(0)).sum(1)
    fp = (said & ~hit.unsqueeze(0)).sum(1)
    fn = (truth & ~hit.unsqueeze(0)).sum(1)
    return torch.stack([tp, fp, fn], dim=1).to(torch.float64)


def selection_score(counts: torch.Tensor, selection: str) -> float:
    """Accuracy or F1 (class 1 when binary, else the macro mean) from :func:`confusion_counts`; NaN if empty."""
    tp, fp, fn = counts.unbind(dim=1)
    total = float(tp.sum() + fp.sum())
    if total == 0:
        return float("nan")
    if selection == "accuracy":
        return float(tp.sum()) / total
    f1 = 2 * tp / (2 * tp + fp + fn).clamp(min=1e-12)
    return float(f1[1]) if counts.shape[0] == 2 else float(f1.mean())


class AuxiliaryPretraining:
    """Mixin: an auxiliary classifier trained alone on the full text, then frozen at its best validation state.

    The host model calls :meth:`init_auxiliary` in ``__init__`` and implements
    :meth:`auxiliary_modules` and :meth:`auxiliary_logits`. For the first
    ``auxiliary_epochs`` epochs :meth:`auxiliary_pretraining_step` trains it
    on the full text (loss: ``auxiliary_losses``, over ``auxiliary_full_logits``)
    and every validation epoch scores it on the full validation text
    (``selection``: accuracy or F1; counts summed over processes, so every
    rank picks the same epoch); the state with the best score is kept, like
    the best checkpoint of a separate pre-training run. When the first epoch
    after pre-training starts, that state is restored and the auxiliary model
    is frozen: no gradients; ``frozen_mode`` "eval" keeps it in eval mode (no
    dropout) even while the host trains, "train" lets it follow the host's
    mode (dropout on while training). If no validation
    ran during pre-training, the last pre-training state is kept (and a
    warning logged). The kept state travels in checkpoints.
    """

    CHECKPOINT_KEY: ClassVar[str] = "pyhighlights_auxiliary"
    #: What the per-epoch log line says of the pre-training epochs, and the loss it shows.
    warm_up_description: ClassVar[str] = "only the auxiliary predictor trains, on the full text"
    warm_up_loss: ClassVar[str] = "train/auxiliary_loss"

    def init_auxiliary(self, epochs: int, losses: Mapping[str, Any], selection: str = "accuracy",
                       frozen_mode: str = "eval") -> None:
        """``losses``: the built terms of the auxiliary model (``self.build_slot("auxiliary_losses")``)."""
        if selection not in AUXILIARY_SELECTIONS:
            raise ValueError(f"model.auxiliary_selection: expected one of {AUXILIARY_SELECTIONS}, got {selection!r}")
        if frozen_mode not in ("train", "eval"):
            raise ValueError(f"model.auxiliary_mode: expected train or eval, got {frozen_mode!r}")
        self.auxiliary_selection, self.auxiliary_mode = selection, frozen_mode
        self.auxiliary_epochs = int(epochs)
        self.auxiliary_losses = LossSet(losses)
        self.first_scored_epoch = max(self.first_scored_epoch, self.auxiliary_epochs)
        self.register_buffer("auxiliary_frozen", torch.zeros((), dtype=torch.bool))
        self._auxiliary_best: dict[str, Any] | None = None
        self._auxiliary_counts: list[torch.Tensor] | None = None

    def auxiliary_modules(self) -> list[nn.Module]:
        raise NotImplementedError

    def auxiliary_logits(self, batch: Batch, keep_words: torch.Tensor | None = None) -> torch.Tensor:
        raise NotImplementedError

    # state
    @property
    def pretraining(self) -> bool:
        return not bool(self.auxiliary_frozen) and self.current_epoch < self.auxiliary_epochs

    def auxiliary_parameters(self) -> list[nn.Parameter]:
        return [p for m in self.auxiliary_modules() for p in m.parameters()]

    def auxiliary_state(self) -> dict[str, torch.Tensor]:
        return {f"{i}.{name}": value.detach().clone() for i, module in enumerate(self.auxiliary_modules())
                for name, value in module.state_dict().items()}

    def load_auxiliary_state(self, state: Mapping[str, torch.Tensor]) -> None:
        for i, module in enumerate(self.auxiliary_modules()):
            prefix = f"{i}."
            module.load_state_dict({k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)})

    def freeze_auxiliary(self) -> None:
        for p in self.auxiliary_parameters():
            p.requires_grad_(False)
        if self.auxiliary_mode == "eval":
            for module in self.auxiliary_modules():
                module.eval()
        self.auxiliary_frozen.fill_(True)

    def train(self, mode: bool = True):
        result = super().train(mode)
        flag = getattr(self, "auxiliary_frozen", None)
        if flag is not None and bool(flag) and self.auxiliary_mode == "eval":
            for module in self.auxiliary_modules():
                module.eval()
        return result

    # training
    def auxiliary_pretraining_step(self, optimizer, batch: Batch) -> torch.Tensor:
        logits = self.auxiliary_logits(batch, None)
        total, _ = self.auxiliary_losses({"auxiliary_full_logits": logits, "labels": batch.labels})
        self.manual_step(optimizer, total, self.auxiliary_modules())
        self.log("train/auxiliary_loss", total.detach(), prog_bar=True, batch_size=batch.size)
        return total

    def end_auxiliary_pretraining(self) -> None:
        """Restore the best validation state and freeze (idempotent; called when an epoch starts)."""
        if self.current_epoch < self.auxiliary_epochs or bool(self.auxiliary_frozen):
            if bool(self.auxiliary_frozen):
                self.freeze_auxiliary()  # parameters' flags are not in checkpoints: re-apply after a resume
            return
        best = self._auxiliary_best
        if best is not None:
            self.load_auxiliary_state(best["state"])
            log.info("auxiliary model: restored the state of epoch %d (validation accuracy %.4f) and froze it",
                     best["epoch"], best["score"])
        else:
            log.warning("auxiliary model: no validation during its %d pre-training epochs; keeping the last state",
                        self.auxiliary_epochs)
        self.freeze_auxiliary()

    def on_train_epoch_start(self) -> None:
        super().on_train_epoch_start()
        self.end_auxiliary_pretraining()

    # validation of the auxiliary model
    def on_validation_epoch_start(self) -> None:
        super().on_validation_epoch_start()
        self._auxiliary_counts = None

    def auxiliary_validation_update(self, batch: Batch) -> None:
        with torch.no_grad():
            logits = self.auxiliary_logits(batch, None)
        counts = confusion_counts(logits.argmax(dim=-1), batch.labels, logits.shape[-1])
        self._auxiliary_counts = counts if self._auxiliary_counts is None else self._auxiliary_counts + counts

    def auxiliary_validation_score(self) -> float:
        """The auxiliary model's selection score on the full validation text, over all processes."""
        counts = self._auxiliary_counts
        if counts is None:
            return float("nan")
        summed = torch.stack(global_sums(*counts.reshape(-1).unbind())).reshape(counts.shape)
        return selection_score(summed, self.auxiliary_selection)

    def auxiliary_validation_end(self) -> None:
        if not self.pretraining or self.trainer.sanity_checking:
            return
        score = self.auxiliary_validation_score()
        # already global: the mean of equal values
        self.log(f"val/auxiliary_{self.auxiliary_selection}", score, sync_dist=True)
        best = self._auxiliary_best
        if score == score and (best is None or score > best["score"]):
            self._auxiliary_best = {"epoch": int(self.current_epoch), "score": float(score),
                                    "state": self.auxiliary_state()}

    # checkpoints
    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        super().on_save_checkpoint(checkpoint)
        if self._auxiliary_best is not None:
            checkpoint[self.CHECKPOINT_KEY] = self._auxiliary_best

    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        super().on_load_checkpoint(checkpoint)
        self._auxiliary_best = checkpoint.get(self.CHECKPOINT_KEY)
