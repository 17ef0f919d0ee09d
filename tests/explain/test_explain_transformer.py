"""Post-hoc methods on a transformer classifier: subword tokens folded onto words, specials left out."""
from __future__ import annotations

import pytest
import torch
from explain_helpers import subword_batch, tiny_transformer_classifier

from pyhighlights.explain.forward import batch_fields, embedding_layer
from pyhighlights.explain.methods import make_method

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return tiny_transformer_classifier(tmp_path_factory.mktemp("tiny_bert"))


def run(name, model, batch, **params):
    keep = batch.word_mask.float()
    with torch.no_grad():
        target = model.predict(batch, keep).argmax(dim=-1)
    return make_method(name, model, params)(keep, batch_fields(batch), target), target


def test_gradients_reach_the_word_piece_embeddings(model):
    assert embedding_layer(model) is model.encoder.model.get_input_embeddings()
    batch = subword_batch()
    out, _ = run("integrated_gradients", model, batch, n_steps=16)
    assert out.scores.shape == (2, 3) and torch.isfinite(out.scores).all()
    assert out.scores[1, 2] == 0 and (out.scores[0] != 0).all()
    assert torch.isfinite(out.delta).all()


def test_feature_ablation_removes_all_pieces_of_a_word(model):
    """Word 1 of document 0 is two pieces; ablating it removes both from the attention."""
    batch = subword_batch()
    out, target = run("feature_ablation", model, batch)
    keep = batch.word_mask.float()
    removed = keep.clone()
    removed[0, 1] = 0
    with torch.no_grad():
        p = torch.softmax(model.predict(batch, keep), -1)[0, target[0]]
        q = torch.softmax(model.predict(batch, removed), -1)[0, target[0]]
        # the same removal written on tokens: attention mask without positions 2 and 3
        tokens = batch.attention_mask.clone()
        tokens[0, 2:4] = 0
        direct = model.predictor(model.pool(model.encoder(batch.input_ids, batch.attention_mask,
                                                          keep=tokens.float()), tokens))
    assert out.scores[0, 1].item() == pytest.approx((p - q).item(), abs=1e-6)
    assert q.item() == pytest.approx(torch.softmax(direct, -1)[0, target[0]].item(), abs=1e-6)
