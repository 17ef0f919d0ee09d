"""One GRU direction's training pass as a single autograd node: PyTorch's GRU equations, fewer and faster kernels.

The equations are those of ``torch.nn.GRU`` (gate order r, z, n; the recurrent bias of n inside the reset
product), for one direction over a batch-first batch, initial state zero:

    r_t = σ(W_ir x_t + b_ir + W_hr h_{t-1} + b_hr)
    z_t = σ(W_iz x_t + b_iz + W_hz h_{t-1} + b_hz)
    n_t = tanh(W_in x_t + b_in + r_t ⊙ (W_hn h_{t-1} + b_hn))
    h_t = (h_{t-1} - n_t) ⊙ z_t + n_t                      (= (1 - z_t) ⊙ n_t + z_t ⊙ h_{t-1})

Why: on CPU, ``nn.GRU``'s training pass runs each time step as a dozen small operators, each an autograd
node, on column slices of a [B, 3H] gate tensor (strided, so its elementwise kernels run several times
slower than on contiguous blocks). Here every per-step quantity is feature-major, [features, B]: the
products are computed as W @ hᵀ, each gate is a contiguous [H, B] block, and a forward step is two products
(the input's and the state's) and seven elementwise kernels. The backward is the GRU's gradient written out
(Cho et al., 2014, for the cell; backpropagation through time): with ∂h_t the total gradient reaching h_t,

    ∂a_n = ∂h_t ⊙ (1 - z_t) ⊙ (1 - n_t²)                  (a_n: the argument of tanh)
    ∂a_z = ∂h_t ⊙ (h_{t-1} - n_t) ⊙ z_t (1 - z_t)
    ∂a_r = ∂a_n ⊙ (W_hn h_{t-1} + b_hn) ⊙ r_t (1 - r_t)
    ∂g^h_t = (∂a_r, ∂a_z, ∂a_n ⊙ r_t)                      (the gradient at W_h h_{t-1} + b_h)
    ∂g^i_t = (∂a_r, ∂a_z, ∂a_n)                            (the gradient at W_i x_t + b_i)
    ∂h_{t-1} += ∂h_t ⊙ z_t + W_hᵀ ∂g^h_t

and each step adds its share of the weight and bias gradients (∂g^h_t h_{t-1}ᵀ, ∂g^i_t x_tᵀ) and computes
its input gradient (W_iᵀ ∂g^i_t) while its operands are in cache; one product per step over all steps
measured no faster here, and would hold [T, B, 3H] gradients. Gradients nobody asked for (frozen
embeddings, frozen weights) are not computed.

Float rounding differs from ``nn.GRU``'s: the products are transposed (W @ xᵀ), the update
n + z (h - n) is one ``torch.lerp``, one sigmoid covers r and z, and the backward associates and sums in
its own order. The caller keeps ``nn.GRU`` for passes without gradients, whose C++ loop builds no graph.
"""
from __future__ import annotations

import torch
from torch import nn


def applies(rnn: nn.Module, inputs: torch.Tensor) -> bool:
    """Whether :func:`gru_direction` can stand in for ``rnn(inputs)``: a one-layer, one-direction,
    batch-first GRU with biases, on CPU in float32/float64 outside autocast, in a pass that needs a gradient
    (without one, ``nn.GRU``'s C++ forward is the faster)."""
    layer = (isinstance(rnn, nn.GRU) and rnn.num_layers == 1 and not rnn.bidirectional and rnn.batch_first
             and rnn.bias and getattr(rnn, "proj_size", 0) == 0)
    batch = (inputs.device.type == "cpu" and inputs.dtype in (torch.float32, torch.float64) and inputs.dim() == 3
             and inputs.shape[0] > 0 and inputs.shape[1] > 0 and not torch.is_autocast_enabled("cpu"))
    gradient = torch.is_grad_enabled() and (inputs.requires_grad or any(p.requires_grad for p in rnn.parameters()))
    return layer and batch and gradient


def gru_direction(rnn: nn.GRU, inputs: torch.Tensor, reverse: bool = False) -> torch.Tensor:
    """The states ``rnn(inputs)[0]`` [B, T, H] of a batch-first ``inputs`` [B, T, I], as one autograd node;
    ``reverse``: read from the last position to the first (``rnn`` over the time-flipped input, flipped back)."""
    return _GRUDirection.apply(inputs, rnn.weight_ih_l0, rnn.weight_hh_l0, rnn.bias_ih_l0, rnn.bias_hh_l0, reverse)


