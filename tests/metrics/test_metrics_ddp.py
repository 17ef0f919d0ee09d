"""Two CPU processes (gloo) each see half the documents; compute() must equal one process on all."""
from __future__ import annotations

import datetime
import os

import torch
import torch.distributed as dist
from metrics_test_helpers import assert_close_dict, make_documents, pad_documents
from forked_ranks import run_ranks

from pyhighlights.metrics import (
    AOPCFaithfulness,
    Faithfulness,
    HighlightAUPRC,
    IouF1,
    RationaleMetrics,
    aopc_faithfulness,
    aopc_probabilities,
    faithfulness_scores,
    highlight_auprc,
    highlight_macro_scores,
    highlight_scores,
    iou_f1_scores,
    sparsity_scores,
    task_scores,
)

WORLD_SIZE = 2
NUM_CLASSES = 3


def _probabilities(batch, seed):
    """Three deterministic [B, C] probability tensors, one row per document."""
    generator = torch.Generator().manual_seed(seed)
    return [torch.softmax(torch.randn(batch["labels"].shape[0], NUM_CLASSES, generator=generator), 1) for _ in range(3)]


def _toy_prob_fn(mask):
    """A fixed 'model' for AOPC: logits from how many words of each residue class are kept."""
    positions = torch.arange(mask.shape[1])
    counts = torch.stack([(mask.double() * (positions % NUM_CLASSES == c)).sum(1) for c in range(NUM_CLASSES)], 1)
    return torch.softmax(counts * 0.3, dim=1)


def _single_process_values(documents):
    """All documents in one batch, through the functional forms (no sync involved)."""
    batch = pad_documents(documents)
    sel, hl, wm = batch["selection"], batch["highlights"], batch["word_mask"]
    values = dict(task_scores(batch["logits"], batch["labels"], NUM_CLASSES))
    values.update({f"highlight_{k}": v for k, v in highlight_scores(sel, hl, wm).items()})
    values.update({f"highlight_{k}": v for k, v in highlight_macro_scores(sel, hl, wm).items()})
    values.update(sparsity_scores(sel, wm))
    values.update(iou_f1_scores(sel, hl, wm))
    values["auprc"] = highlight_auprc(batch["scores"], hl, wm)
    values.update(faithfulness_scores(*_probabilities(batch, seed=0)))
    values.update(aopc_faithfulness(_toy_prob_fn, batch["scores"], wm))
    return values


def _worker(rank: int, init_file: str) -> None:
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo",
        init_method=f"file://{init_file}",
        rank=rank,
        world_size=WORLD_SIZE,
        timeout=datetime.timedelta(seconds=60),
    )
    try:
        documents = make_documents(30, seed=7)
        expected = _single_process_values(documents)
        # The probabilities are drawn per document on the full batch, so each
        # rank takes its rows from there to see the same values.
        all_probabilities = _probabilities(pad_documents(documents), seed=0)

        rationale, iou, auprc = RationaleMetrics(NUM_CLASSES), IouF1(), HighlightAUPRC()
        faithful, aopc = Faithfulness(), AOPCFaithfulness()
        mine = list(range(rank, len(documents), WORLD_SIZE))  # interleaved halves
        for chunk in (mine[:4], mine[4:]):  # two uneven batches per rank
            batch = pad_documents([documents[i] for i in chunk])
            sel, hl, wm = batch["selection"], batch["highlights"], batch["word_mask"]
            rationale.update(sel, hl, wm, batch["logits"], batch["labels"])
            iou.update(sel, hl, wm)
            auprc.update(batch["scores"], hl, wm)
            faithful.update(*(p[chunk] for p in all_probabilities))
            aopc.update(*aopc_probabilities(_toy_prob_fn, batch["scores"], wm))

        values = dict(rationale.compute())
        values.update(iou.compute())
        values["auprc"] = auprc.compute()
        values.update(faithful.compute())
        values.update(aopc.compute())
        assert_close_dict(values, expected)
        # the local state is restored after the synced compute: rank-local counts
        assert rationale["task"].confusion.sum().item() == len(mine)
    finally:
        dist.destroy_process_group()


def test_two_process_gloo_equals_single_process(tmp_path):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    run_ranks(_worker, (str(tmp_path / "rendezvous"),), nprocs=WORLD_SIZE)
