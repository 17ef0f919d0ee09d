"""GPU benchmark: G-RAT, FR and RNP at the reference dimensions in fp32, bf16-mixed and 16-mixed.

    bash benchmarks/gpu.sh [OUTPUT_FILE]          # on a CUDA machine, under 10 minutes
    python benchmarks/gpu.py --dry-run            # on CPU: tiny sizes, two steps, fp32 only (the test suite runs it)

Per model and precision: samples/s over a timed epoch after a warm-up epoch on the same batches, peak GPU memory
(``torch.cuda.max_memory_allocated``) and the speed-up over fp32. Then the ``gpu``-marked tests, and, with two
GPUs, DDP scaling: two GPUs on half the batch each against one GPU on the whole batch (same global batch,
efficiency = one GPU's epoch time / (2 x two GPUs' epoch time), 1.00 = linear).
Everything goes to one output file (and stdout).
Without a CUDA GPU (and without ``--dry-run``) it says so and exits with status 2.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import lightning.pytorch as pl
import torch

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import Experiment, resolve_specs

MODELS = ("grat", "fr", "rnp")
PRECISIONS = ("32-true", "bf16-mixed", "16-mixed")
REFERENCE_DIMS = ["embeddings.dim=100", "backbone.hidden_size=200", "dataset.max_length=256"]


class ListData(pl.LightningDataModule):
    def __init__(self, batches):
        super().__init__()
        self.batches = batches

    def train_dataloader(self):
        return torch.utils.data.DataLoader(self.batches, batch_size=None, collate_fn=lambda x: x)


class EpochClock(pl.Callback):
    """Seconds per training epoch; rank 0 also writes them to ``path`` (spawned DDP processes cannot return them)."""

    def __init__(self, cuda: bool, path: str | None = None):
        self.cuda, self.path, self.seconds = cuda, path, []

    def _sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def on_train_epoch_start(self, trainer, pl_module):
        self._sync()
        self.start = time.perf_counter()

    def on_train_epoch_end(self, trainer, pl_module):
        self._sync()
        self.seconds.append(time.perf_counter() - self.start)
        if self.path and trainer.global_rank == 0:
            with open(self.path, "w") as handle:
                handle.write(" ".join(map(str, self.seconds)))


def experiment(model: str, batch_size: int, dims: list[str]) -> Experiment:
    extra = ["model.pretrain_epochs=0"] if model == "grat" else []
    cfg = compose_config([f"model={model}", f"trainer.batch_size={batch_size}", "trainer.progress_bar=false",
                          *dims, *extra])
    return Experiment(resolve_specs(cfg))


def batches_of(exp: Experiment, count: int) -> list:
    datamodule = exp.datamodule(0)
    datamodule.setup()
    return [b for _, b in zip(range(count), datamodule.train_dataloader())]


def timed_fit(exp: Experiment, batches, precision: str, accelerator: str, devices: int = 1) -> tuple[float, float]:
    """(seconds of the second epoch, peak GPU memory in MB) for one fit of two epochs over ``batches``."""
    pl.seed_everything(0, verbose=False)
    cuda = accelerator == "gpu"
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    clock = EpochClock(cuda, path=f"{os.getpid()}.epoch_seconds.tmp" if devices > 1 else None)
    trainer = pl.Trainer(max_epochs=2, accelerator=accelerator, devices=devices, precision=precision, logger=False,
                         strategy="ddp_spawn" if devices > 1 else "auto", enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, limit_val_batches=0,
                         num_sanity_val_steps=0, use_distributed_sampler=False, callbacks=[clock])
    trainer.fit(exp.model(), datamodule=ListData(batches))
    peak = torch.cuda.max_memory_allocated() / 2**20 if cuda else float("nan")
    if clock.path:  # the epochs ran in spawned processes
        with open(clock.path) as handle:
            clock.seconds = [float(x) for x in handle.read().split()]
        os.remove(clock.path)
    return clock.seconds[-1], peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", default="gpu_benchmark.txt")
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny sizes, two steps, fp32 only")
    parser.add_argument("--skip-tests", action="store_true", help="do not run the gpu-marked tests")
    args = parser.parse_args()
    lines: list[str] = []

    def report(line: str) -> None:
        print(line, flush=True)
        lines.append(line)
        with open(args.output, "w") as handle:  # rewritten each line: a killed run keeps what it measured
            handle.write("\n".join(lines) + "\n")

    if not args.dry_run and not torch.cuda.is_available():
        print("benchmarks/gpu.py: no CUDA GPU is visible (torch.cuda.is_available() is False); nothing measured. "
              "Run it on a CUDA machine, or pass --dry-run for the CPU smoke path.", file=sys.stderr)
        return 2
    accelerator = "cpu" if args.dry_run else "gpu"
    precisions = ("32-true",) if args.dry_run else PRECISIONS
    batch_size, count = (8, 2) if args.dry_run else (args.batch_size, args.batches)
    dims = ["backbone.hidden_size=16", "dataset.max_length=64"] if args.dry_run else REFERENCE_DIMS
    device = "CPU dry run" if args.dry_run else torch.cuda.get_device_name(0)
    report(f"# {device}; torch {torch.__version__}; batch {batch_size}, {count} timed batches after a warm-up epoch")
    report(f"{'model':6s} {'precision':11s} {'samples/s':>10s} {'peak MB':>9s} {'speed-up':>9s}")
    for model in MODELS:
        exp = experiment(model, batch_size, dims)
        batches = batches_of(exp, count)
        samples = sum(b.size for b in batches)
        base = None
        for precision in precisions:
            seconds, peak = timed_fit(exp, batches, precision, accelerator)
            rate = samples / seconds
            base = base or rate
            shown = "n/a" if peak != peak else f"{peak:.0f}"  # no GPU memory to report on the CPU dry run
            report(f"{model:6s} {precision:11s} {rate:10.1f} {shown:>9s} {rate / base:8.2f}x")
    if not args.dry_run and not args.skip_tests:
        tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "gpu", "-p", "no:cacheprovider", "tests"],
                               capture_output=True, text=True)
        report("# gpu-marked tests: " + (tests.stdout.strip().splitlines() or ["(no output)"])[-1])
    if not args.dry_run and torch.cuda.device_count() >= 2:
        exp_one = experiment("grat", batch_size, dims)
        exp_two = experiment("grat", batch_size // 2, dims)
        one, _ = timed_fit(exp_one, batches_of(exp_one, count), "32-true", "gpu", devices=1)
        # Each of the two processes reads the same list of half-size batches: the global batch stays batch_size.
        two, _ = timed_fit(exp_two, batches_of(exp_two, count), "32-true", "gpu", devices=2)
        report(f"# DDP (G-RAT, fp32, global batch {batch_size}): one GPU {one:.2f} s/epoch, two {two:.2f} s/epoch, "
               f"efficiency {one / two / 2:.2f}")
    elif not args.dry_run:
        report("# DDP scaling: skipped, only one GPU visible")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
