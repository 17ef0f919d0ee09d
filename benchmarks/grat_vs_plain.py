"""G-RAT in pyhighlights against a plain PyTorch loop of the reference's computation, per phase, as ratios.

Run by hand (never as a timed test), one thread:

    OMP_NUM_THREADS=1 python benchmarks/grat_vs_plain.py [--batches 4] [--batch-size 256] [--rounds 2] [--ddp]

Reference workload: synthetic Beer, embedding 100, BiGRU 200, batch 256, max length 256, G-RAT's registered
defaults (the reference's arithmetic). Both sides train on the same documents in this one process; the phases
(guider-only epoch, joint epoch, evaluation) alternate plain / ours / ours with ``layout=packed`` in each round,
and the medians over rounds are printed as samples/s and as ours / plain. Peak memory is the growth of the peak
resident set (Linux VmHWM, reset after loading) over one guider step, one joint step and one evaluation, each
side in a fresh process (memory does
not depend on the machine's load, time does). ``--ddp`` adds two gloo processes against one on the same global
batch. ``--tiny`` shrinks everything to a smoke run (the test suite runs it).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import lightning.pytorch as pl  # noqa: E402
import torch  # noqa: E402
from plain_grat import PlainGRAT, settings_of  # noqa: E402

from pyhighlights.config.compose import compose_config  # noqa: E402
from pyhighlights.training.run import Experiment, resolve_specs  # noqa: E402

PHASES = ("guider-only epoch", "joint epoch", "evaluation")


def experiment(args, *extra: str, batch_size: int | None = None) -> Experiment:
    dims = ["embeddings.dim=100", "backbone.hidden_size=200"] if not args.tiny else ["backbone.hidden_size=16"]
    if getattr(args, "kernel", None):
        dims.append(f"backbone.kernel={args.kernel}")
    cfg = compose_config(["model=grat", "model.pretrain_epochs=1",
                          f"trainer.batch_size={batch_size or args.batch_size}",
                          "dataset.max_length=256", "trainer.progress_bar=false", *dims, *extra])
    return Experiment(resolve_specs(cfg))


def batches_of(exp: Experiment, count: int) -> list:
    datamodule = exp.datamodule(0)
    datamodule.setup()
    return [b for _, b in zip(range(count), datamodule.train_dataloader())]


class ListData(pl.LightningDataModule):
    def __init__(self, batches):
        super().__init__()
        self.batches = batches

    def _loader(self):
        return torch.utils.data.DataLoader(self.batches, batch_size=None, collate_fn=lambda x: x)

    train_dataloader = val_dataloader = _loader


class EpochClock(pl.Callback):
    def __init__(self):
        self.seconds: list[float] = []

    def on_train_epoch_start(self, trainer, pl_module):
        self.start = time.perf_counter()

    def on_train_epoch_end(self, trainer, pl_module):
        self.seconds.append(time.perf_counter() - self.start)


def trainer(epochs: int, callbacks=(), **kw) -> pl.Trainer:
    return pl.Trainer(max_epochs=epochs, accelerator="cpu", logger=False, enable_checkpointing=False,
                      enable_progress_bar=False, enable_model_summary=False, limit_val_batches=0,
                      num_sanity_val_steps=0, use_distributed_sampler=False, callbacks=list(callbacks), **kw)


def ours(exp: Experiment, batches) -> dict[str, float]:
    """Seconds per phase through the Lightning trainer: epoch 0 trains the guider alone, epoch 1 both halves."""
    pl.seed_everything(0, verbose=False)
    model, clock = exp.model(), EpochClock()
    trainer(2, [clock]).fit(model, datamodule=ListData(batches))
    start = time.perf_counter()
    pl.Trainer(accelerator="cpu", logger=False, enable_progress_bar=False, enable_model_summary=False).validate(
        model, dataloaders=ListData(batches).val_dataloader(), verbose=False)
    return dict(zip(PHASES, [*clock.seconds, time.perf_counter() - start]))


def plain(exp: Experiment, batches) -> dict[str, float]:
    """Seconds per phase of the plain loop, built with our G-RAT's sizes, embeddings and hyper-parameters."""
    ours_model = exp.model()
    encoder = ours_model.selector_encoder
    torch.manual_seed(0)
    model, seconds = PlainGRAT(encoder.embedding.weight.detach(), hidden=encoder.output_size,
                               **settings_of(ours_model)), {}
    inputs = [(b.input_ids, b.attention_mask.float(), b.labels) for b in batches]
    for phase, step in zip(PHASES, (model.guider_step, model.joint_step, model.evaluate)):
        start = time.perf_counter()
        for ids, mask, labels in inputs:
            step(ids, mask, labels)
        seconds[phase] = time.perf_counter() - start
    return seconds


