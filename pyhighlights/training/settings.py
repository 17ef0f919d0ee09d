"""Trainer settings: the ``trainer`` config group, typed like every component."""
from __future__ import annotations

import os
from typing import ClassVar, Literal

from pyhighlights.registry import Configuration, Param, ParameterHolder, Real, kind


class TrainerConfig(Configuration):
    # Any other lightning.Trainer argument is accepted under trainer. (see training/lightning_args.py).
    open_keys: ClassVar[bool] = True

    max_epochs: int = Param(8, ge=1)
    batch_size: int = Param(32, ge=1, description="the reference scripts use 256; experiment configs set it")
    eval_batch_size: int | None = Param(None, ge=1, description="null = batch_size")
    accelerator: str = Param("cpu", pattern="^(cpu|gpu|cuda|mps|auto)$")
    devices: int = Param(1, ge=1)
    num_nodes: int = Param(1, ge=1)
    strategy: str = Param("auto", description="Lightning strategy: auto, ddp, ddp_spawn, ...")
    precision: str = Param("32-true", pattern="^(32-true|32|16-mixed|bf16-mixed|bf16-true|64-true)$")
    monitor: str = Param("val/loss", description="quantity for best checkpoint and early stopping")
    mode: Literal["min", "max"] = Param("min")
    monitor_ties: Literal["earliest", "latest"] = Param(
        "earliest", description="which of the epochs that equal the best `monitor` value is tested (selection "
                                "monitor): earliest = the first to reach it (Lightning's rule); latest = the last, "
                                "which matters for a saturating monitor such as val/accuracy at 1.000")
    patience: int = Param(0, ge=0, description="early-stopping patience in epochs, 0 = off")
    num_threads: int | None = Param(None, ge=1, description="torch CPU threads per process; null = OMP_NUM_THREADS or 1")
    num_workers: int = Param(0, ge=0, description="DataLoader worker processes")
    limit_train_batches: float = Real(1.0, gt=0.0)
    limit_val_batches: float = Real(1.0, gt=0.0)
    log_every_n_steps: int = Param(10, ge=1)
    progress_bar: bool | None = Param(None, description="null = on in a terminal; off: one line per epoch")
    deterministic: bool = Param(False)
    save_checkpoints: bool = Param(True, description="keep the best checkpoint and last.ckpt (resume) under checkpoints/")
    checkpoint_every_n_steps: int = Param(0, ge=0, description="also write last.ckpt every N training batches "
                                                             "within an epoch; 0 = at epoch ends only")
    evaluation_draws: int = Param(5, ge=1, description="seeded test passes averaged when the model samples at "
                                                       "evaluation (a deterministic model is tested once)")
    selection: Literal["auto", "monitor", "accuracy_in_band", "feasible"] = Param(
        "auto", description="which checkpoint is tested: monitor = best `monitor`; accuracy_in_band = the G-RAT "
                            "reference rule (dev accuracy beats the previous epoch's, dev selection rate within "
                            "s +- selection_band); feasible = best `monitor` among the epochs whose dev "
                            "selection rate is within s +- selection_tolerance (for a sparsity constraint); auto = "
                            "feasible when the model's sparsity term is a constraint "
                            "(model.losses.sparsity.mode=constraint), monitor otherwise")
    selection_band: float = Real(0.035, gt=0.0, description="half-width of the selection-rate band "
                                                            "(reference: run_guide.py, 0.035)")
    selection_tolerance: float = Real(0.005, gt=0.0, description="selection=feasible: half-width of the dev "
                                                                 "selection rates counted as on target")
    selection_floor: float = Real(0.8, ge=0.0, le=1.0, description="dev accuracy the first kept epoch must beat "
                                                                    "(reference: run_guide.py --history_performance)")
    selection_target: float | None = Param(None, ge=0.0, le=1.0, description="centre s of the band; null = the "
                                                                               "target of the model's sparsity term")


@kind("trainer")
class TrainerSettings(ParameterHolder):
    """Validated trainer settings (the registered 'trainer' component)."""

    def threads(self) -> int:
        if self.num_threads is not None:
            return self.num_threads
        # torch's default (one thread per core) makes small recurrent models
        # many times slower on shared machines; one thread per process is the
        # safe default, and OMP_NUM_THREADS still wins when set.
        return int(os.environ.get("OMP_NUM_THREADS", "1") or 1)

    def check_accelerator(self) -> None:
        """Refuse a GPU run on a machine without one (before any output is written)."""
        import torch

        if self.accelerator in ("gpu", "cuda") and not torch.cuda.is_available():
            from pyhighlights.config.resolve import ConfigError

            raise ConfigError(f"trainer.accelerator={self.accelerator}: no CUDA GPU is visible to torch on this "
                              f"machine (torch {torch.__version__}); use trainer.accelerator=cpu")
        if self.accelerator in ("gpu", "cuda") and self.devices > torch.cuda.device_count():
            from pyhighlights.config.resolve import ConfigError

            raise ConfigError(f"trainer.devices={self.devices}: only {torch.cuda.device_count()} CUDA GPU(s) visible")

    def show_progress(self) -> bool:
        if self.progress_bar is not None:
            return self.progress_bar
        from pyhighlights.training.progress import interactive

        return interactive()
