"""Training mechanics shared by models of several parts (FR, DR, MGR, MCD, DAR, MRD, ...).

Each model file states *what* its objective is; the *how* lives here once (the phases a model
trains in, and the one mechanism running them, are in :mod:`pyhighlights.models.phases`):

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
- **an auxiliary model pre-trained on the full text** (:class:`AuxiliaryPretraining`):
  trained alone for the first epochs, its best validation state (accuracy or
  F1 on the full text, summed over processes) is kept, restored when
  pre-training ends, and frozen (no gradients) for the rest of the run and in
  checkpoints.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch
import torch.distributed as dist
from torch import nn

from pyhighlights.components.losses import LossSet
from pyhighlights.data.batch import Batch

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


def epoch_decay(optimizer, lr_decay: float, min_lr: float):
    """Lightning's optimiser entry for ``optimizer`` with every rate decayed per epoch: lr_e = max(min_lr,
    lr 0.97^e) for ``lr_decay`` 0.97 (the HardKuma and Inter-RAT references step ``ExponentialLR`` each epoch
    while lr > min_lr, then floor it at min_lr). Each group keeps its own base rate, floored at min_lr too;
    ``lr_decay`` 1: the optimiser alone."""
    if lr_decay == 1.0:
        return optimizer
    floors = [min(1.0, min_lr / group["lr"]) for group in optimizer.param_groups]
    lambdas = [lambda epoch, floor=floor: max(floor, lr_decay ** epoch) for floor in floors]
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambdas)
    return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "epoch"}}


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


# --- an auxiliary model pre-trained on the full text -------------------------------------
#: How the auxiliary model's best pre-training epoch is chosen on the full validation text:
#: accuracy, or the F1 of class 1 (macro F1 over classes beyond two), as DAR's ``teacher_beer.py``; or "last":
#: the last pre-training state, whatever the validation says (DMR's ``run.py``).
AUXILIARY_SELECTIONS = ("accuracy", "f1", "last")


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
    :meth:`auxiliary_modules` and :meth:`auxiliary_logits` (the mixin scores it in the validation hooks). For the first
    ``auxiliary_epochs`` epochs (while :attr:`pretraining`) the host's pre-training phase trains it
    on the full text (loss: ``auxiliary_losses``, over :meth:`auxiliary_outputs`)
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
    def auxiliary_outputs(self, step) -> dict[str, torch.Tensor]:
        """What the pre-training phase's terms read: the auxiliary model on the full text, and the labels."""
        batch = step.batch
        return {"auxiliary_full_logits": self.auxiliary_logits(batch, None), "labels": batch.labels}

    def end_auxiliary_pretraining(self) -> None:
        """Restore the best validation state and freeze (idempotent; called when an epoch starts)."""
        if self.current_epoch < self.auxiliary_epochs or bool(self.auxiliary_frozen):
            if bool(self.auxiliary_frozen):
                self.freeze_auxiliary()  # parameters' flags are not in checkpoints: re-apply after a resume
            return
        best = self._auxiliary_best
        if self.auxiliary_selection == "last":
            log.info("auxiliary model: kept the state of its last pre-training epoch and froze it")
        elif best is not None:
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

    def validation_step(self, batch: Batch, batch_idx: int):
        result = super().validation_step(batch, batch_idx)
        if self.pretraining:
            self.auxiliary_validation_update(batch)
        return result

    def on_validation_epoch_end(self) -> None:
        super().on_validation_epoch_end()
        self.auxiliary_validation_end()

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
        if not self.pretraining or self.trainer.sanity_checking or self.auxiliary_selection == "last":
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
