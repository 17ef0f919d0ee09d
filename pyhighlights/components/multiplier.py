"""A Lagrange multiplier for a constraint on the selection rate, updated by dual ascent.

Bastings, Aziz and Titov (ACL 2019, *Interpretable Neural Predictions with
Differentiable Binary Variables*) replace a fixed sparsity weight by a
multiplier λ of the constraint ``rate - s``: the model minimises
``task + λ·(rate - s)`` while λ follows the smoothed violation. Their code
(bastings/interpretable_predictions, ``latent_rationale/beer/models/latent.py``
``get_loss``; defaults in ``latent_rationale/beer/util.py``), per step:

    c_hat = rate - s                                   (the batch's violation)
    c_ma  = α·c_ma + (1 - α)·c_hat                     (α 0.5, c_ma starts at 0)
    λ     = clamp(λ·exp(lr·c_ma), λ_min, λ_max)         (lr 0.05, λ from 1e-5, [1e-12, 5])

That update keeps λ > 0, so it enforces ``rate <= s`` only: a selector that
selects too little is left alone (the inequality HardKuma's L0 constraint
states). We want the rate *at* the target, an equality constraint, whose
multiplier has no sign: ``update="additive"`` (our default) is plain dual
ascent on ``L = task + λ·(rate - s)``, ``λ <- λ + lr·c_ma`` (∂L/∂λ is the
violation), clamped to [-λ_max, λ_max]; λ turns negative when the selection
is too sparse and then rewards selecting. ``update="multiplicative"`` is the
reference's one-sided update. Its learning rate 0.05 is a relative step; the
additive default 0.2 is our choice, not tuned (README, "Sparsity: a penalty
or a constraint", has what it measured).

Departures from the reference, each forced by running inside any model:
λ is updated once per training batch, at the start of the next one, from
the mean violation of every evaluation of the term in that batch (MGR's
generators, MCD's two phases), averaged over processes; so a batch's loss
reads the λ of the batches before it (the reference updates λ first, inside
the loss, from the batch's own violation). The state is plain floats, saved
in checkpoints.

``proportional`` (ours, default 0): the λ a loss uses is ``λ + kp·c_ma``, the proportional part of
Stooke, Achiam and Abbeel's PID Lagrangian (ICML 2020, *Responsive Safety in Reinforcement Learning by PID
Lagrangian Methods*): dual ascent is the integral part alone, and a violation that lasts while the
selection cannot yet follow (a threshold rate that lags the sample) winds λ far beyond the value that holds
the rate once it can; the proportional part pushes as hard at once, with a slower integral, and vanishes as
the violation does. Clamped with λ to the bound.

``warmup`` and ``warmup_epochs`` (ours): the first ``warmup`` updates, and
``warmup_epochs`` epochs' worth of them more (the epoch's length in batches
is told by :meth:`set_epoch_length` when training starts), drop their
violation, λ and the average stay put. A threshold-evaluated selector's rate
lags its sampled rate while the keep probabilities are diffuse; integrating
that early deficit winds λ up and the rate overshoots once they sharpen.
"""
from __future__ import annotations

import math
from typing import Literal

import torch
import torch.distributed as dist

Update = Literal["additive", "multiplicative"]

#: The reference's lower bound of λ for its multiplicative update (``--lambda_min``).
MULTIPLICATIVE_FLOOR = 1e-12


def world_size() -> int:
    """The number of training processes (1 outside DDP). A term summed over its batch is multiplied by it:
    DDP averages gradients, so the average of the processes' scaled sums is the sum over the global batch."""
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def process_sums(*values: float) -> list[float]:
    """Each of ``values`` summed over the processes (themselves on one process), in one all-reduce; every
    process must call it."""
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return list(values)
    device = torch.device("cuda", torch.cuda.current_device()) if dist.get_backend() == "nccl" else torch.device("cpu")
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    return tensor.tolist()


