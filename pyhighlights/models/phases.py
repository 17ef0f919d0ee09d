"""Training phases as data, and the one mechanism that runs them.

A model trained in phases (G-RAT's guider and rationaliser, MCD's predictor
and selector steps, DAR's teacher pre-training, ...) declares

- its **parts** (:meth:`PhasedTraining.parts`): named groups of modules;
- its **optimisers** (:meth:`PhasedTraining.optimisers`): named, in the order
  Lightning holds them;
- its **phases** (:meth:`PhasedTraining.phases`): a list of :class:`Phase`,
  each saying which parts it trains, which loss terms it sums, which parts are
  frozen during it and which are read detached, which optimisers step, how the
  learning rates of parts are scaled for the step, and when it runs (epochs,
  every n-th batch, a condition).

Per batch, :meth:`PhasedTraining.training_step` runs the phases in order,
each as one DDP-safe partial step (:meth:`SPPModel.manual_step`: one backward
with the strategy's gradient sync blocked, gradients averaged over processes,
clipped and unscaled through Lightning's precision plugin), then reports the
phases marked ``reported`` as the model's ``train/loss`` and
``train/loss/<term>``. Nothing here depends on one family of models.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from pyhighlights.data.batch import Batch
from pyhighlights.models.mechanics import scale_part_lr

Outputs = Mapping[str, torch.Tensor]


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


@dataclass(frozen=True)
class Phase:
    """One optimisation step of a batch.

    ``outputs(step)`` computes what the phase's terms read: one output mapping,
    or several (their losses are summed, their terms reported as the mean, as
    MGR's generators). ``step.phase`` is this phase, so the function can ask
    :meth:`detaches`; ``step.state`` carries values between the phases of one
    batch (a sample to reuse).
    """

    name: str
    #: the parts the phase's backward trains (and whose gradients are averaged over processes)
    trains: tuple[str, ...]
    #: the optimisers stepped after the one backward (each steps its own parameters)
    optimisers: tuple[str, ...]
    outputs: Callable[["Step"], Outputs | Sequence[Outputs]]
    #: the loss terms summed; None = every term of ``losses``
    terms: tuple[str, ...] | None = None
    #: the model attribute holding the phase's :class:`~pyhighlights.components.losses.LossSet`
    losses: str = "losses"
    #: parts without gradients for the whole phase (gradients still flow *through* them)
    frozen: tuple[str, ...] = ()
    #: parts whose outputs the phase reads detached (the model's ``outputs`` asks :meth:`detaches`)
    detach: tuple[str, ...] = ()
    #: epochs [start_epoch, stop_epoch) in which it runs (stop None: to the end), and every n-th batch
    start_epoch: int = 0
    stop_epoch: int | None = None
    every: int = 1
    #: a further condition, asked before every batch (DAR: while its teacher is pre-training)
    when: Callable[[], bool] | None = None
    #: multipliers of named terms (annealing), asked every step
    scales: Callable[[], Mapping[str, float]] | None = None
    #: part -> learning-rate factor for this step, from the phase's outputs (DR); applied to the groups of
    #: that part in the phase's optimisers (see mechanics.part_optimizer)
    lr_factors: Callable[[Outputs], Mapping[str, float]] | None = None
    #: called after the step with its :class:`PhaseResult` and the :class:`Step` (a step counter, extra logs)
    after: Callable[["PhaseResult", "Step"], None] | None = None
    #: the phase's total is logged under this name (None: not on its own)
    logged: str | None = None
    progress_bar: bool = False
    #: part of the model's train/loss and train/loss/<term>
    reported: bool = True
    #: prefix of this phase's term names in the report when a later reported phase has a term of that name
    prefix: str | None = None

    def __post_init__(self):
        if not self.trains or not self.optimisers:
            raise ValueError(f"phase {self.name!r}: it must train at least one part with at least one optimiser")
        if self.every < 1:
            raise ValueError(f"phase {self.name!r}: every must be >= 1, got {self.every}")
        overlap = sorted(set(self.trains) & set(self.frozen))
        if overlap:
            raise ValueError(f"phase {self.name!r}: part {overlap[0]!r} is both trained and frozen")

    def detaches(self, part: str) -> bool:
        return part in self.detach

    def runs(self, epoch: int, batch_idx: int) -> bool:
        if epoch < self.start_epoch or (self.stop_epoch is not None and epoch >= self.stop_epoch):
            return False
        if batch_idx % self.every:
            return False
        return self.when is None or bool(self.when())


@dataclass
class PhaseResult:
    phase: Phase
    total: torch.Tensor
    parts: dict[str, torch.Tensor]
    #: the outputs the terms read (the last mapping when the phase has several)
    outputs: Outputs
    lr_factors: Mapping[str, float] = field(default_factory=dict)


@dataclass
class Step:
    """One batch's run through the phases."""

    batch: Batch
    batch_idx: int
    phase: Phase | None = None
    results: dict[str, PhaseResult] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)


