"""explain.py throughput: documents/s of Integrated Gradients along three paths, on one thread.

Run by hand (never as a timed test), one thread, on a trained run:

    python scripts/train.py model=grat trainer.max_epochs=3 model.pretrain_epochs=1 hydra.run.dir=runs/grat3
    OMP_NUM_THREADS=1 python benchmarks/explain_throughput.py runs/grat3 [--documents 32] [--batch-size 16]

All paths explain the same first ``--documents`` test documents with the same
method settings (explain.py's defaults: 20 Gauss-Legendre steps, infidelity 10
samples, max sensitivity 3 samples) and score them the same way:

- **one document per batch, captum**: the first explain.py: one document per
  batch, infidelity and max sensitivity through ``captum.metrics`` (which
  explains the unperturbed document once more);
- **batched, captum**: ``--batch-size`` documents per batch, all their
  integration steps in one captum call, the robustness metrics around the
  scores already computed (``method.recurrent_shortcut=false``);
- **batched, GRU shortcut**: explain.py's path now; for a one-layer GRU
  backbone the steps go through the linear input projection
  (:mod:`pyhighlights.explain.recurrent_ig`: input gates built one time step
  at a time, the backward summing over the integration steps as it goes,
  about 160 rows a pass), the max-sensitivity perturbations without the
  convergence delta and its two forward passes, the full input's
  probabilities computed once per batch, and the dozen masks the
  faithfulness scores ask about answered from one stacked forward pass.

``--floor`` prints, instead of timing, the matrix products the GRU shortcut
needs for the whole test split at explain.py's defaults and this machine's
rate for one of them: a lower bound on the command's CPU time (the
recurrence's elementwise work, which a pass of 160 rows spends twice as long
on as on its matrix products, comes on top).

Measured (README, "Throughput"): IG alone on 32 documents 3.1 -> 2.6 CPU s
from the recurrence's per-step gates; the whole explain.py command 162.6 s
(before) against 158.0 s user CPU (now) side by side on a machine at load 10.

The two batched paths run within :func:`~pyhighlights.explain.heap.heap_kept`,
as explain.py runs them; the first path runs as the first explain.py did.

``--kernel torch|fused`` sets the recurrent backbones' GRU kernel (``backbone.kernel``), which the
captum paths differentiate through; the GRU shortcut has its own recurrence and does not use it.

``--no-robustness`` times the attribution and the plausibility/faithfulness
scoring alone. Everything runs in this one process; CPU seconds are printed
beside wall seconds, since on a shared machine they depend much less on the
load (the ratios are given for both).
"""
from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

from pyhighlights.evaluation.restore import RestoredRun  # noqa: E402
from pyhighlights.evaluation.scores import model_probabilities  # noqa: E402
from pyhighlights.explain.explain import ExplanationRun, explain_batch  # noqa: E402
from pyhighlights.explain.forward import batch_fields  # noqa: E402
from pyhighlights.explain.heap import heap_kept  # noqa: E402
from pyhighlights.explain.methods import make_method  # noqa: E402
from pyhighlights.explain.selection import top_k_selection  # noqa: E402

RATE = 0.15


def before_batch(method, model, batch, state: ExplanationRun, robustness: dict) -> None:
    """The earlier path for one batch: captum's metrics, sensitivity explaining the input once more."""
    from captum.metrics import infidelity, sensitivity_max

    fields = batch_fields(batch)
    keep = batch.word_mask.to(torch.float32)
    with torch.no_grad():
        logits = model.predict(batch, keep)
    target = logits.argmax(dim=-1)
    scores = method(keep, fields, target).scores.detach()
    state.scores.update(batch, top_k_selection(scores, batch.word_mask, RATE), scores, logits,
                        model_probabilities(model, batch))
    if not robustness["infidelity_samples"]:
        return
    drop, radius = robustness["infidelity_drop"], robustness["sensitivity_radius"]

    def dropped(k):
        removed = (torch.rand_like(k) < drop).to(k.dtype) * k
        return removed, k - removed

    state.infidelity.append(infidelity(method.forward.presence, dropped, keep, scores, additional_forward_args=fields,
                                       target=target, n_perturb_samples=robustness["infidelity_samples"],
                                       normalize=True).reshape(-1))

    def explanation(inputs, additional_forward_args, target):
        inputs = inputs[0] if isinstance(inputs, tuple) else inputs
        return (method(inputs, tuple(additional_forward_args), target).scores.detach(),)

    noise = lambda k: k + (torch.rand_like(k) * 2 - 1) * radius * (k > 0).to(k.dtype)  # noqa: E731
    state.sensitivity.append(sensitivity_max(explanation, keep, perturb_func=noise,
                                             n_perturb_samples=robustness["sensitivity_samples"],
                                             additional_forward_args=fields, target=target).reshape(-1))