def peak_child(args, side: str) -> float:
    """Peak-RSS growth (MB) of ``side`` over one step of each phase, in a fresh process."""
    command = [sys.executable, __file__, "--memory-child", side, "--batch-size", str(args.batch_size),
               *(["--kernel", args.kernel] if args.kernel else [])]
    output = subprocess.run(command + (["--tiny"] if args.tiny else []), capture_output=True, text=True, check=True)
    return json.loads(output.stdout.strip().splitlines()[-1])["peak_growth_mb"]


def status_mb(field: str) -> float:
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(field + ":")) / 1024


def memory_child(args) -> None:
    packed = args.memory_child == "ours-packed"
    exp = experiment(args, *(["layout=packed"] if packed else []))
    batches = batches_of(exp, 1)
    # Loading the corpus peaks above one training step; Linux resets the peak (VmHWM) to the current resident set
    # when "5" is written to clear_refs, so the growth below is the step's own.
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    before = status_mb("VmRSS")
    if args.memory_child == "plain":
        plain(exp, batches)
    else:
        ours(exp, batches)
    growth = status_mb("VmHWM") - before
    print(json.dumps({"peak_growth_mb": growth}))


def ddp_efficiency(args) -> str:
    """Joint-epoch time of one process on the global batch against two gloo processes on half of it each."""
    from gpu import timed_fit  # the same two-epoch timing, spawned processes included

    one_exp, two_exp = experiment(args), experiment(args, batch_size=args.batch_size // 2)
    one, _ = timed_fit(one_exp, batches_of(one_exp, args.batches), "32-true", "cpu", devices=1)
    # Each process reads the same list of half-size batches: the global batch stays the same.
    two, _ = timed_fit(two_exp, batches_of(two_exp, args.batches), "32-true", "cpu", devices=2)
    return (f"DDP on CPU (gloo, joint epoch, global batch {args.batch_size}): one process {one:.1f} s, two "
            f"{two:.1f} s, efficiency {one / (2 * two):.2f} (1.00 = linear; {os.cpu_count()} cores shared)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tiny", action="store_true", help="smoke run: hidden 16, the corpus's own vectors")
    parser.add_argument("--ddp", action="store_true", help="also two gloo processes against one")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--kernel", choices=("torch", "fused"), help="our recurrent backbones' GRU kernel "
                                                                     "(backbone.kernel; default: the registered one)")
    parser.add_argument("--memory-child", choices=("plain", "ours", "ours-packed"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    if args.memory_child:
        return memory_child(args)
    reference, packed = experiment(args), experiment(args, "layout=packed")
    batches, packed_batches = batches_of(reference, args.batches), batches_of(packed, args.batches)
    samples = sum(b.size for b in batches)
    width = lambda bs: sum(b.input_ids.shape[1] for b in bs) / len(bs)  # noqa: E731
    print(f"{len(batches)} batches of {args.batch_size} ({samples} samples), GRU kernel "
          f"{reference.specs.backbone.get('kernel', 'torch')}, threads {torch.get_num_threads()}, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; mean padded width: reference layout "
          f"{width(batches):.0f}, packed {width(packed_batches):.0f}")
    plain(reference, batches[:1])  # warm-up of both sides' kernels
    runs = {"plain": [], "ours": [], "ours packed": []}
    for _ in range(args.rounds):
        runs["plain"].append(plain(reference, batches))
        runs["ours"].append(ours(reference, batches))
        runs["ours packed"].append(ours(packed, packed_batches))
    rate = {side: {p: samples / statistics.median(r[p] for r in rs) for p in PHASES} for side, rs in runs.items()}
    print(f"{'samples/s (median of ' + str(args.rounds) + ')':28s}" + "".join(f"{p:>20s}" for p in PHASES))
    for side in runs:
        print(f"{side:28s}" + "".join(f"{rate[side][p]:20.1f}" for p in PHASES))
    for side in ("ours", "ours packed"):
        print(f"{side + ' / plain':28s}" + "".join(f"{rate[side][p] / rate['plain'][p]:19.2f}x" for p in PHASES))
    if not args.no_memory:
        peaks = {side: peak_child(args, side) for side in ("plain", "ours", "ours-packed")}
        print("peak RSS growth over one step per phase (MB): " + ", ".join(f"{s} {m:.0f}" for s, m in peaks.items())
              + (f"; ours / plain {peaks['ours'] / peaks['plain']:.2f}, packed / plain "
                 f"{peaks['ours-packed'] / peaks['plain']:.2f}" if peaks["plain"] > 0 else
                 " (too small to measure: the peak was reached while loading)"))
    if args.ddp:
        print(ddp_efficiency(args))


if __name__ == "__main__":
    main()
