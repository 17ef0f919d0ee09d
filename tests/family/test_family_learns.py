"""Behavioural: each model learns a small synthetic corpus within a stated number of steps (seeded, one thread).

Corpus: ``short_learnable_beer_dir`` (synthetic Beer reviews of 20-40 words,
704 balanced training documents, 22 batches of 32 per epoch; 164 test
reviews). Encoders: BiGRU 64 over learned 64d embeddings. Each model gets a
learning rate and loss weights for this scale (not its reference defaults)
and a number of epochs within which it must learn: the test scores the test
split after each epoch and stops at the first epoch that reaches both
minimums (tests/learning_stop.py; the scoring leaves training unchanged), and
fails if the last epoch has not. Batches of 32 rather than 16: on one CPU
thread a recurrent step costs nearly the same for either (its time goes in the
per-word recurrence, not in the batch's width), so an epoch costs about 60 %
as much.
The models otherwise keep their reference arithmetic, except for ``FAST``:
three of our named options (deterministic evaluation, pooling the kept
words, the rate over real words) without which, at this scale, a sampled
evaluation scores one noisy draw and the selector can encode the label in
where it drops words instead of finding the evidence.

Float rounding differs between CPUs, so a seeded run follows a different
trajectory on another machine; seeds stand in for machines here. Every seed
of ``SEEDS`` must pass (seed 0 in the default set, the others with the slow
tests: tests/learning_seeds.py), and each threshold sits well below the worst of
seeds 0-4 on our machine (the observed ranges are next to the thresholds).
For scale: the majority class is 0.58 of the test split (164 reviews), and
selecting 20 % of the words at random scores a highlight F1 of ~0.16.
"""
from __future__ import annotations

import pytest
from family_helpers import experiment, learned_test_scores
from learning_seeds import SEEDS, seed_marks

# Our named options that learn quickly at this scale (the reference arithmetic is the models' default):
FAST = ("model.selector.evaluation=threshold",  # a sampled evaluation scores one noisy draw of short rationales
        # the predictor pools only the kept words: pooling every real word lets it read the label from where
        # the (zeroed) dropped words fall, and the selector learns that code instead of the evidence
        "model.predictor_pool=kept",
        # the rate over real words: with padding counted, the target depends on each batch's padded width
        "model.losses.sparsity.padding=excluded", "model.losses.continuity.padding=excluded")
# layout=packed: our faster batching (GRU within each length, bucketing, batch-longest width), with which the
# thresholds below were measured; the models' defaults are the reference's (nn.GRU over batches padded to 256).
COMMON = ("layout=packed", "backbone.hidden_size=64", "embeddings.dim=64", "trainer.batch_size=32",
          "model.losses.sparsity.weight=1", "model.losses.continuity.weight=1", "model.losses.sparsity.target=0.2")

# MRD with the others' loss weights (lr 0.01, divergence weight 5, 6 epochs) on the 30-60-word corpus in batches
# of 16, scored on a 49-review test split, seeds 0-4: accuracy 0.55-0.86, F1 0.21-0.37. Three causes, three
# settings (the figures are from that corpus unless "here" is said):
# - For about two epochs KL(full || remainder) stays <= 2e-3: while the remainder still carries the label the
#   predictor reads both views alike, so the divergence, the selector's only task signal, is flat and the
#   selector moves under sparsity and continuity alone; it starts to learn only once samples happen to remove
#   the evidence (KL 0.07-0.14 in the third epoch). Here too it learns from the third epoch on (seeds 0-4
#   after the 2nd: accuracy 0.43-0.55, F1 0.01-0.11; after the 3rd, four seeds at 0.91-0.94 and seed 3 at
#   0.56/0.10, which reaches 0.99/0.33 in the 4th): hence 5 epochs, two after the latest start.
# - The scored prediction is the predictor on the rationale, which the reference's phase 1 never trains on
#   (it sees the remainder and the full text): with the full text classified at >= 0.98, the accuracy on the
#   rationale still swung between 0.33 and 0.84 from one epoch to the next. ``task`` in predictor_terms also
#   trains the predictor on the (detached) rationale, so the accuracy measures what the rationale carries.
# - Emptying the remainder also maximises the divergence: at sparsity weight 1 against divergence weight 5 one
#   seed of four kept 42 % of the words (F1 0.25). Weights 2 (quick_mrd's ratio) hold the rate near the target.
MRD = [*FAST, "model.lr=0.02", "model.losses.divergence.weight=5",
       "model.predictor_terms=[remainder_task,full_task,task]",
       "model.losses.sparsity.weight=2", "model.losses.continuity.weight=2"]

