"""G-RAT as a plain PyTorch loop: the yardstick the benchmarks compare the framework against.

Written from the computation of the G-RAT reference code (Hu and Yu, AAAI 2024; github.com/shuaibo919/g-rat,
``train_guide``): one embedding table for selector and predictor, a bidirectional ``nn.GRU`` over the padded
batch, one LayerNorm shared by the two rationaliser encoders, dropout 0.2 before the heads, a hard
Gumbel-softmax selection, and a guider (embedding residual, LayerNorm, GELU-MLP attention with half-normal noise,
second attention pooling) with its own embedding table and GRU. Per batch: a guider step on the full input, then
the rationaliser forward, the guider's eval-mode re-read as the per-word target, and the rationaliser step on
CE + sparsity + continuity + f * guide BCE + (1 - f) * match. No framework, no metrics, no logging.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def bigru(emb_dim: int, hidden: int) -> nn.GRU:
    return nn.GRU(emb_dim, hidden // 2, batch_first=True, bidirectional=True)


class PlainGuider(nn.Module):
    def __init__(self, embeddings: torch.Tensor, hidden: int, classes: int, sigma: float = 1.0):
        super().__init__()
        self.embedding = nn.Embedding.from_pretrained(embeddings.clone(), freeze=True)
        self.gru = bigru(embeddings.shape[1], hidden)
        self.residual = nn.Linear(embeddings.shape[1], hidden)
        self.norm = nn.LayerNorm(hidden)
        self.dropout = nn.Dropout(0.2)
        self.scorer = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, 1))
        self.projection = nn.Linear(hidden, hidden)
        self.pool_scorer = nn.Sequential(nn.Linear(hidden, hidden), nn.LayerNorm(hidden), nn.GELU(),
                                         nn.Linear(hidden, 1))
        self.classifier = nn.Linear(hidden, classes)
        self.sigma = sigma

    def forward(self, ids, mask):
        embedded = self.embedding(ids) * mask.unsqueeze(-1)
        states, _ = self.gru(embedded)
        states = self.norm(states + self.residual(embedded))
        scores = self.scorer(self.dropout(states)).squeeze(-1)
        if self.training:
            scores = scores + (torch.randn_like(scores) * self.sigma).abs()
        attention = torch.softmax(scores.masked_fill(mask == 0, float("-inf")), dim=-1)
        scaled = self.norm(F.gelu(self.projection(attention.unsqueeze(-1) * states)))
        weights = torch.softmax(self.pool_scorer(scaled).squeeze(-1).masked_fill(mask == 0, float("-inf")), dim=-1)
        pooled = torch.bmm(weights.unsqueeze(1), scaled).squeeze(1)
        return attention, self.classifier(self.dropout(pooled))


class PlainRationaliser(nn.Module):
    def __init__(self, embeddings: torch.Tensor, hidden: int, classes: int):
        super().__init__()
        self.embedding = nn.Embedding.from_pretrained(embeddings.clone(), freeze=True)
        self.selector_gru, self.predictor_gru = bigru(embeddings.shape[1], hidden), bigru(embeddings.shape[1], hidden)
        self.norm = nn.LayerNorm(hidden)
        self.dropout = nn.Dropout(0.2)
        self.selector_head, self.predictor_head = nn.Linear(hidden, 2), nn.Linear(hidden, classes)

    def forward(self, ids, mask):
        embedded = self.embedding(ids) * mask.unsqueeze(-1)
        states, _ = self.selector_gru(embedded)
        selector_logits = self.selector_head(self.dropout(self.norm(states)))
        if self.training:
            keep = F.gumbel_softmax(selector_logits, tau=1.0, hard=True, dim=-1)[..., 1]
        else:
            keep = (selector_logits[..., 1] >= selector_logits[..., 0]).to(embedded.dtype)
        states, _ = self.predictor_gru(embedded * (keep * mask).unsqueeze(-1))
        states = self.norm(states).masked_fill(mask.unsqueeze(-1) == 0, float("-inf"))
        return selector_logits, keep, self.predictor_head(self.dropout(states.max(dim=1).values))


def settings_of(model) -> dict:
    """The hyper-parameters of a pyhighlights G-RAT, so that the plain loop trains with the same numbers."""
    terms = model.losses.terms
    return {"lr": model.lr, "guider_lr": model.guider_lr, "decay": model.decay, "target": terms["sparsity"].target,
            "weights": {name: terms[name].weight for name in ("sparsity", "continuity", "guide", "match")}}


class PlainGRAT:
    """Both halves and their Adam optimisers (weight decay 2e-6, as the reference's run_guide.py)."""

    def __init__(self, embeddings, *, hidden, weights, target, decay, lr, guider_lr, classes=2):
        self.guider = PlainGuider(embeddings, hidden, classes)
        self.rationaliser = PlainRationaliser(embeddings, hidden, classes)
        params = lambda m: [p for p in m.parameters() if p.requires_grad]  # noqa: E731
        self.guider_opt = torch.optim.Adam(params(self.guider), lr=guider_lr, weight_decay=2e-6)
        self.rationaliser_opt = torch.optim.Adam(params(self.rationaliser), lr=lr, weight_decay=2e-6)
        self.weights, self.target, self.decay, self.steps = weights, target, decay, 0

    def guider_step(self, ids, mask, labels):
        self.guider.train()
        _, logits = self.guider(ids, mask)
        self.guider_opt.zero_grad(set_to_none=True)
        F.cross_entropy(logits, labels).backward()
        self.guider_opt.step()

    def rationaliser_loss(self, ids, mask, labels):
        """The rationaliser's forward, the guider's eval-mode re-read as the per-word target, and the loss."""
        selector_logits, keep, logits = self.rationaliser(ids, mask)
        was_training = self.guider.training
        self.guider.eval()
        with torch.no_grad():
            attention, guider_logits = self.guider(ids, mask)
        self.guider.train(was_training)
        n = mask.sum(dim=1, keepdim=True)
        target = torch.clamp(attention / (1e-8 + attention.mean(dim=1, keepdim=True) + 1 / (1 + n)), max=1) * mask
        f = max(1.0 - max(self.steps - 1, 0) * self.decay, 0.0)
        log_p, log_q = F.log_softmax(logits, -1), F.log_softmax(guider_logits, -1)
        m = 0.5 * (log_p.exp() + log_q.exp())
        match = 0.5 * ((m * (m.log() - log_p)).sum(-1) + (m * (m.log() - log_q)).sum(-1)).mean()
        w = self.weights
        return (F.cross_entropy(logits, labels)
                + w["sparsity"] * (keep.sum() / mask.sum() - self.target).abs()  # padding counted, as the reference
                + w["continuity"] * (keep[:, 1:] - keep[:, :-1]).abs().mean()
                + w["guide"] * f * F.binary_cross_entropy_with_logits(selector_logits[..., 1], target)
                + w["match"] * (1 - f) * match)

    def joint_step(self, ids, mask, labels):
        self.guider_step(ids, mask, labels)
        self.rationaliser.train()
        loss = self.rationaliser_loss(ids, mask, labels)
        self.rationaliser_opt.zero_grad(set_to_none=True)
        loss.backward()
        self.rationaliser_opt.step()
        self.steps += 1

    @torch.no_grad()
    def evaluate(self, ids, mask, labels):
        self.rationaliser.eval()
        _, keep, logits = self.rationaliser(ids, mask)
        return (logits.argmax(-1) == labels).sum(), (keep * mask).sum()
