"""One GRU direction's training pass as a single autograd node: PyTorch's GRU equations, fewer and larger kernels.

The equations are those of ``torch.nn.GRU`` (gate order r, z, n; the recurrent bias of n inside the reset
product), for one direction over a time-major batch, initial state zero:

    r_t = σ(W_ir x_t + b_ir + W_hr h_{t-1} + b_hr)
    z_t = σ(W_iz x_t + b_iz + W_hz h_{t-1} + b_hz)
    n_t = tanh(W_in x_t + b_in + r_t ⊙ (W_hn h_{t-1} + b_hn))
    h_t = (h_{t-1} - n_t) ⊙ z_t + n_t                      (= (1 - z_t) ⊙ n_t + z_t ⊙ h_{t-1})

Why: on CPU, ``nn.GRU``'s training pass runs each time step as a dozen small operators, each an autograd
node; its backward is then T small weight-gradient products and many small elementwise kernels. Here the
forward computes every input projection in one matrix product, then per step one product (W_h h) and five
elementwise kernels, in the order PyTorch's CPU cell uses (so the forward's rounding is PyTorch's). The
backward is the GRU's gradient written out (Cho et al., 2014, for the cell; backpropagation through time):
with ∂h_t the total gradient reaching h_t,

    ∂a_n = ∂h_t ⊙ (1 - z_t) ⊙ (1 - n_t²)                  (a_n: the argument of tanh)
    ∂a_z = ∂h_t ⊙ (h_{t-1} - n_t) ⊙ z_t (1 - z_t)
    ∂a_r = ∂a_n ⊙ (W_hn h_{t-1} + b_hn) ⊙ r_t (1 - r_t)
    ∂g^h_t = (∂a_r, ∂a_z, ∂a_n ⊙ r_t)                      (the gradient at W_h h_{t-1} + b_h)
    ∂h_{t-1} += ∂h_t ⊙ z_t + ∂g^h_t W_h

The factors that do not depend on ∂h_t are computed for all steps at once before the reverse loop, so a
step costs one product and two elementwise kernels; the weight, bias and input gradients are each one
product over all steps after it. Only the backward's summation order differs from autograd's (float
rounding). The caller keeps ``nn.GRU`` for passes without gradients, where PyTorch's own C++ loop is fast.
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


def gru_direction(rnn: nn.GRU, inputs: torch.Tensor) -> torch.Tensor:
    """The states ``rnn(inputs)[0]`` [B, T, H] of a batch-first ``inputs`` [B, T, I], as one autograd node."""
    return _GRUDirection.apply(inputs, rnn.weight_ih_l0, rnn.weight_hh_l0, rnn.bias_ih_l0, rnn.bias_hh_l0)


class _GRUDirection(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inputs, w_ih, w_hh, b_ih, b_hh):
        batch, steps, _ = inputs.shape
        size = w_hh.shape[1]
        # time-major, so that each step's slice and the shifted "previous state" view are contiguous
        x = inputs.transpose(0, 1).contiguous()
        # all input projections in one product; the gates are then written over them in place:
        # gates[t] = (r_t, z_t, n_t) after the loop
        # (product, then the bias added: nn.GRU's rounding, whose time-major input is not contiguous)
        gates = torch.mm(x.view(steps * batch, -1), w_ih.t()).add_(b_ih).view(steps, batch, 3 * size)
        # states[0] is the initial state (zero), states[t + 1] = h_t
        states = x.new_zeros(steps + 1, batch, size)
        hidden_n = x.new_empty(steps, batch, size)  # W_hn h_{t-1} + b_hn, for the backward
        hidden = x.new_empty(batch, 3 * size)
        w_hh_t = w_hh.t()
        for t in range(steps):
            torch.addmm(b_hh, states[t], w_hh_t, out=hidden)
            gates[t, :, :2 * size].add_(hidden[:, :2 * size])
            # r and z apart: a vectorised kernel rounds a row's tail elements differently, so one sigmoid over
            # both would not reproduce nn.GRU's rounding
            r, z = gates[t, :, :size].sigmoid_(), gates[t, :, size:2 * size].sigmoid_()
            hidden_n[t].copy_(hidden[:, 2 * size:])
            # product then sum, as nn.GRU (a fused addcmul rounds once less)
            n = gates[t, :, 2 * size:].add_(hidden[:, 2 * size:].mul_(r)).tanh_()
            # nn.GRU's order: (h - n) * z + n
            torch.sub(states[t], n, out=states[t + 1]).mul_(z).add_(n)
        ctx.save_for_backward(x, w_ih, w_hh, gates, hidden_n, states)
        return states[1:].transpose(0, 1)

    @staticmethod
    def backward(ctx, grad_states):
        x, w_ih, w_hh, gates, hidden_n, states = ctx.saved_tensors
        steps, batch, size = hidden_n.shape
        r, z, n = gates[..., :size], gates[..., size:2 * size], gates[..., 2 * size:]
        previous = states[:-1]
        # factors of ∂h_t in the gate gradients, for all steps at once
        tanh_factor = (1 - z) * (1 - n * n)
        factors = torch.cat([tanh_factor * hidden_n * r * (1 - r), (previous - n) * z * (1 - z),
                             tanh_factor * r], dim=-1).view(steps, batch, 3, size)
        # total gradient at h_t, starting from the gradient of the outputs
        grad_h = grad_states.transpose(0, 1).contiguous()
        grad_hidden = torch.empty_like(factors)  # ∂g^h_t, [T, B, 3, H]
        for t in range(steps - 1, -1, -1):
            torch.mul(grad_h[t].unsqueeze(1), factors[t], out=grad_hidden[t])
            if t:
                grad_h[t - 1].addcmul_(grad_h[t], z[t]).addmm_(grad_hidden[t].view(batch, 3 * size), w_hh)
        grad_hidden = grad_hidden.view(steps * batch, 3 * size)
        # the input gates' gradient equals the hidden gates' for r and z; for n it is ∂a_n
        grad_gates = grad_hidden.clone()
        grad_gates[:, 2 * size:] = (grad_h * tanh_factor).view(steps * batch, size)
        flat_x = x.view(steps * batch, -1)
        grad_inputs = (grad_gates @ w_ih).view(steps, batch, -1).transpose(0, 1) if ctx.needs_input_grad[0] else None
        grad_w_ih = grad_gates.t() @ flat_x if ctx.needs_input_grad[1] else None
        grad_w_hh = grad_hidden.t() @ previous.reshape(steps * batch, size) if ctx.needs_input_grad[2] else None
        grad_b_ih = grad_gates.sum(0) if ctx.needs_input_grad[3] else None
        grad_b_hh = grad_hidden.sum(0) if ctx.needs_input_grad[4] else None
        return grad_inputs, grad_w_ih, grad_w_hh, grad_b_ih, grad_b_hh
