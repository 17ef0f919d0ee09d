"""SparseMAP over binary sequences with a budget, in PyTorch (no lp-sparsemap at run time).

A structure is a keep/drop sequence y in {0, 1}^L (1 = keep) with at most ``budget`` kept words. Its score is

    score(y) = sum_i unary[i, y_i] + start[y_0] + sum_{i>=1} pair[i-1, y_{i-1}, y_i] + end[y_{L-1}]

and its unary indicator m(y) in R^{2L} has a one for (i, y_i). SparseMAP (Niculae, Martins, Blondel and Cardie,
ICML 2018, *SparseMAP: Differentiable Sparse Structured Inference*) returns the unary marginals
mu = sum_y p_y m(y) of the distribution p over structures that maximises

    sum_y p_y score(y) - 1/2 ||sum_y p_y m(y)||^2      over the simplex,

a quadratic over the marginal polytope whose solution is a sparse combination of a few structures. With one
factor, LP-SparseMAP (Niculae and Martins, ICML 2020) reduces to this problem, so SPECTRA's H:SeqBudget factor
(Guerreiro and Martins, ACL 2021) is solved here exactly, the way its paper does: the active-set method of the
SparseMAP paper (its section 3.2; Nocedal and Wright, *Numerical Optimization*, 16.3) over a MAP oracle, here a
Viterbi with a count of kept words (the budget) in its state. Only edge scores in {start, pair, end} are read,
the quadratic is on the unaries only (as in LP-SparseMAP, where additional variables are not penalised).

The backward pass is the SparseMAP paper's closed form on the final support S (its section 3.3): with
Q = M_S^T M_S and J = Q^-1 - Q^-1 1 1^T Q^-1 / (1^T Q^-1 1), d mu / d score_S = M_S J, read off one KKT solve.

Everything is batched over documents: each iteration is one budgeted Viterbi for the whole batch and one batched
KKT solve over padded active sets. Per-position Python work is the Viterbi's loop over L.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

#: Stand-in for -inf inside the dynamic programme (a true -inf would give nan in -inf - -inf).
NEG = -1e30
#: Added to the diagonal of the active structures' Gram matrix. Structures can be affinely dependent (y1 + y2 =
#: y3 + y4 when two of them swap the same words): the equality-constrained problem then has a direction of zero
#: curvature along which the edge scores still change the objective, so it has no finite solution. With the
#: ridge its solution lies far along that direction, and the ratio test steps along it until a weight reaches
#: zero, as the active-set method prescribes; elsewhere it moves the weights by about 1e-10.
RIDGE = 1e-10


@dataclass
class SequenceScores:
    """Scores of a batch of binary sequences; states are 0 = drop, 1 = keep."""
    unary: torch.Tensor  # [N, L, 2]
    start: torch.Tensor  # [N, 2]
    pair: torch.Tensor  # [N, L-1, 2, 2]: [i-1, previous state, state]
    end: torch.Tensor  # [N, 2]
    budget: torch.Tensor  # [N] int: the most words a structure may keep

    def unary_score(self, keep: torch.Tensor, unary: torch.Tensor | None = None) -> torch.Tensor:
        """sum_i unary[i, y_i] for structures ``keep`` [N, K, L] in {0, 1} (``unary`` replaces the scores)."""
        unary = self.unary if unary is None else unary
        return torch.einsum("nkl,nl->nk", keep, unary[..., 1] - unary[..., 0]) + unary[..., 0].sum(1, keepdim=True)

    def edge_score(self, keep: torch.Tensor) -> torch.Tensor:
        """start[y_0] + sum_i pair[i-1, y_{i-1}, y_i] + end[y_{L-1}] for structures ``keep`` [N, K, L]."""
        states = torch.stack([1 - keep, keep], dim=-1)  # [N, K, L, 2] one-hot
        total = torch.einsum("nks,ns->nk", states[:, :, 0], self.start) + \
            torch.einsum("nks,ns->nk", states[:, :, -1], self.end)
        if keep.shape[-1] > 1:
            total = total + torch.einsum("nkla,nlab,nklb->nk", states[:, :, :-1], self.pair, states[:, :, 1:])
        return total

    def structure_score(self, keep: torch.Tensor, unary: torch.Tensor | None = None) -> torch.Tensor:
        """score(y) for structures ``keep`` [N, K, L] in {0, 1} (``unary`` replaces the unary scores)."""
        return self.unary_score(keep, unary) + self.edge_score(keep)


def budgeted_viterbi(scores: SequenceScores, unary: torch.Tensor | None = None) -> torch.Tensor:
    """The best structure (keep indicators [N, L], float) of each sequence, at most ``budget`` words kept.

    The state of the programme is (position, state, words kept so far, capped at the largest budget); ties go
    to the lower previous state. The count never falls along a path, so a path that ends within its budget
    was within it all along: the budget is applied once, at the end."""
    unary = scores.unary if unary is None else unary
    n, length, _ = unary.shape
    budget = scores.budget.clamp(min=0, max=length)
    counts = int(budget.max()) + 1 if n else 1
    value = unary.new_full((n, 2, counts), NEG)
    value[:, 0, 0] = unary[:, 0, 0] + scores.start[:, 0]
    if counts > 1:
        value[:, 1, 1] = unary[:, 0, 1] + scores.start[:, 1]
    floor = unary.new_full((n, 2, 1), NEG)
    back = []
    for i in range(1, length):
        # [N, previous, state, C]: into "keep" the count moves one up
        step = torch.stack([value, torch.cat([floor, value[..., :-1]], -1)], 2) + scores.pair[:, i - 1, :, :, None]
        later = step[:, 1] > step[:, 0]
        value = torch.maximum(step[:, 0], step[:, 1]) + unary[:, i, :, None]
        back.append(later)
    count = torch.arange(counts, device=unary.device)
    within = (count.unsqueeze(0) <= budget.unsqueeze(1)).unsqueeze(1)
    final = (value + scores.end.unsqueeze(-1)).masked_fill(~within, 2 * NEG).reshape(n, -1)
    flat = final.argmax(dim=1)
    state, kept = flat // counts, flat % counts
    keep = unary.new_zeros(n, length)
    keep[:, -1] = state.to(unary.dtype)
    if length > 1:
        back = torch.stack(back, 0).long()  # [L-1, N, state, C]: the previous state
        for i in range(length - 1, 0, -1):
            previous = back[i - 1].gather(1, state.view(n, 1, 1).expand(n, 1, counts)).squeeze(1)
            previous = previous.gather(1, kept.view(n, 1)).squeeze(1)
            kept = kept - state
            state = previous
            keep[:, i - 1] = state.to(unary.dtype)
    return keep


@dataclass
class ActiveSet:
    keep: torch.Tensor  # [N, K, L]: the structures
    weight: torch.Tensor  # [N, K]: their probabilities (0 outside the support)
    active: torch.Tensor  # [N, K] bool
    iterations: int
    converged: torch.Tensor  # [N] bool


def _gram(keep: torch.Tensor) -> torch.Tensor:
    """<m(y_j), m(y_k)>: the words on which y_j and y_k agree, keep or drop."""
    return keep @ keep.transpose(1, 2) + (1 - keep) @ (1 - keep).transpose(1, 2)


def _kkt_solve(gram: torch.Tensor, active: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    """x with Q x + lambda 1 = rhs[:K] and 1^T x = rhs[K] on the active entries, x = 0 off them.

    ``rhs`` [N, K + 1]: the last entry is the required sum of x (1 for the weights, 0 for a direction)."""
    n, k = active.shape
    a = gram.new_zeros(n, k + 1, k + 1)
    both = active.unsqueeze(2) & active.unsqueeze(1)
    a[:, :k, :k] = torch.where(both, gram, torch.zeros_like(gram))
    eye = torch.eye(k, dtype=gram.dtype, device=gram.device).expand(n, k, k)
    a[:, :k, :k] += torch.where(~active.unsqueeze(2), eye, RIDGE * eye)
    ones = active.to(gram.dtype)
    a[:, :k, k], a[:, k, :k] = ones, ones
    b = torch.where(torch.cat([active, active.new_ones(n, 1)], 1), rhs, torch.zeros_like(rhs))
    solution, info = torch.linalg.solve_ex(a, b.unsqueeze(-1))
    if bool((info != 0).any()):  # numerically singular despite the ridge: the least-norm solution
        solution = torch.linalg.pinv(a) @ b.unsqueeze(-1)
    return solution.squeeze(-1)[:, :k]


def sparsemap_active_set(scores: SequenceScores, max_iter: int = 100, tol: float = 1e-9) -> ActiveSet:
    """The SparseMAP solution by the active-set method, batched over documents."""
    with torch.no_grad():
        first = budgeted_viterbi(scores)
        n, length = first.shape
        slots = max_iter + 1
        keep = first.new_zeros(n, slots, length)
        keep[:, 0] = first
        weight = first.new_zeros(n, slots)
        weight[:, 0] = 1.0
        edges = first.new_zeros(n, slots)  # each structure's edge score (fixed: only the unaries are linearised)
        edges[:, 0] = scores.edge_score(first.unsqueeze(1)).squeeze(1)
        active = torch.zeros(n, slots, dtype=torch.bool, device=first.device)
        active[:, 0] = True
        converged = torch.zeros(n, dtype=torch.bool, device=first.device)
        rows = torch.arange(n, device=first.device)
        iterations = 0
        for iteration in range(1, max_iter + 1):
            iterations = iteration
            marginal = (weight.unsqueeze(-1) * keep).sum(1)  # [N, L]: p(keep)
            # the objective's gradient in the unary marginals: score - mu
            linear = scores.unary - torch.stack([1 - marginal, marginal], dim=-1)
            candidate = budgeted_viterbi(scores, linear)
            candidate_edges = scores.edge_score(candidate.unsqueeze(1)).squeeze(1)
            gain = scores.unary_score(candidate.unsqueeze(1), linear).squeeze(1) + candidate_edges
            current = (weight * (scores.unary_score(keep, linear) + edges)).sum(1)
            duplicate = ((keep == candidate.unsqueeze(1)).all(-1) & active).any(1)
            converged = converged | duplicate | (gain <= current + tol * (1 + current.abs()))
            if bool(converged.all()):
                break
            grow = ~converged
            keep[rows[grow], iteration] = candidate[grow]
            edges[rows[grow], iteration] = candidate_edges[grow]
            active[rows[grow], iteration] = True
            # slots past this iteration's are still empty: solve over the used ones only
            used = iteration + 1
            full_score = scores.unary_score(keep[:, :used]) + edges[:, :used]
            gram = _gram(keep[:, :used])
            for _ in range(used):
                rhs = torch.cat([full_score, full_score.new_ones(n, 1)], 1)
                target = torch.cat([_kkt_solve(gram, active[:, :used], rhs), weight[:, used:]], 1)
                blocked = ((target < -tol) & active).any(1) & grow
                settled = grow & ~blocked
                weight = torch.where(settled.unsqueeze(1), target, weight)
                if not bool(blocked.any()):
                    break
                # step from the old weights toward the target until a weight reaches zero; drop that structure
                direction = target - weight
                falling = (direction < 0) & active & blocked.unsqueeze(1)
                ratio = torch.where(falling, -weight / torch.where(falling, direction, -torch.ones_like(direction)),
                                    torch.full_like(weight, float("inf")))
                step, leaving = ratio.min(1)
                step = step.clamp(max=1.0)
                moved = weight + step.unsqueeze(1) * direction
                weight = torch.where(blocked.unsqueeze(1), moved, weight)
                out = torch.zeros_like(active)
                out[rows[blocked], leaving[blocked]] = True
                out = out | (blocked.unsqueeze(1) & active & (weight <= tol))
                active = active & ~out
                weight = torch.where(active, weight, torch.zeros_like(weight)).clamp(min=0.0)
        return ActiveSet(keep, weight, active, iterations, converged)


class _SparseMAP(torch.autograd.Function):
    @staticmethod
    def forward(ctx, keep_unary, drop_unary, start, pair, end, budget, max_iter):
        scores = SequenceScores(torch.stack([drop_unary, keep_unary], -1), start, pair, end, budget)
        solution = sparsemap_active_set(scores, max_iter=max_iter)
        support = solution.active & (solution.weight > 0)
        ctx.save_for_backward(solution.keep, support)
        return (solution.weight.unsqueeze(-1) * solution.keep).sum(1)

    @staticmethod
    def backward(ctx, grad_keep):
        keep, support = ctx.saved_tensors
        used = int(support.any(0).nonzero().max()) + 1 if bool(support.any()) else 1
        keep, support = keep[:, :used], support[:, :used]
        # d mu_keep / d p_k = y_k; then through p = J score on the support; d score_k / d keep_unary_i = y_ki
        dp = (keep * grad_keep.unsqueeze(1)).sum(-1)
        rhs = torch.cat([dp, dp.new_zeros(dp.shape[0], 1)], 1)
        dscore = _kkt_solve(_gram(keep), support, rhs)  # J dp: the KKT system with right-hand side (dp, 0)
        dscore = torch.where(support, dscore, torch.zeros_like(dscore))
        grad_keep_unary = (dscore.unsqueeze(-1) * keep).sum(1)
        grad_drop_unary = (dscore.unsqueeze(-1) * (1 - keep)).sum(1)
        return grad_keep_unary, grad_drop_unary, None, None, None, None, None


def sequence_budget_sparsemap(keep_unary: torch.Tensor, drop_unary: torch.Tensor, start: torch.Tensor,
                              pair: torch.Tensor, end: torch.Tensor, budget: torch.Tensor,
                              max_iter: int = 100) -> torch.Tensor:
    """p(keep) [N, L] of the SparseMAP distribution over budgeted sequences, differentiable in the unary scores
    (edge scores are constants). Solved in float64; returned in the scores' dtype."""
    dtype = keep_unary.dtype
    as64 = [t.to(torch.float64) for t in (keep_unary, drop_unary, start, pair, end)]
    marginal = _SparseMAP.apply(*as64, budget.to(torch.long), max_iter)
    return marginal.to(dtype)
