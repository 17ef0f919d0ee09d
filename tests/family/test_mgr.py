"""MGR's departures from the reference code, as options: one encoder per generator, heads at lr·(1+i)."""
from __future__ import annotations

import pytest
from family_helpers import experiment

LR = 1e-3


def group_lrs(model):
    return {g["name"]: g["lr"] for g in model.configure_optimizers().param_groups}


def test_learning_rate_table(family_tiny_dir):
    """share_beer.py: the shared encoder and the predictor at lr/k, head i at lr·3·(i+1) (``--lr_lambda`` 3)."""
    reference = experiment(family_tiny_dir, "mgr", f"model.lr={LR}", "model.num_generators=3").model()
    assert group_lrs(reference) == pytest.approx({
        "generator_encoder/encoder": LR / 3, "generator0/head": 3 * LR, "generator1/head": 6 * LR,
        "generator2/head": 9 * LR, "predictor/head": LR / 3, "predictor/encoder": LR / 3})
    own = experiment(family_tiny_dir, "mgr", f"model.lr={LR}", "model.num_generators=3",
                     "model.shared_generator_encoder=false", "model.generator_lr_scale=1").model()
    assert len(own.generator_encoders) == 3
    assert group_lrs(own) == pytest.approx({
        "generator0/head": LR, "generator0/encoder": LR, "generator1/head": 2 * LR, "generator1/encoder": 2 * LR,
        "generator2/head": 3 * LR, "generator2/encoder": 3 * LR, "predictor/head": LR / 3,
        "predictor/encoder": LR / 3})
    # Every parameter is in exactly one group, whichever layout.
    for model in (reference, own):
        ids = [id(p) for g in model.configure_optimizers().param_groups for p in g["params"]]
        assert len(ids) == len(set(ids)) == sum(1 for p in model.parameters() if p.requires_grad)