# The layouts below were chosen on the 30-60-word corpus in batches of 16, mostly at half of the learning rates
# used here (the figures in their comments are from there); the observed ranges next to ``CASES`` are this
# corpus's.

# DR with the reference layout (FAST only), seeds 0-4: accuracy 0.825-1.000 but F1 0.276-0.761 (two seeds below
# 0.45). Without the selector-path LayerNorm, with the backbone's dropout in the encoders and none before the
# selector head (the layout DR had before it followed its reference), no seed fell below 0.49.
DR_LAYOUT = ["model.layer_norm=none", "model.encoder_dropout=null", "model.selector.dropout=0"]

# MGR with the reference layout (one generator encoder at lr/k, heads at lr·3·(i+1)), seeds 0-1: accuracy
# 0.72-0.75, F1 0.13-0.17 (heads at 0.03 and 0.06 are too fast at this lr). Each generator its own encoder at
# lr·(i+1), the layout MGR had before it followed its reference (one seed of five still at F1 0.24):
MGR_LAYOUT = ["model.shared_generator_encoder=false", "model.generator_lr_scale=1"]

# DAR with the reference layout (FAST only), seeds 0-4: accuracy 0.970-1.000, F1 0.146-0.653 (one seed below
# random). With the teacher in eval mode, no LayerNorms, the backbone's dropout in the encoders and none before
# the selector head (the layout DAR had before it followed its reference): F1 0.602-0.789.
DAR_LAYOUT = ["model.auxiliary_mode=eval", "model.layer_norm=none", "model.encoder_dropout=null",
              "model.selector.dropout=0"]

# MCD on the 30-60-word corpus in batches of 16: at lr 0.015 for 5 epochs it learned on four seeds of five
# (0.825-0.928, F1 0.365-0.423) and collapsed on seed 3 (6 % of the words kept, accuracy 0.54, F1 0.09); at lr
# 0.008 for 8 epochs no seed collapsed. Here, in batches of 32: at lr 0.016 seed 4 had barely begun after 6
# epochs (0.75/0.15; 0.84/0.27 after 8); at lr 0.024 no seed of five collapsed and all learn within 6.

