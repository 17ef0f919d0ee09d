"""Integrated Gradients of a one-layer GRU backbone through the linearity of its input projection.

Integrated Gradients (Sundararajan et al., 2017) with a zero baseline
evaluates the gradient at the scaled embeddings α·x for every step α. The
backbone reads u = c ⊙ emb (c: the token's presence times its padding mask),
and its GRU starts with the input projection W_ih u + b_ih, which is linear
in u. Two consequences make the steps cheap without changing the result:

- forward: the projection of a step is α·P + b_ih with P = W_ih (c ⊙ x), so
  P is computed once per document instead of once per step;
- backward: a token's score is the sum over embedding dimensions of
  x ⊙ Σ_s w_s ∂f/∂emb(α_s) (what :class:`~pyhighlights.explain.methods.GradientAttribution`
  keeps), and ∂f/∂emb = c · W_ihᵀ g with g the gradient at the projection,
  so the score is Σ_s w_s ⟨P, g_s⟩: the gradient never goes back through W_ih.

The recurrence itself is run step by step here (forward, then the GRU's
backward by hand, without weight gradients), for every step α and document
of the batch at once; the rest of the model (normalisation, pooling, head)
runs through its own code with autograd: the backbone's output is replaced
by the states computed here. The step sizes and points are captum's
(``approximation_parameters``), so the numbers are captum's to float
rounding. The first call checks this recurrence against the backbone's own
forward on the unscaled input, and the caller falls back to captum when
they disagree (a backbone changed in a way this module does not know).

On one CPU thread this halves the matrix products of a step (the input
projection is gone from the forward and the backward) and keeps every
intermediate in buffers reused across calls.
"""
from __future__ import annotations

import math
from contextlib import contextmanager

import torch
from torch import nn

from pyhighlights.explain.forward import CaptumForward, embedding_layer, input_backbone

#: agreement asked of this recurrence against the backbone's own forward (float32 rounding over a few
#: hundred steps stays orders of magnitude below it)
_CHECK_RTOL, _CHECK_ATOL = 1e-4, 1e-5

#: rows (steps × documents) of the recurrence per pass when ``internal_batch_size`` is null: on one CPU
#: thread about 160 rows ran fastest (a time step's working set stays in cache; 320 rows, all 20 steps of
#: 16 documents at once, measured about 10 % slower, 80 rows slower still); only the rounding of the sum
#: over passes depends on it
_ROWS_PER_PASS = 160


def supported(model) -> bool:
    """A one-layer GRU :class:`RecurrentBackbone` in eval mode, whose embedding layer is the one attributed."""
    from pyhighlights.components.backbones.recurrent import RecurrentBackbone

    try:
        backbone = input_backbone(model)
        layer = embedding_layer(model)
    except TypeError:
        return False
    if type(backbone).forward is not RecurrentBackbone.forward or layer is not backbone.embedding:
        return False
    layers = [*backbone.forward_layers, *(backbone.backward_layers or [])]
    return (len(backbone.forward_layers) == 1 and not backbone.training
            and all(isinstance(rnn, nn.GRU) and rnn.num_layers == 1 and not rnn.bidirectional
                    and rnn.batch_first for rnn in layers))


@contextmanager
def _backbone_forward(backbone: nn.Module, forward):
    """Within the block, calling ``backbone`` runs ``forward`` (an instance attribute shadows the method)."""
    backbone.forward = forward
    try:
        yield
    finally:
        del backbone.forward