def timed(label: str, loader, step) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.process_time()
    documents = 0
    for batch in loader:
        with torch.enable_grad():
            step(batch)
        documents += batch.size
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label:<44} {documents} documents in {wall:7.1f} s wall ({cpu:7.1f} CPU s): "
          f"{documents / wall:6.2f} documents/s, {documents / cpu:6.2f} documents per CPU s", flush=True)
    return wall, cpu, documents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a trained run directory (e.g. a short G-RAT run on the embedded corpus)")
    parser.add_argument("--documents", type=int, default=32, help="first N test documents (default 32)")
    parser.add_argument("--batch-size", type=int, default=16, help="documents per batch when batched (default 16)")
    parser.add_argument("--no-robustness", action="store_true", help="skip infidelity and sensitivity")
    parser.add_argument("--skip-first", action="store_true", help="leave out the slow one-document path")
    parser.add_argument("--kernel", choices=("torch", "fused"), help="the recurrent backbones' GRU kernel for "
                                                                     "the captum paths (default: the run's)")
    parser.add_argument("--floor", action="store_true", help="print the recurrence's matrix-product floor for the "
                                                              "whole test split and stop")
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))

    run = RestoredRun(args.run)
    corpus = run.corpus()
    corpus = replace(corpus, test=corpus.test[:args.documents])
    ids = [d.doc_id for d in corpus.test]
    (seed, checkpoint), *_ = run.checkpoints().items()
    model = run.load_model(checkpoint).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    if args.kernel:
        from pyhighlights.components.backbones.recurrent import RecurrentBackbone

        for module in model.modules():
            if isinstance(module, RecurrentBackbone):
                module.kernel = args.kernel
    samples = (0, 0) if args.no_robustness else (10, 3)
    robustness = {"infidelity_samples": samples[0], "infidelity_drop": 0.25, "sensitivity_samples": samples[1],
                  "sensitivity_radius": 0.02}
    captum = make_method("integrated_gradients", model, {"recurrent_shortcut": False})
    shortcut = make_method("integrated_gradients", model, {})
    print(f"{run.model_name} run {run.path} (seed {seed}), integrated_gradients, {len(ids)} test documents, "
          f"{torch.get_num_threads()} thread(s), robustness metrics {'off' if args.no_robustness else 'on'}, "
          f"GRU kernel {args.kernel or 'as trained'}")

    if args.floor:
        gemm_floor(model, run.loader(run.corpus(), "test", model, args.batch_size))
        return
    torch.manual_seed(0)
    timings = time_paths(args, run, corpus, model, ids, robustness, captum, shortcut)
    base = timings.get("first", timings["captum"])
    for name in ("captum", "shortcut"):
        wall, cpu, _ = timings[name]
        print(f"speed-up of {name} over {'one document per batch' if 'first' in timings else 'captum'}: "
              f"{base[0] / wall:.2f}x wall, {base[1] / cpu:.2f}x CPU")


def gemm_floor(model, loader, n_steps: int = 20, calls: int = 4) -> None:
    """The GRU shortcut's matrix products alone, for the whole split: per token row of every integration step,
    each direction runs W_hh h forward and its transpose backward (2 x 2 H x 3H multiply-adds); explain.py's
    defaults make ``calls`` Integrated Gradients per document (the explanation, three max-sensitivity
    perturbations). Printed with this machine's rate for one such product, a lower bound on the time."""
    from pyhighlights.explain.forward import input_backbone

    backbone = input_backbone(model)
    hidden = backbone.forward_layers[0].hidden_size
    directions = 1 + (backbone.backward_layers is not None)
    tokens = sum(batch.attention_mask.numel() for batch in loader)
    flops = calls * n_steps * tokens * directions * 2 * (2 * hidden * 3 * hidden)
    rows = torch.randn(160, hidden)
    weight, out = torch.randn(hidden, 3 * hidden), torch.empty(160, 3 * hidden)
    for _ in range(20):
        torch.mm(rows, weight, out=out)
    cpu = time.process_time()
    for _ in range(200):
        torch.mm(rows, weight, out=out)
    rate = 200 * 2 * 160 * hidden * 3 * hidden / (time.process_time() - cpu)
    print(f"matrix products of the GRU shortcut on the {tokens} padded tokens of the split: {flops / 1e12:.2f} TFLOP; "
          f"at this machine's {rate / 1e9:.0f} GFLOP/s for one 160-row product: {flops / rate:.0f} CPU s at least")


def time_paths(args, run, corpus, model, ids, robustness, captum, shortcut) -> dict:
    timings = {}
    if not args.skip_first:
        state = ExplanationRun(corpus.num_classes)
        timings["first"] = timed("one document per batch, captum", run.loader(corpus, "test", model, 1),
                                 lambda batch: before_batch(captum, model, batch, state, robustness))
    batched = run.loader(corpus, "test", model, args.batch_size)
    for name, method in (("captum", captum), ("shortcut", shortcut)):
        state = ExplanationRun(corpus.num_classes)
        with heap_kept():  # as explain.py runs them (pyhighlights/explain/heap.py)
            timings[name] = timed(f"{args.batch_size} per batch, {name if name == 'captum' else 'GRU shortcut'}",
                                  batched, lambda batch: explain_batch(method, model, batch, RATE, state,
                                                                       doc_ids=ids, **robustness))
    return timings


if __name__ == "__main__":
    main()
