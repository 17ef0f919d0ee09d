"""The padded-with-reversal recurrent backbone equals PyTorch's packed bidirectional RNN."""
import pytest
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from pyhighlights.components.backbones.recurrent import RecurrentBackbone, reverse_within_length


def test_reverse_within_length_keeps_padding_in_place():
    x = torch.tensor([[1, 2, 3, 0], [4, 5, 0, 0]])
    assert reverse_within_length(x, torch.tensor([3, 2])).tolist() == [[3, 2, 1, 0], [5, 4, 0, 0]]


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_matches_packed_bidirectional_rnn(cell):
    torch.manual_seed(0)
    embeddings = torch.randn(20, 6)
    backbone = RecurrentBackbone(embedding_matrix=embeddings, cell=cell, hidden_size=8, dropout=0.0)
    reference = (torch.nn.GRU if cell == "gru" else torch.nn.LSTM)(6, 4, batch_first=True, bidirectional=True)
    with torch.no_grad():  # copy our two directions into one packed reference module
        for suffix, layer in (("", backbone.forward_layers[0]), ("_reverse", backbone.backward_layers[0])):
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                getattr(reference, f"{name}_l0{suffix}").copy_(getattr(layer, f"{name}_l0"))
    lengths = torch.tensor([5, 2, 4])
    mask = (torch.arange(5).unsqueeze(0) < lengths.unsqueeze(1)).long()
    ids = torch.randint(2, 20, (3, 5)) * mask
    ours = backbone(ids, mask)
    packed = pack_padded_sequence(embeddings[ids], lengths, batch_first=True, enforce_sorted=False)
    expected, _ = pad_packed_sequence(reference(packed)[0], batch_first=True, total_length=5)
    assert torch.allclose(ours, expected, atol=1e-6)


def test_removed_words_contribute_nothing():
    torch.manual_seed(0)
    backbone = RecurrentBackbone(embedding_matrix=torch.randn(20, 6), hidden_size=8, dropout=0.0)
    mask = torch.ones(1, 4, dtype=torch.long)
    keep = torch.tensor([[1.0, 0.0, 1.0, 1.0]])
    a = backbone(torch.tensor([[3, 4, 5, 6]]), mask, keep=keep)
    b = backbone(torch.tensor([[3, 9, 5, 6]]), mask, keep=keep)  # a different removed word
    assert torch.allclose(a, b)


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_padded_recurrence_is_a_plain_bidirectional_rnn_over_the_padded_tensor(cell):
    """``recurrence="padded"``: what nn.GRU computes on masked embeddings over the whole width, as the reference
    code runs it; the backward direction starts in the padding, so padded states are not zero and real ones
    differ from the within-length recurrence."""
    torch.manual_seed(0)
    embeddings = torch.randn(20, 6)
    embeddings[0] = 1.0  # a non-zero padding row must not be read: the reference zeroes padded embeddings
    backbone = RecurrentBackbone(embedding_matrix=embeddings, cell=cell, hidden_size=8, dropout=0.0,
                                 recurrence="padded")
    reference = (torch.nn.GRU if cell == "gru" else torch.nn.LSTM)(6, 4, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for suffix, layer in (("", backbone.forward_layers[0]), ("_reverse", backbone.backward_layers[0])):
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                getattr(reference, f"{name}_l0{suffix}").copy_(getattr(layer, f"{name}_l0"))
    lengths = torch.tensor([5, 2, 4])
    mask = (torch.arange(5).unsqueeze(0) < lengths.unsqueeze(1)).long()
    ids = torch.randint(2, 20, (3, 5)) * mask
    keep = torch.tensor([[1.0, 0, 1, 1, 1], [1, 1, 0, 0, 0], [0, 1, 1, 1, 0]])
    ours = backbone(ids, mask, keep=keep)
    expected, _ = reference(embeddings[ids] * (mask * keep).unsqueeze(-1))
    assert torch.allclose(ours, expected, atol=1e-6)
    assert ours[1, 2:].abs().sum() > 0  # padded positions keep their states
    backbone.recurrence = "within_length"
    assert not torch.allclose(backbone(ids, mask, keep=keep)[1, :2], ours[1, :2], atol=1e-3)


def test_unknown_recurrence_is_refused():
    with pytest.raises(ValueError, match="backbone.recurrence"):
        RecurrentBackbone(embedding_matrix=torch.randn(5, 2), hidden_size=4, recurrence="packed")