class PhasedTraining:
    """Mixin for :class:`~pyhighlights.models.base.SPPModel` subclasses trained in declared phases."""

    # --- what a model declares ------------------------------------------------------
    def parts(self) -> Mapping[str, Sequence[nn.Module]]:
        raise NotImplementedError

    def optimisers(self) -> Mapping[str, torch.optim.Optimizer]:
        """Name -> optimiser, built from the parts (``make_optimizer``, ``part_optimizer``)."""
        raise NotImplementedError

    def phases(self) -> Sequence[Phase]:
        raise NotImplementedError

    # --- the mechanism --------------------------------------------------------------
    @property
    def automatic_optimization(self) -> bool:
        return False  # every phase steps its optimisers itself

    @automatic_optimization.setter
    def automatic_optimization(self, value: bool) -> None:
        if value:
            raise ValueError(f"{type(self).__name__} runs its phases with manual optimisation")

    def part_modules(self, names: Iterable[str]) -> list[nn.Module]:
        parts = self.parts()
        modules: list[nn.Module] = []
        for name in names:
            if name not in parts:
                raise KeyError(f"{type(self).__name__} has no part {name!r}; parts: {', '.join(parts)}")
            modules.extend(parts[name])
        return modules

    def configure_optimizers(self):
        built = dict(self.optimisers())
        self._optimiser_names = list(built)
        optimisers = list(built.values())
        return optimisers[0] if len(optimisers) == 1 else optimisers

    def named_optimisers(self) -> dict[str, Any]:
        """The optimisers Lightning holds (its wrappers, which step through the precision plugin), by name."""
        held = self.optimizers()
        held = list(held) if isinstance(held, (list, tuple)) else [held]
        return dict(zip(self._optimiser_names, held))

    def phase_loss(self, phase: Phase, outputs: Outputs) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        scales = phase.scales() if phase.scales is not None else None
        only = None if phase.terms is None else set(phase.terms)
        if phase.losses == "losses":
            return self.loss(outputs, scales=scales, only=only)  # records train/loss/<term> for the checks
        return getattr(self, phase.losses)(outputs, scales=scales, only=only)

    def phase_objective(self, phase: Phase, views) -> tuple[torch.Tensor, dict[str, torch.Tensor], Outputs]:
        if isinstance(views, Mapping):
            total, parts = self.phase_loss(phase, views)
            return total, parts, views
        views = list(views)
        total, summed = None, {}
        for outputs in views:
            loss, parts = self.phase_loss(phase, outputs)
            total = loss if total is None else total + loss
            for name, value in parts.items():
                summed[name] = summed.get(name, 0.0) + value / len(views)
        return total, summed, views[-1]

    def run_phase(self, phase: Phase, step: Step, optimisers: Mapping[str, Any]) -> PhaseResult:
        step.phase = phase
        with frozen(self.part_modules(phase.frozen)):
            total, parts, outputs = self.phase_objective(phase, phase.outputs(step))
            stepped = [optimisers[name] for name in phase.optimisers]
            factors = dict(phase.lr_factors(outputs)) if phase.lr_factors is not None else {}
            for part, factor in factors.items():
                for optimiser in stepped:
                    scale_part_lr(optimiser, part, factor)
            self.manual_step(stepped[0] if len(stepped) == 1 else stepped, total, self.part_modules(phase.trains))
        return PhaseResult(phase, total, parts, outputs, factors)

    def training_step(self, batch: Batch, batch_idx: int):
        optimisers = self.named_optimisers()
        step = Step(batch, batch_idx)
        for phase in self.phases():
            if not phase.runs(self.current_epoch, batch_idx):
                continue
            result = self.run_phase(phase, step, optimisers)
            step.results[phase.name] = result
            if phase.after is not None:
                phase.after(result, step)
            if phase.logged:
                self.log(phase.logged, result.total.detach(), prog_bar=phase.progress_bar, batch_size=batch.size)
        self.report_phases(step)
        return None

    def report_phases(self, step: Step) -> None:
        """train/loss: the reported phases' totals summed; their terms, a repeated name prefixed by the earlier
        phase's ``prefix``; the selection rate of the last one's outputs."""
        reported = [result for result in step.results.values() if result.phase.reported]
        if not reported:
            return
        total, parts = None, {}
        for i, result in enumerate(reported):
            later = {name for other in reported[i + 1:] for name in other.parts}
            prefix = result.phase.prefix if result.phase.prefix is not None else f"{result.phase.name}_"
            total = result.total.detach() if total is None else total + result.total.detach()
            parts.update({f"{prefix}{name}" if name in later else name: value for name, value in result.parts.items()})
        self.log_train(total, parts, reported[-1].outputs, step.batch.size)


class TakesTurns:
    """Mixin (before :class:`PhasedTraining`) for models whose players take turns by the batches trained so far,
    as the references' global step counts them: ``batches_seen`` is a buffer, so the turn survives a resume."""

    def count_batches(self) -> None:
        self.register_buffer("batches_seen", torch.zeros((), dtype=torch.long))

    def training_step(self, batch: Batch, batch_idx: int):
        super().training_step(batch, batch_idx)
        self.batches_seen += 1

    def read_selection(self, step: Step, selector: str):
        """The model's views of this step's selection, drawn without gradients when the phase detaches
        ``selector`` (the players that do not train it read a sample they cannot move)."""
        with torch.no_grad() if step.phase.detaches(selector) else nullcontext():
            selection = self.select(step.batch)
        return self.read(step.batch, selection)
