"""The select-then-predict LightningModule every model builds on.

A subclass assembles its parts in ``__init__`` and implements :meth:`forward`
(batch -> named outputs, including ``mask`` and ``logits``) and, for manual
optimisation, :meth:`training_step`. Evaluation, metrics, predictions and the
optimiser factory live here once.
"""
from __future__ import annotations

import math

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any, ClassVar, Literal

import lightning.pytorch as pl
import torch
from torch import nn

from pyhighlights.components.aspect_adversary import build_aspect_adversary, disagreement_bits
from pyhighlights.components.backbones.base import Backbone
from pyhighlights.components.losses import LossSet, selection_rate, threshold_selection_rate
from pyhighlights.components.selectors import Selection, log_odds
from pyhighlights.components.words import tokens_to_words_mean, words_to_tokens
from pyhighlights.config.resolve import Slots
from pyhighlights.data.batch import Batch
from pyhighlights.data.environments import require_environments
from pyhighlights.metrics import RationaleMetrics
from pyhighlights.registry import Configuration, Param, Real, kind
from pyhighlights.training import random_states

BackboneFactory = Callable[[], Backbone]


def with_encoder_settings(factory: BackboneFactory, **settings: Any) -> BackboneFactory:
    """``factory`` building backbones with these parameters replaced (a None value: the backbone's own).

    A parameter the backbone does not have (a transformer has no ``recurrence``) is left out.
    """
    # a factory already given settings is a partial of one (partials of partials flatten)
    spec = getattr(factory.func if isinstance(factory, partial) else factory, "spec", {})
    chosen = {name: value for name, value in settings.items() if value is not None and name in spec}
    return partial(factory, **chosen) if chosen else factory


#: Checkpoint key of the loss terms' state (Lagrange multipliers): ``{loss set attribute: {term: state}}``.
LOSS_STATES_KEY = "pyhighlights_loss_states"

#: What :meth:`SPPModel.outputs` returns: the names a loss term of a model may read.
SELECTION_OUTPUTS = frozenset({"logits", "labels", "mask", "word_mask", "raw_mask", "keep_logit", "selector_logits"})


class OptimConfig(Configuration):
    """Optimiser parameters shared by every model.

    A model's configuration also says, for each of its fields of loss terms,
    which outputs those terms may read (``outputs``), and which fields name
    loss terms (``term_fields``: field -> field of loss terms), so a term that
    reads nothing the model produces is refused before anything is built.
    ``training_outputs``: those of ``outputs`` produced only in training with
    an option on (G-RAT's aspect adversary).
    """

    outputs: ClassVar[Mapping[str, frozenset[str]]] = {}
    training_outputs: ClassVar[frozenset[str]] = frozenset()
    term_fields: ClassVar[Mapping[str, str]] = {}

    lr: float = Real(1e-3, gt=0.0, description="Adam learning rate")
    encoder_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                     description="learning rate of the encoders (backbones) at base rate lr; parts with another base rate keep the ratio; null = lr")
    weight_decay: float = Real(0.0, ge=0.0)
    grad_clip: float = Real(0.0, ge=0.0, description="max gradient norm, 0 = off")
    # The batching layout, shared by every model: with a recurrent encoder run over the padded tensor and
    # padding counted in the selection terms, the padded width changes the loss, so a model that reproduces
    # a reference states the reference's layout here. ``layout=packed`` selects our faster one.
    recurrence: Literal["within_length", "padded"] | None = Param(
        None, description="recurrent encoders: within_length (each document within its own length) or padded "
                          "(nn.GRU over the whole padded tensor, as the reference code); null = backbone.recurrence")
    pad_to: int | None = Param(None, ge=1, description="pad every batch to this many tokens (the Liu et al. loaders: "
                                                       "256); null = the batch's longest document")
    bucket: bool = Param(True, description="training batches of similar length (shorter padding, faster); false = "
                                           "random batches, as the reference loaders draw them")
    predictor_pool: Literal["kept", "valid"] = Param(
        "kept", description="the predictor max-pools over the kept words only, or over every real word (the kept "
                            "words' embeddings zeroed, their encoder states still pooled: the Liu et al. code)")
    encoder_dropout: float | None = Param(None, ge=0.0, lt=1.0, allow_inf_nan=False,
                                          description="dropout of the encoders' embeddings and states; "
                                                      "null = backbone.dropout")


