"""G-RAT throughput: the framework against a bare PyTorch loop of the same model, same batches.

Run by hand (never as a timed test), one thread:

    OMP_NUM_THREADS=1 python benchmarks/grat_throughput.py [--batches 8] [--batch-size 256]

Reference workload (DESIGN section 10): synthetic Beer, embedding 100, BiGRU 200,
batch 256, max length 256. Prints samples/s of both, their ratio (framework
overhead), time per phase (guider step, rationaliser step, evaluation), peak
memory, and, side by side, the samples/s of G-RAT's registered (reference)
batching layout -- nn.GRU over random batches padded to their longest -- and of
``layout=packed`` (the GRU within each length, length-bucketed batches).
Everything is measured in this one process, so the ratios hold on a noisy machine.
"""
from __future__ import annotations

import argparse
import os
import resource
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import lightning.pytorch as pl  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from pyhighlights.config.compose import compose_config  # noqa: E402
from pyhighlights.data.batch import Batch  # noqa: E402
from pyhighlights.training.run import Experiment, resolve_specs  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def experiment(batch_size: int, *extra: str) -> Experiment:
    cfg = compose_config(["model=grat", "model.pretrain_epochs=0", f"trainer.batch_size={batch_size}",
                          "dataset.max_length=256", "embeddings.dim=100", "backbone.hidden_size=200",
                          "trainer.progress_bar=false", *extra])
    return Experiment(resolve_specs(cfg))


def first_batches(exp: Experiment, count: int) -> list[Batch]:
    """The first ``count`` training batches as the experiment's data module draws and pads them."""
    datamodule = exp.datamodule(0)
    datamodule.setup()
    return [b for _, b in zip(range(count), datamodule.train_dataloader())]


def bare_step(model, guider_opt, rationaliser_opt, batch: Batch, timings: dict) -> None:
    """One G-RAT step written directly in PyTorch (the yardstick)."""
    start = time.perf_counter()
    read = model.guider(batch.input_ids, batch.attention_mask)
    guider_loss = F.cross_entropy(read.logits, batch.labels)
    guider_opt.zero_grad(set_to_none=True)
    guider_loss.backward()
    guider_opt.step()
    middle = time.perf_counter()
    outputs = model(batch)
    total, _ = model.loss(outputs, scales=model.scales())
    rationaliser_opt.zero_grad(set_to_none=True)
    total.backward()
    rationaliser_opt.step()
    model.rationaliser_steps += 1
    timings["guider"] += middle - start
    timings["rationaliser"] += time.perf_counter() - middle


def run_bare(exp: Experiment, batches: list[Batch]) -> tuple[float, dict]:
    pl.seed_everything(0, verbose=False)
    model = exp.model().train()
    guider_opt, rationaliser_opt = (o for o in model.configure_optimizers())
    timings = {"guider": 0.0, "rationaliser": 0.0}
    start = time.perf_counter()
    for batch in batches:
        bare_step(model, guider_opt, rationaliser_opt, batch, timings)
    return time.perf_counter() - start, timings


class ListData(pl.LightningDataModule):
    def __init__(self, batches):
        super().__init__()
        self.batches = batches

    def train_dataloader(self):
        return torch.utils.data.DataLoader(self.batches, batch_size=None, collate_fn=lambda x: x)


def run_framework(exp: Experiment, batches: list[Batch]) -> float:
    pl.seed_everything(0, verbose=False)
    model = exp.model()
    trainer = pl.Trainer(max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, limit_val_batches=0,
                         num_sanity_val_steps=0, use_distributed_sampler=False)
    start = time.perf_counter()
    trainer.fit(model, datamodule=ListData(batches))
    return time.perf_counter() - start


def evaluation_time(exp: Experiment, batches: list[Batch]) -> float:
    model = exp.model().eval()
    start = time.perf_counter()
    with torch.no_grad():
        for batch in batches:
            model(batch)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    exp = experiment(args.batch_size)  # G-RAT's registered layout: the reference's
    packed = experiment(args.batch_size, "layout=packed")
    batches, packed_batches = first_batches(exp, args.batches), first_batches(packed, args.batches)
    samples = sum(b.size for b in batches)
    assert samples == sum(b.size for b in packed_batches)

    def widths(bs):
        return f"mean {sum(b.input_ids.shape[1] for b in bs) / len(bs):.0f} / max {max(b.input_ids.shape[1] for b in bs)}"

    print(f"{len(batches)} batches of {args.batch_size}, threads {torch.get_num_threads()}; padded widths: "
          f"reference layout {widths(batches)}, packed {widths(packed_batches)}")

    run_bare(exp, batches[:1])  # warm-up
    bare_seconds, phases = run_bare(exp, batches)
    framework_seconds = run_framework(exp, batches)
    eval_seconds = evaluation_time(exp, batches)
    packed_seconds = run_framework(packed, packed_batches)

    bare_rate, framework_rate = samples / bare_seconds, samples / framework_seconds
    print(f"bare PyTorch loop : {bare_rate:8.1f} samples/s")
    print(f"pyhighlights      : {framework_rate:8.1f} samples/s")
    print(f"framework overhead: {bare_rate / framework_rate - 1:+.1%} (target <= +10%)")
    print(f"phases (bare, per batch): guider step {phases['guider'] / len(batches):.3f} s, "
          f"rationaliser step {phases['rationaliser'] / len(batches):.3f} s, "
          f"evaluation {eval_seconds / len(batches):.3f} s")
    print(f"layout (pyhighlights): reference {framework_rate:8.1f} samples/s | packed "
          f"{samples / packed_seconds:8.1f} samples/s | packed speed-up x{framework_seconds / packed_seconds:.2f}")
    print(f"peak memory (process RSS): {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
