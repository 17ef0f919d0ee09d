"""Inter-RAT's parts by hand: the confounder dictionary's adjustment, the per-document selection terms, the
predictor's rationale vector, and the encoders' input-only dropout."""
from __future__ import annotations

import math

import pytest
import torch
from reference_draws import fixed_draws

from pyhighlights.components.confounders import ClassEmbeddings
from pyhighlights.components.document_terms import DocumentContinuityTerm, DocumentSparsityTerm
from pyhighlights.components.losses import ContinuityTerm, SparsityTerm
from pyhighlights.models.baselines.inter_rat import sum_per_kept

D = torch.float64


def dictionary(prior, projection=None):
    part = ClassEmbeddings(input_size=2, num_classes=2, prior=prior).double()
    with torch.no_grad():
        part.entries.weight.copy_(torch.eye(2, dtype=D))  # c_0 = (1, 0), c_1 = (0, 1)
        part.projection.weight.copy_(torch.eye(2, dtype=D) if projection is None else projection)
        part.projection.bias.zero_()
    return part


def test_the_predictor_path_weights_each_entry_by_its_attention_and_its_prior():
    # h = (ln 3, 0): scores h.c = (ln 3, 0), attention (3/4, 1/4); prior (1/4, 3/4):
    # d = 1/4 * 3/4 * c_0 + 3/4 * 1/4 * c_1 = (3/16, 3/16), the prior not renormalising the attention
    part = dictionary([0.25, 0.75], projection=2 * torch.eye(2, dtype=D))
    h = torch.tensor([[math.log(3.0), 0.0]], dtype=D)
    assert part(h, "predictor").flatten().tolist() == pytest.approx([3 / 16, 3 / 16], abs=1e-12)


def test_the_selector_path_attends_through_the_projected_keys():
    # keys 2 c_k: scores (2 ln 3, 0), attention (9/10, 1/10); d = (1/4 * 9/10, 3/4 * 1/10)
    part = dictionary([0.25, 0.75], projection=2 * torch.eye(2, dtype=D))
    h = torch.tensor([[[math.log(3.0), 0.0]]], dtype=D)  # [B, W, H]: one word
    assert part(h, "selector").flatten().tolist() == pytest.approx([0.225, 0.075], abs=1e-12)


def test_a_null_prior_is_uniform_and_a_wrong_prior_is_refused():
    part = ClassEmbeddings(input_size=2, num_classes=2, prior=None)
    assert part.prior == (0.5, 0.5)
    with pytest.raises(ValueError, match="confounder.prior: expected 2 probabilities"):
        ClassEmbeddings(input_size=2, num_classes=2, prior=[1.0])
    with pytest.raises(ValueError, match="projected_keys: 'encoder' is not a path"):
        ClassEmbeddings(input_size=2, num_classes=2, projected_keys=["encoder"])


MASK = torch.tensor([[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]], dtype=D)
WORDS = torch.tensor([[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]], dtype=D)


def test_document_sparsity_averages_each_documents_rate():
    # rates 2/4 and 2/2; target 0.5: |0| and |0.5| -> 0.25; signed: (0 + 0.5) / 2 = 0.25; target 0.9:
    # abs (0.4 + 0.1) / 2 = 0.25, signed (-0.4 + 0.1) / 2 = -0.15
    inputs = {"mask": MASK, "word_mask": WORDS}
    assert float(DocumentSparsityTerm(target=0.5)(inputs)) == pytest.approx(0.25, abs=1e-7)
    assert float(DocumentSparsityTerm(target=0.9)(inputs)) == pytest.approx(0.25, abs=1e-7)
    assert float(DocumentSparsityTerm(target=0.9, penalty="signed")(inputs)) == pytest.approx(-0.15, abs=1e-7)
    # the batch-pooled term: 4 of 6 words, |4/6 - 0.9|
    assert float(SparsityTerm(target=0.9)(inputs)) == pytest.approx(0.9 - 4 / 6, abs=1e-12)


def test_document_continuity_counts_the_jump_into_padding():
    # document 0: jumps 0->1, 1->0 over 3 neighbour pairs: 2/3; document 1: its last word is kept and padding
    # follows, one jump over n - 1 = 1 pair: 1. Mean 5/6. The batch term: 2 jumps over 4 real pairs.
    inputs = {"mask": MASK, "word_mask": WORDS, "raw_mask": MASK}
    assert float(DocumentContinuityTerm()(inputs)) == pytest.approx(5 / 6, abs=1e-7)
    assert float(ContinuityTerm()(inputs)) == pytest.approx(0.5, abs=1e-12)


def test_the_rationale_vector_sums_every_real_word_over_the_kept_count():
    states = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[1.0, 1.0], [2.0, 2.0], [9.0, 9.0]]], dtype=D)
    attention = torch.tensor([[1, 1, 1], [1, 1, 0]])
    keep = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]], dtype=D, requires_grad=True)
    pooled = sum_per_kept(states, attention, keep, attention)
    # document 0: (9, 12) / 2 kept; document 1: nothing kept, (3, 3) / 1 (its padded state not read)
    assert pooled.tolist() == [[4.5, 6.0], [3.0, 3.0]]
    pooled[0].sum().backward()
    # d/dk_t of sum(total) / sum(k) = -sum(total) / (sum k)^2 = -21 / 4 for every real word of document 0
    assert keep.grad[0].tolist() == pytest.approx([-5.25, -5.25, -5.25], abs=1e-12)


def test_the_encoders_drop_out_their_inputs_only():
    """encoder_output_dropout=false (the default): one dropout draw per encoder, on the embeddings (MaskGRU);
    true: a second one on the output states. The model's encoder_dropout still reaches both encoders."""
    from reference_steps import padded_batch, small_model

    def draws(overrides):
        model, _ = small_model(["model=inter_rat", *overrides], lambda name: name)
        assert model.selector_encoder.dropout.p == 0.2 and model.predictor_encoder.recurrence == "padded"
        model.train()
        with fixed_draws() as count:
            model(padded_batch(model))
        return count["dropout"]

    assert draws([]) == 2
    assert draws(["model.encoder_output_dropout=true"]) == 4