@kind("model", runtime=("backbone_factory", "num_classes"), configured=True)
class SPPModel(pl.LightningModule):
    """Shared machinery: building parts, scoring, logging, predictions, optimisers.

    A model is built from its validated configuration: every ``__init__`` of a subclass names the fields it
    uses, without defaults (the configuration has them), and passes the rest on with ``**common``; the parts
    of its dependency fields come as ``slots`` and are built by field name (:meth:`build_slot`).
    """

    def __init__(self, *, slots: Slots, backbone_factory: BackboneFactory, num_classes: int, lr: float,
                 encoder_lr: float | None, weight_decay: float, grad_clip: float, predictor_pool: str,
                 encoder_dropout: float | None, recurrence: str | None, pad_to: int | None, bucket: bool):
        super().__init__()
        self._slots = slots
        self.predictor_pool = predictor_pool
        # LayerNorms on the encoder states of each path (identity unless a model asks for them).
        self.selector_norm: nn.Module = nn.Identity()
        self.predictor_norm: nn.Module = nn.Identity()
        self.num_classes = num_classes
        self.make_backbone = with_encoder_settings(backbone_factory, dropout=encoder_dropout, recurrence=recurrence)
        # Read by the data module (training) and by evaluation and inference, which must pad as training did.
        self.pad_to, self.bucket = pad_to, bucket
        self.lr, self.encoder_lr, self.weight_decay, self.grad_clip = lr, encoder_lr, weight_decay, grad_clip
        self.losses = LossSet(self.build_slot("losses"))
        #: the aspect adversary of an aspect_adversary term, else None (see :meth:`attach_aspect_adversary`)
        self.aspect_adversary: nn.Module | None = None
        self.metrics = nn.ModuleDict({split: RationaleMetrics(num_classes) for split in ("val", "test")})
        self.predictions: list[dict[str, Any]] = []
        #: The first epoch whose validation counts for checkpointing and early stopping.
        self.first_scored_epoch = 0
        #: This training step's loss terms and logged values, for the non-finite and divergence checks.
        self.training_values: dict[str, torch.Tensor] = {}

    # --- building blocks -------------------------------------------------------------
    def build_slot(self, field: str, **runtime: Any) -> Any:
        """The part of the configuration's dependency field ``field``, built with ``runtime`` (its kind's
        arguments: a predictor's ``input_size`` and ``num_classes``); ``{label: part}`` for a field of several
        parts (loss terms). Each call builds a fresh part (MGR builds one selector per generator)."""
        return self._slots.build(field, **runtime)

    def encode_words(self, encoder: Backbone, batch: Batch, keep_words: torch.Tensor | None = None,
                     norm: nn.Module | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Encode a batch (optionally with words removed); return token states and the pooling mask.

        The pooling mask is the kept tokens (``predictor_pool="kept"``) or every real token ("valid").
        """
        keep_tokens = None
        pool_mask = batch.attention_mask
        if keep_words is not None:
            keep_tokens = self.kept_tokens(batch, keep_words)
            if self.predictor_pool == "kept":
                pool_mask = keep_tokens.detach()
        states = encoder(batch.input_ids, batch.attention_mask, keep=keep_tokens)
        if norm is not None:
            states = norm(states)
        return states, pool_mask

    @staticmethod
    def kept_tokens(batch: Batch, keep_words: torch.Tensor | None) -> torch.Tensor:
        """The real tokens of the words where ``keep_words`` is 1 (every real token when it is None)."""
        if keep_words is None:
            return batch.attention_mask
        return words_to_tokens(keep_words, batch.word_ids, fill=1.0) * batch.attention_mask

    @staticmethod
    def word_states(states: torch.Tensor, batch: Batch) -> torch.Tensor:
        return tokens_to_words_mean(states, batch.word_ids, batch.word_mask.shape[1])

    @staticmethod
    def pool(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Max-pool over ``mask``; a document with nothing kept pools to zeros."""
        pooled = Backbone.pool(states, mask)
        empty = ~(mask > 0).any(dim=1, keepdim=True)
        return pooled.masked_fill(empty, 0.0)

    def outputs(self, batch: Batch, selection: Selection, logits: torch.Tensor, **extra: torch.Tensor) -> dict[str, torch.Tensor]:
        word_mask = batch.word_mask.to(selection.mask.dtype)
        raw_mask = selection.mask if selection.raw_mask is None else selection.raw_mask
        # the keep logits without the selector's training-time dropout, for a constraint on the evaluated rate
        decision = {} if selection.decision_logits is None else \
            {"decision_keep_logit": log_odds(selection.decision_logits)}
        return {"logits": logits, "labels": batch.labels, "mask": selection.mask, "word_mask": word_mask,
                "raw_mask": raw_mask, "keep_logit": selection.keep_logit, "selector_logits": selection.logits,
                **decision, **extra}

    def forward(self, batch: Batch) -> dict[str, torch.Tensor]:
        """Select, then predict from the selected words only."""
        selection = self.select(batch)
        return self.outputs(batch, selection, self.predict(batch, selection.mask),
                            **self.adversary_outputs(batch, selection.mask))

    def attach_aspect_adversary(self) -> None:
        """Build the adversary of an aspect_adversary term with a weight above 0. A model whose ``losses`` offer
        the term calls this last in its ``__init__``, so the other parts draw the same initial weights with it
        as without it."""
        self.aspect_adversary = build_aspect_adversary(self.losses, self.make_backbone, self.num_classes)

    def adversary_outputs(self, batch: Batch, keep_words: torch.Tensor) -> dict[str, torch.Tensor]:
        """The aspect adversary's logits over the rationale, its gradient reversed into the mask, and the bits it
        predicts (:mod:`pyhighlights.components.aspect_adversary`); nothing without an adversary or in evaluation
        (the adversary only trains)."""
        if self.aspect_adversary is None or not self.training:
            return {}
        require_environments(batch.environments, "model.losses.aspect_adversary",
                             how="set dataset.aspect_environments=true (a corpus in the Lei et al. Beer format: "
                                 "dataset=beer or synth_beer), which gives each review the other aspects that "
                                 "disagree with its label")
        read = self.aspect_adversary.reverse(keep_words, batch.word_mask)
        states, _ = self.encode_words(self.aspect_adversary.encoder, batch, read)
        logits = self.aspect_adversary(self.pool(states, batch.attention_mask), batch.labels)
        return {"adversary_logits": logits,
                "disagreement": disagreement_bits(batch.environments, self.aspect_adversary.aspects).to(logits.dtype)}

    # --- explanation interface (evaluation, faithfulness, post-hoc comparison) -------
    # The defaults read the parts every rationaliser here has: ``selector_encoder`` +
    # ``selector`` and ``predictor_encoder`` + ``predictor`` (FR points both encoders at one).
    def select(self, batch: Batch) -> Selection:
        """The model's selection for ``batch`` (in eval mode: thresholded or sampled, per the selector)."""
        states, _ = self.encode_words(self.selector_encoder, batch, norm=self.selector_norm)
        return self.selector(self.word_states(states, batch), batch.word_mask)

    def predict(self, batch: Batch, keep_words: torch.Tensor | None) -> torch.Tensor:
        """Class logits [B, C] from the words where ``keep_words`` [B, W] is 1 (all words when None)."""
        return self.predictor(self.represent(batch, keep_words))

    def represent(self, batch: Batch, keep_words: torch.Tensor | None) -> torch.Tensor:
        """The predictor's pooled representation [B, H] of the words where ``keep_words`` is 1 (its head's input)."""
        states, pool_mask = self.encode_words(self.predictor_encoder, batch, keep_words, norm=self.predictor_norm)
        return self.pool(states, pool_mask)

    def word_scores(self, batch: Batch) -> torch.Tensor:
        """Soft per-word scores [B, W] (p(keep)), for AUPRC and top-k comparisons."""
        return self.select(batch).keep_probability * batch.word_mask

    def highlight(self, texts: str | list[str], batch_size: int = 32):
        """Highlight raw text (a model from ``pyhighlights.load``); see :func:`pyhighlights.inference.highlight`."""
        from pyhighlights.inference import highlight

        return highlight(self, texts, batch_size)

    # --- optimisation ---------------------------------------------------------------
    def param_groups(self, modules: Iterable[nn.Module], lr: float | None = None) -> list[dict[str, Any]]:
        """Adam parameter groups for ``modules``: encoder parameters get ``encoder_lr``."""
        lr = self.lr if lr is None else lr
        encoder_ids: set[int] = set()
        encoder, other = [], []
        modules = list(modules)
        for module in modules:
            for sub in module.modules():
                if isinstance(sub, Backbone):
                    for p in sub.encoder_parameters():
                        encoder_ids.add(id(p))
        seen: set[int] = set()
        for module in modules:
            for p in module.parameters():
                if not p.requires_grad or id(p) in seen:
                    continue
                seen.add(id(p))
                (encoder if id(p) in encoder_ids else other).append(p)
        # encoder_lr is stated against model.lr; a part with its own base rate (G-RAT's guider,
        # MGR's generators) keeps the same encoder/head ratio.
        encoder_lr = lr if self.encoder_lr is None else self.encoder_lr * (lr / self.lr)
        groups = []
        if other:
            groups.append({"params": other, "lr": lr, "name": "head"})
        if encoder:
            groups.append({"params": encoder, "lr": encoder_lr, "name": "encoder"})
        return groups

    def make_optimizer(self, modules: Iterable[nn.Module], lr: float | None = None) -> torch.optim.Optimizer:
        return torch.optim.Adam(self.param_groups(modules, lr), weight_decay=self.weight_decay)

    def configure_optimizers(self):
        return self.make_optimizer([self])

    #: (gradient_clip_val, gradient_clip_algorithm) given to the Trainer, for models that step their optimisers
    #: themselves (Lightning refuses them in the Trainer then; see training/run.py).
    manual_clipping: tuple[float | None, str | None] = (None, None)

    def configure_gradient_clipping(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None):
        # Through Lightning's clip_gradients: its precision plugin clips the unscaled gradients.
        if self.grad_clip > 0:
            gradient_clip_val, gradient_clip_algorithm = self.grad_clip, "norm"
        elif not gradient_clip_val:
            return  # no clipping asked for (Lightning passes the Trainer's gradient_clip_val here)
        self.clip_gradients(optimizer, gradient_clip_val=gradient_clip_val,
                            gradient_clip_algorithm=gradient_clip_algorithm)

    def manual_step(self, optimizer, loss: torch.Tensor, modules: Iterable[nn.Module]) -> None:
        """One optimiser step on part of the model, DDP-safe and mixed-precision-safe.

        ``optimizer`` may be a list: one backward, then each optimiser steps
        its own parameters (a parameter without a gradient is left alone).
        The backward runs with the strategy's gradient sync blocked. Each step
        goes through Lightning's optimiser wrapper, whose precision plugin
        unscales the gradients (16-mixed) and then calls
        :meth:`on_before_optimizer_step`, where the gradients are averaged
        across processes (see training/distributed.py) and clipped; the scaler
        then skips the step if a gradient is not finite.
        """
        from contextlib import nullcontext

        optimizers = list(optimizer) if isinstance(optimizer, (list, tuple)) else [optimizer]
        for opt in optimizers:
            opt.zero_grad(set_to_none=True)
        block = getattr(self.trainer.strategy, "block_backward_sync", None) if self._trainer is not None else None
        with block() if block is not None else nullcontext():
            self.manual_backward(loss)
        for opt in optimizers:
            self._partial_step = [p for group in opt.param_groups for p in group["params"]]
            try:
                opt.step()
            finally:
                self._partial_step = None

    def on_before_optimizer_step(self, optimizer) -> None:
        params = getattr(self, "_partial_step", None)
        if params is None:
            return  # automatic optimisation: DDP averaged in backward; Lightning clips
        from pyhighlights.training.distributed import average_gradients

        if average_gradients(params):
            self._share_skipped_step(optimizer, params)
        self.configure_gradient_clipping(optimizer, *self.manual_clipping)

    def _share_skipped_step(self, optimizer, params) -> None:
        # The scaler decided to skip on this rank's own gradients, before the
        # average; a non-finite gradient anywhere is non-finite in the average,
        # so every rank must skip together.
        scaler = getattr(self.trainer.precision_plugin, "scaler", None)
        if scaler is None or not scaler.is_enabled():
            return
        if not all(torch.isfinite(p.grad).all() for p in params if p.grad is not None):
            for found in scaler._per_optimizer_states[id(optimizer)]["found_inf_per_device"].values():
                found.fill_(1.0)

    def loss(self, outputs: Mapping[str, torch.Tensor], scales: Mapping[str, float] | None = None,
             only: set[str] | None = None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        total, parts = self.losses(outputs, scales=scales, only=only)
        if self.training:  # known before the backward, so a non-finite term is named before it spreads
            self.training_values.update({f"train/loss/{name}": value.detach() for name, value in parts.items()})
        return total, parts

    def log(self, name: str, value: Any, *args: Any, **kwargs: Any) -> None:
        if self.training and isinstance(value, torch.Tensor):
            self.training_values[name] = value.detach()
        super().log(name, value, *args, **kwargs)

    def log_train(self, total: torch.Tensor, parts: Mapping[str, torch.Tensor], outputs: Mapping[str, torch.Tensor],
                  batch_size: int) -> None:
        rate = selection_rate(outputs["mask"].detach(), outputs["word_mask"])
        self.log("train/loss", total.detach(), prog_bar=True, batch_size=batch_size)
        self.log("train/selection_rate", rate, prog_bar=True, batch_size=batch_size)
        # Loss terms under loss/<term>: a term may share its name with a metric (sparsity).
        for name, value in parts.items():
            self.log(f"train/loss/{name}", value, batch_size=batch_size)

    def training_step(self, batch: Batch, batch_idx: int):
        outputs = self(batch)
        total, parts = self.loss(outputs)
        self.log_train(total, parts, outputs, batch.size)
        return total

    # --- loss terms with state (a sparsity constraint's Lagrange multiplier) ------------
    def loss_sets(self) -> dict[str, LossSet]:
        """The model's loss sets by attribute name (``losses``, and a guider's or teacher's own)."""
        return {name: value for name, value in vars(self).items() if isinstance(value, LossSet)}

    def on_train_batch_start(self, batch: Any, batch_idx: int) -> None:
        # A multiplier folds in the previous batch's violations here, at the start of the next batch (after
        # any callback saved a checkpoint at the end of the last one, so the checkpoint holds them still
        # pending and a resumed run folds them in at the same point). Every process calls it: the violation
        # is averaged over processes. The value logged is the one this batch's loss uses.
        for owner, losses in self.loss_sets().items():
            for name, value in losses.begin_step().items():
                label = name if owner == "losses" else f"{owner}/{name}"
                self.log(f"train/{label}", value, batch_size=1)
        readers = [term for losses in self.loss_sets().values() for term in losses.terms.values()
                   if getattr(term, "reads_evaluated_selection", False)]
        if readers:
            rate = self.evaluated_selection_rate(batch)
            for term in readers:
                term.give_evaluated_rate(rate)

    @torch.no_grad()
    def evaluated_selection_rate(self, batch: Batch) -> torch.Tensor:
        """The share of ``batch``'s real words whose keep logit is >= 0 when the whole model is in evaluation
        mode (no dropout anywhere on the selector path), read without gradients and without touching the
        random streams training draws from (a selector that samples at evaluation draws here too)."""
        modes = [(module, module.training) for module in self.modules()]
        device = batch.word_mask.device
        try:
            for module, _ in modes:
                module.training = False
            with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
                selection = self.select(batch)
        finally:
            for module, mode in modes:
                module.training = mode
        return threshold_selection_rate(selection.keep_logit, batch.word_mask)

    # --- exact resume ---------------------------------------------------------------
    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        # Gumbel noise and dropout draw from the random states; a resumed run
        # restores each process's own to continue exactly.
        checkpoint[random_states.KEY] = random_states.for_checkpoint()
        # every process writes its part of a checkpoint together (the random states are gathered too)
        states = {owner: state for owner, losses in self.loss_sets().items()
                  if (state := losses.state_dict(shared=True))}
        if states:
            checkpoint[LOSS_STATES_KEY] = states

    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        self._pending_rng = random_states.own_state(checkpoint.get(random_states.KEY))
        states = checkpoint.get(LOSS_STATES_KEY, {})
        for owner, losses in self.loss_sets().items():
            if states.get(owner) or losses.state_dict():
                losses.load_state_dict(states.get(owner, {}))

    def on_train_start(self) -> None:
        # A warm-up counted in epochs needs the epoch's length in batches (this process's share under DDP).
        for losses in self.loss_sets().values():
            batches = self.trainer.num_training_batches
            losses.begin_fit(int(batches) if math.isfinite(batches) and batches >= 1 else 1)
        # Restored here, not in on_load_checkpoint: Lightning draws from the
        # global generator between loading and training (it did so in the
        # uninterrupted run too, before the checkpoint was written).
        state = getattr(self, "_pending_rng", None)
        if state is not None:
            random_states.restore(state)
            self._pending_rng = None

    # --- evaluation -----------------------------------------------------------------
    def evaluation_scales(self) -> Mapping[str, float] | None:
        return None

    def _evaluate(self, batch: Batch, split: str) -> dict[str, torch.Tensor]:
        outputs = self(batch)
        total, parts = self.loss(outputs, scales=self.evaluation_scales())
        # A float count: for the mean over processes Lightning divides the summed count by the number
        # of processes, which truncates an integer (2 processes, 51 documents: 25 instead of 25.5).
        documents = float(batch.size)
        self.log(f"{split}/loss", total, batch_size=documents, sync_dist=True)
        for name, value in parts.items():
            self.log(f"{split}/loss/{name}", value, batch_size=documents, sync_dist=True)
        self.metrics[split].update(outputs["mask"], batch.highlights, batch.word_mask, outputs["logits"], batch.labels)
        return outputs

    def validation_step(self, batch: Batch, batch_idx: int):
        self._evaluate(batch, "val")

    def on_validation_epoch_end(self):
        self._log_metrics("val")

    def test_step(self, batch: Batch, batch_idx: int):
        outputs = self._evaluate(batch, "test")
        self._collect_predictions(batch, outputs)

    def on_test_epoch_start(self):
        self.predictions = []

    def on_test_epoch_end(self):
        self._log_metrics("test")

    def _log_metrics(self, split: str) -> None:
        values = self.metrics[split].compute()
        for name, value in values.items():
            self.log(f"{split}/{name}", value, prog_bar=name in ("accuracy", "highlight_f1"))
        self.metrics[split].reset()

    def _collect_predictions(self, batch: Batch, outputs: Mapping[str, torch.Tensor]) -> None:
        predicted = outputs["logits"].argmax(dim=-1).tolist()
        masks = (outputs["mask"] > 0.5).cpu()
        word_mask = batch.word_mask.bool().cpu()
        highlights = batch.highlights.cpu()
        for row, sample in enumerate(batch.sample_ids.tolist()):
            n = int(word_mask[row].sum())
            human = highlights[row, :n]
            self.predictions.append({
                "sample": sample,
                "label": int(batch.labels[row]),
                "prediction": int(predicted[row]),
                "selected": torch.nonzero(masks[row, :n]).flatten().tolist(),
                "highlight": None if bool((human < 0).all()) else torch.nonzero(human == 1).flatten().tolist(),
                "highlight_spans": batch.spans_of(row),
            })