class _Direction:
    """One GRU direction over time-major inputs: the forward recurrence, then its backward by hand.

    Rows are step-major (row s·B + b: step α_s of document b). Every intermediate goes into buffers
    allocated once and reused across calls (``out=``): on one CPU thread the elementwise steps cost as
    much as the matrix products, and fresh tensors of this size each cost an allocation and its page
    faults. Only what the backward reads is kept per time step (r, z, n, W_hn h + b_hn and h); the input
    gates are built one time step at a time from the document's projection, and the backward sums its
    gradients over the integration steps as it goes, so no [T, S·B, 3H] tensor is ever written.
    """

    def __init__(self, rnn: nn.GRU):
        self.w_ih, self.w_hh = rnn.weight_ih_l0.detach(), rnn.weight_hh_l0.detach()
        hidden = self.w_hh.shape[1]
        zeros = self.w_hh.new_zeros(3 * hidden)
        self.b_ih = rnn.bias_ih_l0.detach() if rnn.bias else zeros
        self.b_hh = rnn.bias_hh_l0.detach() if rnn.bias else zeros
        self.hidden = hidden
        #: the input gates' bias with the recurrent bias of r and z folded in (see :meth:`forward`)
        self.gate_bias = self.b_ih + torch.cat([self.b_hh[:2 * hidden], zeros[:hidden]])
        self.w_hh_t = self.w_hh.t().contiguous()
        self._buffers: dict[str, torch.Tensor] = {}

    def project(self, inputs: torch.Tensor) -> torch.Tensor:
        """W_ih u without the bias, [B, T, 3H]."""
        return inputs @ self.w_ih.t()

    def _buffer(self, name: str, *shape: int) -> torch.Tensor:
        """A buffer of ``shape`` reused across calls: fresh tensors of this size cost page faults each time."""
        numel = math.prod(shape)
        flat = self._buffers.get(name)
        if flat is None or flat.numel() < numel:
            flat = self._buffers[name] = self.w_hh.new_empty(numel)
        return flat[:numel].view(shape)

    def forward(self, projected: torch.Tensor, alphas: torch.Tensor) -> torch.Tensor:
        """States [T + 1, S·B, H] (row 0: the zero initial state) at the scaled inputs α_s·u, from the
        projection P = W_ih u, time-major [T, B, 3H]. Time step t's input gates are α_s P_t + b_ih +
        (b_hr, b_hz, 0): the recurrent bias of r and z folded in, the one of n kept apart because r scales it.

        Keeps r and z, n, the hidden gate of n (W_hn h + b_hn) and the states for :meth:`backward`."""
        steps, batch, _ = projected.shape
        size, count = self.hidden, len(alphas)
        rows = count * batch
        b_hn = self.b_hh[2 * size:]
        self.rz = rz = self._buffer("rz", steps, rows, 2 * size)
        self.n = n = self._buffer("n", steps, rows, size)
        self.hn = hn = self._buffer("hn", steps, rows, size)
        self.states = states = self._buffer("states", steps + 1, rows, size)
        states[0].zero_()
        gi = self._buffer("gates_in", count, batch, 3 * size)
        gh = self._buffer("hidden_gates", rows, 3 * size)
        spare = self._buffer("spare", rows, size)
        scale = alphas.view(-1, 1, 1)
        flat = gi.view(rows, 3 * size)
        for t in range(steps):
            torch.addcmul(self.gate_bias, scale, projected[t].unsqueeze(0), out=gi)
            if t:
                torch.mm(states[t], self.w_hh_t, out=gh)
            else:  # the zero initial state: W_hh h is 0, no matrix product
                gh.zero_()
            torch.add(gh[:, 2 * size:], b_hn, out=hn[t])
            torch.add(flat[:, :2 * size], gh[:, :2 * size], out=rz[t]).sigmoid_()
            torch.addcmul(flat[:, 2 * size:], rz[t, :, :size], hn[t], out=n[t]).tanh_()
            torch.sub(states[t], n[t], out=spare)
            torch.addcmul(n[t], rz[t, :, size:], spare, out=states[t + 1])  # h' = n + z (h - n)
        return states

    def backward(self, grad_states: torch.Tensor, projected: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        """Σ_s w_s ⟨P, g_s⟩ per time step and document, [T, B]: ``grad_states`` [T, R, H] with R = S·B rows
        (step-major), ``projected`` P [T, B, 3H], ``weights`` w [S]."""
        steps, rows, size = grad_states.shape
        batch = projected.shape[1]
        rz, n, hn, states = self.rz, self.n, self.hn, self.states
        ones = self._buffer("ones", rows, size).fill_(1.0)
        dh = self._buffer("dh", rows, size).zero_()
        paired = self._buffer("paired", rows, 2 * size)  # [dn · (W_hn h + b_hn), dh · (h_prev - n)]
        slopes = self._buffer("slopes", rows, 2 * size)  # σ' of r and z
        grads = self._buffer("grads", rows, 3 * size)  # the hidden gates' gradient: [d(r, z) pre-activation, dn r]
        dn = self._buffer("dn", rows, size)  # the gradient at n's pre-activation (the input gate of n)
        first, second = self._buffer("first", rows, size), self._buffer("second", rows, size)
        # Σ_s w_s of the input gates' gradient per time step and document: equal to the hidden gates' for r
        # and z; for n it is dn (r scales only W_hn h)
        summed = self._buffer("summed", steps, batch, 3 * size)  # its n part is replaced by summed_n's
        summed_n = self._buffer("summed_n", steps, batch, size)
        weights = weights.view(1, -1)
        for t in reversed(range(steps)):
            r, z = rz[t, :, :size], rz[t, :, size:]
            dh.add_(grad_states[t])
            torch.sub(states[t], n[t], out=paired[:, size:]).mul_(dh)
            torch.addcmul(ones, n[t], n[t], value=-1, out=second)  # tanh' = 1 - n²
            torch.addcmul(dh, dh, z, value=-1, out=first)  # dh (1 - z)
            torch.mul(first, second, out=dn)
            torch.mul(dn, hn[t], out=paired[:, :size])
            torch.mul(dn, r, out=grads[:, 2 * size:])
            torch.addcmul(rz[t], rz[t], rz[t], value=-1, out=slopes)  # σ' = σ (1 - σ)
            torch.mul(slopes, paired, out=grads[:, :2 * size])
            torch.mm(weights, grads.view(-1, batch * 3 * size), out=summed[t].view(1, -1))
            torch.mm(weights, dn.view(-1, batch * size), out=summed_n[t].view(1, -1))
            if t:  # the initial state is a constant: nothing reads its gradient
                torch.mm(grads, self.w_hh, out=first)
                torch.addcmul(first, dh, z, out=dh)  # dh_prev = dh z + (hidden gates' gradient) W_hh
        scores = ((summed[..., :2 * size] * projected[..., :2 * size]).sum(-1)
                  + (summed_n * projected[..., 2 * size:]).sum(-1))
        del self.rz, self.n, self.hn, self.states
        return scores


class RecurrentIntegratedGradients:
    """``attribute(embeddings, target, keep, fields) -> (token scores [B, T], delta [B])`` or None when the
    backbone's own forward disagrees with this recurrence (the caller then uses captum)."""

    def __init__(self, forward: CaptumForward, n_steps: int, integration: str, internal_batch_size: int | None):
        from captum.attr._utils.approximation_methods import approximation_parameters

        sizes, alphas = approximation_parameters(integration)
        self.forward = forward
        self.weights = torch.tensor(sizes(n_steps), dtype=torch.float32)
        self.alphas = torch.tensor(alphas(n_steps), dtype=torch.float32)
        self.internal_batch_size = internal_batch_size
        self.checked = False
        self.backbone = input_backbone(forward.model)
        self.directions = [_Direction(self.backbone.forward_layers[0])]
        if self.backbone.backward_layers is not None:
            self.directions.append(_Direction(self.backbone.backward_layers[0]))

    def _reverse(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        from pyhighlights.components.backbones.recurrent import reverse_all, reverse_within_length

        return (reverse_all if self.backbone.recurrence == "padded" else reverse_within_length)(x, lengths)

    def _inputs(self, embeddings, keep, fields, stock: bool = True):
        """The model's output and the stock backbone's states on the unscaled input (None, None when not
        ``stock``: the model's code runs only up to the backbone, whose GRU is then skipped), the
        recurrence's input u = c ⊙ emb [B, T, E] and the padding mask."""
        from pyhighlights.components.backbones.recurrent import RecurrentBackbone

        captured = {}

        def capture(input_ids, attention_mask, keep=None):
            captured.update(attention_mask=attention_mask, keep=keep)
            if not stock:  # what the backbone is called with is all that is wanted here
                return embeddings.new_zeros(*input_ids.shape, self.backbone.output_size)
            captured["states"] = RecurrentBackbone.forward(self.backbone, input_ids, attention_mask, keep)
            return captured["states"]

        with torch.no_grad(), _backbone_forward(self.backbone, capture):
            full = self.forward.embeddings(embeddings, keep, *fields)
        mask = captured["attention_mask"]
        real = mask.unsqueeze(-1).to(embeddings.dtype)
        inputs = embeddings * real if self.backbone.recurrence == "padded" else embeddings
        if captured["keep"] is not None:
            inputs = inputs * captured["keep"].unsqueeze(-1)
        return (full if stock else None), captured.get("states"), inputs, mask

    def _states(self, projected, mask, alphas) -> torch.Tensor:
        """Backbone states [S·B, T, H'] (before its norm) at the scaled inputs α_s·x, step-major rows.

        ``projected``: each direction's P [B, T, 3H], the backward direction's already reversed."""
        lengths = mask.sum(dim=1).repeat(len(alphas))
        outputs = []
        for index, (direction, project) in enumerate(zip(self.directions, projected)):
            states = direction.forward(project.transpose(0, 1).contiguous(), alphas)[1:].transpose(0, 1)
            outputs.append(self._reverse(states, lengths) if index else states)
        states = torch.cat(outputs, dim=-1)
        if self.backbone.recurrence != "padded":
            states = states * mask.repeat(len(alphas), 1).unsqueeze(-1).to(states.dtype)
        return states

    def _chunk_scores(self, projected, mask, keep, fields, target, alphas, weights) -> torch.Tensor:
        """Σ over this chunk's steps of w_s ⟨P, g_s⟩ per token, [B, T]."""
        steps = len(alphas)
        states = self._states(projected, mask, alphas).requires_grad_()
        backbone = self.backbone
        replaced = lambda *args, **kwargs: backbone.norm(backbone.dropout(states))  # noqa: E731
        with torch.enable_grad(), _backbone_forward(backbone, replaced):
            outputs = self.forward.presence(keep.repeat(steps, 1), *(f.repeat(steps, 1) for f in fields))
            picked = outputs.gather(1, target.repeat(steps).view(-1, 1)).sum()
            (grad,) = torch.autograd.grad(picked, states)
        if backbone.recurrence != "padded":
            grad = grad * mask.repeat(steps, 1).unsqueeze(-1).to(grad.dtype)
        lengths = mask.sum(dim=1)
        size = self.directions[0].hidden
        scores = 0
        for index, (direction, project) in enumerate(zip(self.directions, projected)):
            part = grad[..., index * size:(index + 1) * size]
            if index:
                part = self._reverse(part, lengths.repeat(steps))
            per_step = direction.backward(part.transpose(0, 1).contiguous(), project.transpose(0, 1).contiguous(),
                                          weights).t()  # [B, T]
            scores = scores + (self._reverse(per_step.unsqueeze(-1), lengths).squeeze(-1) if index else per_step)
        return scores

    @torch.no_grad()
    def attribute(self, embeddings, target, keep, fields, with_delta: bool = True):
        """``with_delta=False``: the scores and None; the model's forward passes at the input and at the
        baseline, which only the delta needs, are skipped (after the first call's check)."""
        embeddings = embeddings.detach()
        target = torch.as_tensor(target, device=embeddings.device).reshape(-1).expand(embeddings.shape[0])
        full, stock, inputs, mask = self._inputs(embeddings, keep, fields, stock=with_delta or not self.checked)
        lengths = mask.sum(dim=1)
        # the backward direction reads each document reversed: its projection is reversed once here
        projected = [direction.project(self._reverse(inputs, lengths) if index else inputs)
                     for index, direction in enumerate(self.directions)]
        if not self.checked:  # once per method: the backbone's own forward against this recurrence
            ours = self.backbone.norm(self.backbone.dropout(self._states(projected, mask, torch.ones(1))))
            if not torch.allclose(ours, stock, rtol=_CHECK_RTOL, atol=_CHECK_ATOL):
                return None
            self.checked = True
        rows = self.internal_batch_size or _ROWS_PER_PASS
        per_chunk = max(1, rows // embeddings.shape[0])
        scores = 0
        for start in range(0, len(self.alphas), per_chunk):
            part = slice(start, start + per_chunk)
            scores = scores + self._chunk_scores(projected, mask, keep, fields, target, self.alphas[part],
                                                 self.weights[part])
        if not with_delta:
            return scores, None
        baseline = self.forward.embeddings(torch.zeros_like(embeddings), keep, *fields)
        change = (full - baseline).gather(1, target.view(-1, 1)).squeeze(1)
        return scores, scores.sum(dim=1) - change