class _GRUDirection(torch.autograd.Function):
    # Layout: every per-step quantity is feature-major, [features, B], so each gate is a contiguous block of
    # rows (W_h h_{t-1} computed as W_h @ h^T gives the three gates as three contiguous [H, B] blocks);
    # elementwise kernels on contiguous blocks run several times faster than on the strided column slices a
    # [B, 3H] layout gives. ``states[k]`` holds h at time k - 1 (reading forward) or k (reverse), the
    # initial zero state at the other end.

    @staticmethod
    def forward(ctx, inputs, w_ih, w_hh, b_ih, b_hh, reverse):
        batch, steps, _ = inputs.shape
        size = w_hh.shape[1]
        gates = inputs.new_empty(steps, 3 * size, batch)  # r_t, z_t, n_t
        hidden_n = inputs.new_empty(steps, size, batch)  # W_hn h_{t-1} + b_hn, for the backward
        states = inputs.new_empty(steps + 1, size, batch)
        hidden = inputs.new_empty(3 * size, batch)
        product = inputs.new_empty(size, batch)
        b_ih, b_hh = b_ih.unsqueeze(1), b_hh.unsqueeze(1)
        times, read, write = _order(steps, reverse)
        states[read(times[0])].zero_()
        for t in times:
            h, g = states[read(t)], gates[t]
            torch.addmm(b_ih, w_ih, inputs[:, t].t(), out=g)
            torch.addmm(b_hh, w_hh, h, out=hidden)
            g[:2 * size].add_(hidden[:2 * size]).sigmoid_()  # r and z
            r, z, n = g[:size], g[size:2 * size], g[2 * size:]
            hidden_n[t].copy_(hidden[2 * size:])
            n.add_(torch.mul(hidden[2 * size:], r, out=product)).tanh_()
            torch.lerp(n, h, z, out=states[write(t)])  # n + z (h - n)
        ctx.reverse = reverse
        ctx.save_for_backward(inputs, w_ih, w_hh, gates, hidden_n, states)
        return (states[:-1] if reverse else states[1:]).permute(2, 0, 1)

    @staticmethod
    def backward(ctx, grad_states):
        inputs, w_ih, w_hh, gates, hidden_n, states = ctx.saved_tensors
        steps, size, batch = hidden_n.shape
        times, read, write = _order(steps, ctx.reverse)
        # the total gradient reaching each state, starting from the outputs'; accumulated in place
        grad_h = inputs.new_zeros(steps + 1, size, batch)
        (grad_h[:-1] if ctx.reverse else grad_h[1:]).copy_(grad_states.permute(1, 2, 0))
        # frozen embeddings: no gradient for the input, and one product per step fewer
        grad_x = inputs.new_empty(steps, batch, inputs.shape[2]) if ctx.needs_input_grad[0] else None
        # frozen weights (integrated gradients differentiates the input only): no weight gradients, two
        # products per step fewer
        weights = any(ctx.needs_input_grad[1:5])
        grad_w_ih, grad_w_hh = torch.zeros_like(w_ih), torch.zeros_like(w_hh)
        grad_b_ih, grad_b_hh = w_ih.new_zeros(3 * size), w_hh.new_zeros(3 * size)
        grad_hidden = inputs.new_empty(3 * size, batch)  # at W_h h_{t-1} + b_h: (∂a_r, ∂a_z, ∂a_n ⊙ r)
        grad_input = inputs.new_empty(3 * size, batch)  # at W_i x_t + b_i: (∂a_r, ∂a_z, ∂a_n)
        first, second = inputs.new_empty(size, batch), inputs.new_empty(size, batch)
        ones = inputs.new_ones(size, batch)
        ones_batch = inputs.new_ones(batch)
        for t in reversed(times):
            dh, h, g = grad_h[write(t)], states[read(t)], gates[t]
            r, z, n = g[:size], g[size:2 * size], g[2 * size:]
            d_r, d_z, d_n = grad_input[:size], grad_input[size:2 * size], grad_input[2 * size:]
            # ∂a_n = ∂h (1 - z) (1 - n²)
            torch.mul(torch.addcmul(dh, dh, z, value=-1, out=first),
                      torch.addcmul(ones, n, n, value=-1, out=second), out=d_n)
            torch.mul(d_n, r, out=grad_hidden[2 * size:])
            # ∂a_r = ∂a_n (W_hn h + b_hn) r (1 - r)
            torch.mul(torch.mul(d_n, hidden_n[t], out=first), torch.addcmul(r, r, r, value=-1, out=second), out=d_r)
            # ∂a_z = ∂h (h - n) z (1 - z)
            torch.sub(h, n, out=first).mul_(torch.addcmul(z, z, z, value=-1, out=second))
            torch.mul(first, dh, out=d_z)
            grad_hidden[:2 * size].copy_(grad_input[:2 * size])
            # ∂h_{t-1} += ∂h z + W_hᵀ ∂g^h
            grad_h[read(t)].addcmul_(dh, z).addmm_(w_hh.t(), grad_hidden)
            if weights:
                grad_w_hh.addmm_(grad_hidden, h.t())
                grad_w_ih.addmm_(grad_input, inputs[:, t])
                grad_b_hh.addmv_(grad_hidden, ones_batch)
                grad_b_ih.addmv_(grad_input, ones_batch)
            if grad_x is not None:
                torch.mm(grad_input.t(), w_ih, out=grad_x[t])
        grads = (grad_w_ih, grad_w_hh, grad_b_ih, grad_b_hh) if weights else (None,) * 4
        return None if grad_x is None else grad_x.transpose(0, 1), *grads, None


def _order(steps: int, reverse: bool):
    """The times in reading order, and where the state read and the state written at time t sit in ``states``."""
    if reverse:
        return range(steps - 1, -1, -1), (lambda t: t + 1), (lambda t: t)
    return range(steps), (lambda t: t), (lambda t: t + 1)