# model -> (overrides, epochs, minimum test accuracy, minimum test highlight F1); epochs is the most a seed may
# train (it stops after the first epoch that reaches both minimums); steps = 22 x epochs (two optimiser steps per
# batch for MCD/MRD). Observed: accuracy and F1 ranges over seeds 0-4 after all the epochs, this machine, torch
# 2.13 CPU.
CASES = {  # costliest first, so that under ``-n 2`` the last one to finish is a short one
    # observed: 0.909-1.000, 0.300-0.825; seed 2 after the 5th epoch was at 0.744/0.232 and after the 7th at
    # 0.854/0.366, so all 8 are needed
    "mgr": ([*FAST, "model.lr=0.02", "model.num_generators=2", *MGR_LAYOUT], 8, 0.8, 0.2),
    # observed: 0.909-1.000, 0.377-0.743 (see MCD above); after the 5th epoch seeds 3 and 4 were still at
    # 0.896/0.327 and 0.848/0.389, so all 6 are needed
    "mcd": ([*FAST, "model.lr=0.024"], 6, 0.8, 0.25),
    # observed: 0.957-1.000, 0.391-0.564 (see MRD above for the epochs)
    "mrd": (MRD, 5, 0.85, 0.28),
    # observed: 0.951-1.000, 0.466-0.889. DR's selection starts late here (its rate stays at 0.11 or below,
    # target 0.2, for the first 6-7 epochs): seeds 2 and 4 after the 7th epoch were at 0.683/0.427 and
    # 0.793/0.503, after the 8th at 0.927/0.629 and 0.939/0.716, so 10 epochs; at lr 0.04 for 6 epochs seed 0
    # ended at 0.665/0.124
    "dr": ([*FAST, "model.lr=0.02", *DR_LAYOUT], 10, 0.85, 0.35),
    # observed: 0.921-1.000, 0.645-0.781; after the 5th epoch seeds 2 and 4 were still at 0.793/0.487 and
    # 0.872/0.504, so all 6 are needed
    "dar": ([*FAST, "model.lr=0.02", "model.auxiliary_epochs=1", *DAR_LAYOUT], 6, 0.85, 0.45),
    # FR with its reference arithmetic (with FAST, on the 30-60-word corpus, one seed of three ended at accuracy
    # 0.40); observed: 0.933-0.988, 0.294-0.523; FR learns gradually (seeds 0-4 after the 6th epoch: 0.799-0.945),
    # so all 8 epochs are needed
    "fr": (["model.lr=0.02", "model.losses.task.weight=1"], 8, 0.85, 0.2),
    # A2R's reference arithmetic (the generator learns through the soft attention alone: hard_from 20 is
    # never reached), one rate for both steps; observed: 0.957-1.000, 0.703-0.844; after the 4th epoch seeds
    # 3 and 4 were at 0.835/0.664 and 0.854/0.599, so all 5 are needed
    "a2r": (["model.lr=0.02", "model.predictor_lr=0.02"], 5, 0.85, 0.55),
    # EVAL-X: 2 epochs of the evaluator alone on random masks (the selector is still untrained at their ends), then
    # the selector alone against the frozen evaluator; continuity at the others' weight 1 (the reference has no
    # such term: at weight 0, with the evaluator in training mode, seeds 3 and 4 ended at 0.896/0.273 and
    # 0.780/0.293). evaluator_mode=eval (ours): the frozen evaluator read without dropout; in the reference's
    # training mode the selector learns against a noisy evaluator: seeds 0-4 ended at 0.701-0.902, 0.323-0.725
    # (seeds 3 and 4 at 0.768/0.357 and 0.701/0.323). Observed after all 6 epochs (14-16 CPU-s a seed): 0.805-0.890
    # (0.890, 0.805, 0.854, 0.823, 0.817), 0.534-0.756 (0.756, 0.685, 0.738, 0.534, 0.551); after the 5th epoch
    # seed 3 was at 0.689/0.263 (0.866/0.561, 0.805/0.620, 0.872/0.606 and 0.787/0.447 for the others), so all 6
    # are needed. With the stop, seeds 0-4 train 5, 4, 4, 6 and 5 epochs (10-13 CPU-s a seed)
    "evalx": ([*FAST, "model.lr=0.02", "model.evaluator_mode=eval"], 6, 0.7, 0.4),
    # NIR (A2R whose hard predictor reads the rationale with words replaced by noise) with A2R's settings; the
    # noise magnitude (0.1) and the proximity weight (0.1) stay the reference's; observed (10-11 CPU-s a seed):
    # 0.848-0.976 (0.976, 0.927, 0.902, 0.860, 0.848), 0.317-0.642 (0.642, 0.397, 0.584, 0.461, 0.317);
    # after 5 epochs seeds 0-2 were at 0.970-0.994 and F1 0.516-0.572 (12 CPU-s a seed)
    "nir": (["model.lr=0.02", "model.predictor_lr=0.02"], 4, 0.8, 0.25),
    # Inter-RAT's reference arithmetic (the confounder dictionary with the Beer prior, the rationale vector summed
    # over the kept count, the per-document terms; the reference's weights 0.05 and 0.01 are for 20 epochs of
    # 256-review batches) with a deterministic evaluation; observed (7-12 CPU-s a seed): 0.909-1.000 (0.909,
    # 0.909, 0.976, 1.000, 0.976), 0.411-0.728 (0.411, 0.620, 0.728, 0.644, 0.597)
    "inter_rat": (["model.lr=0.02", "model.selector.evaluation=threshold"], 4, 0.85, 0.3),
    # N2R (RNP's step, then the selector alone lengthening the predictor's pooled rationale) with DR's older layout
    # (quick_n2r's); observed (29-31 CPU-s a seed over 7 epochs, hence slow): 0.793-1.000 (0.976, 0.933, 0.799,
    # 1.000, 0.793), 0.291-0.744 (0.649, 0.645, 0.320, 0.744, 0.291); after the 6th epoch seeds 2 and 4 were at
    # 0.683/0.230 and 0.762/0.270, so all 7 are needed. The learning rate is narrow: at 0.016 seed 4 stayed at
    # 0.48/0.04 for 7 epochs, at 0.024 seeds 1 and 3 ended at 0.62/0.14 and 0.72/0.19
    "n2r": ([*FAST, "model.lr=0.02", *DR_LAYOUT], 7, 0.7, 0.2),
    # CAR: each batch trains one of the two generators (and the discriminator), so a generator sees half the
    # batches: at 3 epochs (~13 CPU-s a seed) seed 0 ended at accuracy 0.52-0.62 and F1 0.14-0.27 whatever the
    # learning rate (1e-2, 2e-2, 4e-3 with the likelihood term x 3); at 10 epochs (29-33 CPU-s a seed, hence
    # slow) it learns: 0.720-0.884 (0.835, 0.884, 0.884, 0.860, 0.720), 0.289-0.402 (0.337, 0.402, 0.375, 0.341,
    # 0.289). The scored accuracy is ours (the reference reports none): per class t, the discriminator's log p(t)
    # on generator t's rationale; the rationale scored is the gold label's generator's (the reference's validate).
    "car": ([*FAST[1:], "model.lr=0.004"], 10, 0.65, 0.25),
    # DMR with quick_dmr's settings: one teacher epoch (counted in the 12), the Beer-palate and Hotel scripts'
    # weights (cls_lambda 0.9, om_lambda 0.1; Beer appearance's, the default, are 0.1 and 0.9), lr 0.01 for every
    # player. The class-wise game learns slowly and its accuracy swings between epochs (seed 3: 0.738 after the
    # 11th, 0.671 after the 12th), hence the low accuracy minimum (majority 0.58). Observed (51-53 CPU-s a seed
    # over 12 epochs, hence slow): 0.671-0.994 (0.994, 0.902, 0.817, 0.671, 0.799), 0.342-0.556 (0.556, 0.455,
    # 0.374, 0.342, 0.416); the first epoch at both minimums: 4, 6, 8 (F1 0.250) or 10, 9, 9. At lr 0.004 (the
    # teacher at 0.02) with the default 0.1 / 0.9, seed 0 stayed at accuracy 0.41-0.54 for 9 epochs.
    "dmr": ([*FAST[1:], "model.lr=0.01", "model.auxiliary_epochs=1", "model.losses.task.weight=0.9",
             "model.losses.distillation.weight=0.1"], 12, 0.6, 0.25),
    # InvRat on environments drawn at random per class (dataset.environments=2, as quick_invrat: the aware
    # predictor has nothing to exploit, so this is the three-player game learning, not a test of invariance), the
    # Beer branch's cycle [1, 1, 1], invariance weight 1, FAST without its evaluation option (the straight-through
    # argmax is already deterministic). The generator's rate swings (0.00-0.55 between epochs) before it settles;
    # observed (30-32 CPU-s a seed over 16 epochs, hence slow): 0.817-0.970 (0.951, 0.970, 0.817, 0.866, 0.970),
    # 0.244-0.617 (0.463, 0.617, 0.244, 0.365, 0.540); the first epoch at both minimums: 12, 5, 15, 9, 4 (seed 2
    # stayed at accuracy 0.47-0.60 for 14 epochs). At lr 0.01 or 0.004 (weights 1 or 2) seed 0 stayed at
    # 0.42-0.61 for 6-12 epochs; the reference cycle [1, 3, 3] at lr 0.02 swung more (rate 0.04-0.77 over 14).
    "invrat": (["dataset.environments=2", *FAST[1:], "model.lr=0.02", "model.schedule=[1,1,1]",
                "model.losses.invariance.weight=1"], 16, 0.7, 0.2),
    # SPECTRA: no sparsity or continuity term (its budget bounds the kept words: 20 %, the others' target). At
    # its reference temperature 0.05 the SparseMAP solution is a single sequence within the first steps, whose
    # Jacobian is 0 (seed 0, 3 epochs at lr 4e-3: 0.671/0.174); at temperature 1 it mixes several while it
    # learns, with the reference's cap of 10 active-set iterations; observed (7-14 CPU-s a seed): 0.860-0.909
    # (0.909, 0.860, 0.872, 0.902, 0.902), 0.327-0.527 (0.374, 0.525, 0.327, 0.426, 0.527)
    "spectra": (["model.lr=0.01", "model.selector.budget=20", "model.selector.temperature=1",
                 "model.selector.max_iter=10"], 2, 0.8, 0.25),
}
# 15-55 CPU-s a seed (CAR, DMR: a generator per class, in turns; N2R: two phases a batch; InvRat: 16 epochs):
# run with -m slow
SLOW = {"car", "n2r", "dmr", "invrat"}


PARAMS = [pytest.param(name, seed, id=f"{name}-{seed}", marks=seed_marks(seed, slow=name in SLOW))
          for name in CASES for seed in SEEDS]


# models without the sparsity and continuity terms: the common settings but those terms' weights and target
OWN_COMMON = {"spectra": ("layout=packed", "backbone.hidden_size=64", "embeddings.dim=64", "trainer.batch_size=32")}


@pytest.mark.parametrize(("name", "seed"), PARAMS)
def test_learns(short_learnable_beer_dir, name, seed):
    extra, epochs, min_accuracy, min_f1 = CASES[name]
    exp = experiment(short_learnable_beer_dir, name, *OWN_COMMON.get(name, COMMON), *extra)
    scores = learned_test_scores(exp, seed, epochs, min_accuracy, min_f1)
    metrics, trained = scores[-1], f"after {len(scores)} of {epochs} epochs"
    assert metrics["test/accuracy"] >= min_accuracy, (trained, metrics)
    assert metrics["test/highlight_f1"] >= min_f1, (trained, metrics)