class RateMultiplier:
    """λ and the moving average of the violation; :meth:`record` violations during a training batch,
    :meth:`update` at the start of the next."""

    def __init__(self, *, lr: float, init: float, decay: float, bound: float, update: Update, warmup: int = 0,
                 warmup_epochs: int = 0, proportional: float = 0.0):
        if warmup < 0:
            raise ValueError(f"multiplier warmup: expected a number of training batches >= 0, got {warmup}")
        if warmup_epochs < 0:
            raise ValueError(f"multiplier warmup_epochs: expected a number of epochs >= 0, got {warmup_epochs}")
        if update not in ("additive", "multiplicative"):
            raise ValueError(f"multiplier update: expected additive or multiplicative, got {update!r}")
        if proportional < 0:
            raise ValueError(f"multiplier proportional gain: expected a number >= 0, got {proportional}")
        if proportional and update != "additive":
            raise ValueError("multiplier proportional gain: only with the additive update (λ of either sign)")
        if update == "multiplicative" and init <= 0:
            raise ValueError(f"multiplicative update: the initial multiplier must be > 0, got {init}")
        self.lr, self.decay, self.bound, self.rule = lr, decay, bound, update
        self.integral = float(init)  # dual ascent's λ, the integral part
        self.proportional = float(proportional)
        self.average = 0.0
        self.warmup, self.steps = int(warmup), 0  # steps: the updates with a violation so far
        self.warmup_epochs, self.epoch_length = int(warmup_epochs), None
        self.violation: float | None = None  # the last update's violation (before the moving average)
        self._pending: list[float | torch.Tensor] = []
        self._shared: float | None = None  # a restored checkpoint's pending violation, already averaged

    def set_epoch_length(self, batches: int) -> None:
        """The training batches of one epoch (on this process), which ``warmup_epochs`` counts in."""
        if batches < 1:
            raise ValueError(f"multiplier epoch length: expected at least one training batch, got {batches}")
        self.epoch_length = int(batches)

    @property
    def warmup_steps(self) -> int:
        """The updates that drop their violation: ``warmup`` plus ``warmup_epochs`` epochs of batches."""
        if self.warmup_epochs and self.epoch_length is None:
            raise RuntimeError("multiplier warmup_epochs: the epoch's length is not known (set_epoch_length is called "
                               "when training starts)")
        return self.warmup + self.warmup_epochs * (self.epoch_length or 0)

    def record(self, violation: float | torch.Tensor) -> None:
        """One evaluation's violation ``rate - s`` in the current training step (a tensor is read at the update,
        so a step waits for the device once)."""
        self._pending.append(violation.detach() if isinstance(violation, torch.Tensor) else float(violation))

    def update(self) -> bool:
        """Fold the violations recorded since the last update into λ; False (nothing changed) when none was
        recorded on any process.

        Under DDP every process calls it once per step: the violation is averaged over processes first, so
        every process holds the same λ.
        """
        violation = self._mean_over_processes()
        if violation is None:
            return False
        self.violation = violation
        self.steps += 1
        if self.steps <= self.warmup_steps:
            # still warming up: the violation is dropped, so neither λ nor the moving average moves
            return True
        self.average = self.decay * self.average + (1.0 - self.decay) * violation
        if self.rule == "additive":
            self.integral = min(max(self.integral + self.lr * self.average, -self.bound), self.bound)
        else:
            self.integral = min(max(self.integral * math.exp(self.lr * self.average), MULTIPLICATIVE_FLOOR),
                                self.bound)
        return True

    @property
    def value(self) -> float:
        """The λ a loss uses: the integral plus the proportional part (0 unless ``proportional``), within the
        bound."""
        return min(max(self.integral + self.proportional * self.average, -self.bound), self.bound)

    def _mean_over_processes(self) -> float | None:
        """The violations recorded since the last update, averaged here and then over the processes that
        recorded any (all of them, in every model here); consumed. None when no process recorded one."""
        pending, self._pending = self._pending, []
        shared, self._shared = self._shared, None
        if shared is not None and not pending:  # restored from a checkpoint: already the mean, on every process
            return shared
        local = float(sum(pending)) / len(pending) if pending else 0.0
        total, counted = process_sums(local, 1.0 if pending else 0.0)
        return None if counted == 0.0 else total / counted

    def state_dict(self, shared: bool = False) -> dict:
        """Plain numbers (a checkpoint loads with ``weights_only``): λ, the average, the violations not yet
        folded in. ``shared`` (every process calls it together, as a checkpoint is written): those violations
        as their mean over processes, the one number every process of a resumed run folds in."""
        state = {"multiplier": self.integral, "average": self.average, "steps": self.steps}
        if not shared:
            return {**state, "pending": [float(v) for v in self._pending]}
        pending, restored = list(self._pending), self._shared
        mean = self._mean_over_processes()
        self._pending, self._shared = pending, restored  # training goes on: the update still folds them in
        return {**state, "pending": [] if mean is None else [mean], "pending_shared": True}

    def load_state_dict(self, state: dict) -> None:
        self.integral, self.average = float(state["multiplier"]), float(state["average"])
        self.steps = int(state.get("steps", 0))  # a checkpoint from before warm-up existed counts from 0
        pending = [float(v) for v in state.get("pending", [])]
        if state.get("pending_shared"):
            self._pending, self._shared = [], (pending[0] if pending else None)
        else:
            self._pending, self._shared = pending, None
