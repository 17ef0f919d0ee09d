"""The fused GRU direction computes nn.GRU's states and every gradient (float64, to float rounding)."""
import pytest
import torch
from torch import nn

from pyhighlights.components.backbones.fused_gru import _GRUDirection, applies, gru_direction
from pyhighlights.components.backbones.recurrent import RecurrentBackbone


def padded_inputs(batch=4, steps=30, features=6, dtype=torch.float64):
    """Inputs [B, T, I] of rows of different lengths, zero after each row's length (a padded batch)."""
    torch.manual_seed(0)
    lengths = torch.tensor([steps, 17, 5, 1])[:batch]
    mask = (torch.arange(steps).unsqueeze(0) < lengths.unsqueeze(1)).to(dtype)
    return (torch.randn(batch, steps, features, dtype=dtype) * mask.unsqueeze(-1)).requires_grad_(), mask


@pytest.mark.parametrize("reverse", [False, True])
def test_gradcheck(reverse):
    torch.manual_seed(1)
    rnn = nn.GRU(3, 2, batch_first=True).double()
    x = torch.randn(2, 5, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, *p: _GRUDirection.apply(x, *p, reverse), (x, *rnn.parameters()))


@pytest.mark.parametrize("reverse", [False, True])
def test_equals_nn_gru_and_its_gradients_on_a_padded_batch(reverse):
    x, _ = padded_inputs()
    rnn = nn.GRU(6, 5, batch_first=True).double()
    # reverse: nn.GRU over the time-flipped batch, flipped back (the backward direction over a padded tensor)
    expected = rnn(x.flip(1))[0].flip(1) if reverse else rnn(x)[0]
    ours = gru_direction(rnn, x, reverse=reverse)
    assert ours.shape == expected.shape
    torch.testing.assert_close(ours, expected, rtol=0, atol=1e-12)
    upstream = torch.randn_like(expected)
    wrt = [x, *rnn.parameters()]
    for got, want in zip(torch.autograd.grad(ours, wrt, upstream), torch.autograd.grad(expected, wrt, upstream)):
        torch.testing.assert_close(got, want, rtol=0, atol=1e-10)


def test_applies_only_where_a_gradient_is_needed():
    x, _ = padded_inputs(dtype=torch.float32)
    gru = nn.GRU(6, 5, batch_first=True)
    assert applies(gru, x)
    with torch.no_grad():
        assert not applies(gru, x)  # evaluation keeps nn.GRU's C++ forward
    assert not applies(nn.LSTM(6, 5, batch_first=True), x)
    assert not applies(nn.GRU(6, 5, batch_first=True, bidirectional=True), x)
    assert not applies(nn.GRU(6, 5, num_layers=2, batch_first=True), x)
    assert not applies(nn.GRU(6, 5), x)  # time-major
    gru.requires_grad_(False)
    assert not applies(gru, x.detach())


def backbone_pair(recurrence, **options):
    torch.manual_seed(2)
    embeddings = torch.randn(30, 6, dtype=torch.float64)
    torch_backbone = RecurrentBackbone(embedding_matrix=embeddings, freeze_embeddings=False, hidden_size=10,
                                       recurrence=recurrence, **options).double()
    fused = RecurrentBackbone(embedding_matrix=embeddings, freeze_embeddings=False, hidden_size=10,
                              recurrence=recurrence, kernel="fused", **options).double()
    fused.load_state_dict(torch_backbone.state_dict())
    return torch_backbone, fused


@pytest.mark.parametrize("recurrence", ["padded", "within_length"])
def test_backbone_kernels_agree_in_states_and_gradients(recurrence):
    """Two layers with dropout between them (the same draws on both sides), keep masks, padding."""
    torch_backbone, fused = backbone_pair(recurrence, num_layers=2, dropout=0.3)
    lengths = torch.tensor([9, 4, 7])
    mask = (torch.arange(9).unsqueeze(0) < lengths.unsqueeze(1)).long()
    ids = torch.randint(1, 30, (3, 9)) * mask
    keep = torch.rand(3, 9, dtype=torch.float64).requires_grad_()
    results = []
    for backbone in (torch_backbone, fused):
        torch.manual_seed(3)
        states = backbone(ids, mask, keep=keep)
        upstream = torch.randn_like(states)
        results.append((states, torch.autograd.grad(states, [keep, *backbone.parameters()], upstream)))
    (want, want_grads), (got, got_grads) = results
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12)
    for g, w in zip(got_grads, want_grads):
        torch.testing.assert_close(g, w, rtol=0, atol=1e-10)


def test_gradient_with_respect_to_the_embedding_output():
    """Integrated gradients differentiates the output w.r.t. the embedding layer's output (frozen embeddings)."""
    torch_backbone, fused = backbone_pair("padded", dropout=0.0)
    torch.manual_seed(4)
    ids = torch.randint(1, 30, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    scaled = (0.3 * torch_backbone.embedding(ids)).detach().requires_grad_()  # one point of the integration path
    grads = []
    for backbone in (torch_backbone, fused):
        backbone.requires_grad_(False)
        handle = backbone.embedding.register_forward_hook(lambda module, args, output: scaled)
        grads.append(torch.autograd.grad(backbone(ids, mask).pow(2).sum(), scaled)[0])
        handle.remove()
    assert grads[0].abs().sum() > 0
    torch.testing.assert_close(grads[1], grads[0], rtol=0, atol=1e-10)


def test_unknown_kernel_is_refused():
    with pytest.raises(ValueError, match="backbone.kernel"):
        RecurrentBackbone(embedding_matrix=torch.randn(5, 2), hidden_size=4, kernel="cuda")


def test_frozen_weights_get_no_gradient_and_the_input_still_does():
    x, _ = padded_inputs()
    rnn = nn.GRU(6, 5, batch_first=True).double().requires_grad_(False)
    upstream = torch.randn(4, 30, 5, dtype=torch.float64)
    got = torch.autograd.grad(gru_direction(rnn, x, reverse=True), x, upstream)[0]
    want = torch.autograd.grad(rnn(x.flip(1))[0].flip(1), x, upstream)[0]
    torch.testing.assert_close(got, want, rtol=0, atol=1e-10)
    assert all(p.grad is None for p in rnn.parameters())
