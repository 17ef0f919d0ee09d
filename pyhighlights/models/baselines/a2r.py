"""A2R: attention-to-rationale (Yu, Zhang, Chang and Jaakkola, NeurIPS 2021, "Understanding Interlocking
Dynamics of Cooperative Rationalization"). Reference code: github.com/Gorov/Understanding_Interlocking, commit
135863153baf8307699ee2dc271f6e64211854fb, ``run_beer_arc2_sentence_level_neurips21.ipynb`` (cited below as
*the notebook*; class ``SentenceA2R`` and its training loop).

Beside the hard-rationale predictor, a second predictor reads the whole text through the generator's soft
attention; the two predictors share their embeddings and encoder (the notebook's ``pred_embd`` and
``pred_gru``) and each has its own linear head (``pred_fc`` soft, ``pred_fc_hard`` hard). The attention is
the softmax of the generator's scores over the document's units; the hard rationale is a sample from them.

- soft path: the predictor encoder over the full text, its states summed with the attention as weights
  (``torch.sum(pred_sent_repts * rationale_, dim=1)``), then the ``attention_predictor`` slot (a predictor part);
- hard path: the predictor encoder over the embeddings times the rationale (``pred_embs * sent_rationale_``,
  a GRU packed to each document's length), max-pooled over the kept positions, zero when fewer than two
  words are kept (``batch_mask = sum(rationale) > 1``), then the ``predictor`` slot.

One step per batch, alternating (the notebook's ``counter``: odd batches from the first, 1-based, are the
generator's, even ones the predictors'):

1. generator (``gen_optimizer``, lr 1e-4): CE of the soft predictor, whose gradient reaches the generator
   through the attention (the predictors frozen: their optimiser does not step); from epoch ``hard_from``
   (``i_epoch >= switch_epoch + 20``) also the hard predictor's loss;
2. predictors (``pred_optimizer``, lr 1e-3), the generator read without gradients: CE(hard) + CE(soft) +
   KL(P_hard‖P_soft) + KL(P_soft‖P_hard), every weight 1 (``consistency_loss * 1.``).

Further notebook defaults: no dropout anywhere, trainable embeddings (``from_pretrained(freeze=False)``, one
table per path), Adam without weight decay (``args.l2_decay`` is never used), batch 500, 60 epochs.

Our word-level selection departs from the notebook's, which picks one sentence per document by REINFORCE
(``torch.multinomial`` over the sentence softmax mixed with ``exploration_rate`` 0.2 of uniform, reward
``-tanh(CE(hard))`` against a running baseline). Our batches carry no sentence boundaries, so:

- the generator is the ``selector`` slot (a keep/drop logit per word, a straight-through Gumbel sample);
  the attention is the softmax of its keep log-odds over the real words; the hard predictor's loss reaches
  the generator through the straight-through sample instead of REINFORCE;
- one sentence is a fixed budget; a per-word sample needs one, so the generator step also takes the
  ``sparsity`` and ``continuity`` terms (target 0.15, weights 10, as the Lei et al. re-implementations).

Our options, each a named setting: ``divergence_in_selector=true`` (the paper's Sec. 4 description: the
generator also shrinks the gap between the predictors; the notebook's generator step does not);
``losses.divergence.name=two_sided_js`` (the paper's JS divergence instead of the notebook's symmetric KL);
``min_kept=1`` (a single kept word is pooled, not zeroed); ``attention_predictor.dropout``/``predictor.dropout``.
"""
from __future__ import annotations

import torch
from cinnamon.registry import RegistrationKey

from pyhighlights.data.batch import Batch
from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.phases import Phase, PhasedTraining, TakesTurns
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, registration_key as key


def masked_attention(scores: torch.Tensor, word_mask: torch.Tensor) -> torch.Tensor:
    """Softmax of ``scores`` [B, W] over each document's real words; exactly 0 on padding."""
    return torch.softmax(scores.masked_fill(word_mask <= 0, float("-inf")), dim=-1)


def attention_pool(states: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
    """sum_i a_i h_i: [B, W, H] states, [B, W] attention -> [B, H]."""
    return torch.einsum("bw,bwh->bh", attention, states)


class A2RConfig(RNPConfig):
    attention_predictor: RegistrationKey = Param(key("predictor", "mlp"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "soft_task": key("loss", "cross_entropy"),
         "divergence": key("loss", "symmetric_kl"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity")})
    predictor_lr: float = Param(1e-3, gt=0.0, allow_inf_nan=False,
                                description="learning rate of both predictors (reference: pred_optimizer lr 1e-3)")
    selector_terms: list[str] = Param(["soft_task", "sparsity", "continuity"],
                                      description="loss terms of the generator step (reference: the soft "
                                                  "predictor's CE; sparsity and continuity are ours)")
    predictor_terms: list[str] = Param(["task", "soft_task", "divergence"],
                                       description="loss terms of the predictors' step (reference: both CEs "
                                                   "and the divergence)")
    hard_term: str = Param("task", description="the hard predictor's term, added to the generator step from "
                                               "hard_from on")
    hard_from: int | None = Param(20, ge=0, description="first epoch whose generator steps take hard_term "
                                                        "(reference: switch_epoch + 20); null = never")
    divergence_in_selector: bool = Param(False, description="the generator step also takes the divergence term "
                                                            "(the paper's description; not the reference code)")
    divergence_term: str = Param("divergence", description="the term divergence_in_selector adds")
    min_kept: int = Param(2, ge=1, description="a document with fewer kept words pools to zeros on the hard path "
                                               "(reference: batch_mask = sum(rationale) > 1)")
    outputs = {"losses": SELECTION_OUTPUTS | {"soft_logits"}}
    term_fields = {"selector_terms": "losses", "predictor_terms": "losses", "hard_term": "losses",
                   "divergence_term": "losses"}
    # lr: gen_optimizer; no dropout anywhere in SentenceA2R; packed GRU (pack_padded_sequence) over random
    # batches (DataLoader(shuffle=True)).
    defaults = {
        "lr": 1e-4, "encoder_dropout": 0.0, "recurrence": "within_length", "bucket": False,
        "selector": {"dropout": 0.0}, "predictor": {"dropout": 0.0}, "attention_predictor": {"dropout": 0.0},
        "losses": {"soft_task": {"logits": "soft_logits"}, "divergence": {"p": "logits", "q": "soft_logits"},
                   "sparsity": {"weight": 10.0, "target": 0.15}, "continuity": {"weight": 10.0}},
    }

    @classmethod
    def default(cls):
        config = super().default()
        config.add_condition(lambda c: bool(c.selector_terms) and bool(c.predictor_terms),
                             name="selector_terms and predictor_terms must not be empty")
        return config


class A2R(TakesTurns, PhasedTraining, RNP):
    def __init__(self, *, predictor_lr, selector_terms, predictor_terms, hard_term, hard_from,
                 divergence_in_selector, divergence_term, min_kept, **rnp):
        super().__init__(**rnp)
        self.attention_predictor = self.build_slot("attention_predictor", input_size=self.predictor_encoder.output_size,
                                              num_classes=self.num_classes)
        self.losses.require([*selector_terms, *predictor_terms, hard_term, divergence_term],
                            "model.selector_terms/predictor_terms/hard_term/divergence_term")
        self.predictor_lr = predictor_lr
        self.selector_terms, self.predictor_terms = list(selector_terms), list(predictor_terms)
        self.hard_term, self.hard_from = hard_term, hard_from
        self.divergence_in_selector, self.divergence_term = divergence_in_selector, divergence_term
        self.min_kept = min_kept
        # Batches trained so far: the alternation of the reference's global counter, kept across a resume.
        self.count_batches()

    # --- the two predictors -----------------------------------------------------------
    def predict(self, batch: Batch, keep_words: torch.Tensor | None) -> torch.Tensor:
        """The hard predictor; a document with fewer than ``min_kept`` kept words pools to zeros."""
        states, pool_mask = self.encode_words(self.predictor_encoder, batch, keep_words, norm=self.predictor_norm)
        pooled = self.pool(states, pool_mask)
        if keep_words is not None and self.min_kept > 1:
            enough = ((keep_words.detach() * batch.word_mask).sum(dim=1, keepdim=True) >= self.min_kept)
            pooled = pooled * enough.to(pooled.dtype)
        return self.predictor(pooled)

    def attention(self, batch: Batch, selection) -> torch.Tensor:
        """The generator's soft attention over words: softmax of its keep log-odds over the real words."""
        return masked_attention(selection.keep_logit, batch.word_mask)

    def soft_predict(self, batch: Batch, attention: torch.Tensor) -> torch.Tensor:
        """The soft predictor: the shared predictor encoder over the full text, attention-weighted sum."""
        states, _ = self.encode_words(self.predictor_encoder, batch, norm=self.predictor_norm)
        return self.attention_predictor(attention_pool(self.word_states(states, batch), attention))

    def read(self, batch: Batch, selection) -> dict[str, torch.Tensor]:
        logits = self.predict(batch, selection.mask)
        soft_logits = self.soft_predict(batch, self.attention(batch, selection))
        return self.outputs(batch, selection, logits, soft_logits=soft_logits)

    def forward(self, batch):
        return self.read(batch, self.select(batch))

    def word_scores(self, batch):
        """The attention, the soft rationale the paper ranks words by."""
        return self.attention(batch, self.select(batch)) * batch.word_mask

    # --- parts, optimisers, phases ----------------------------------------------------
    def selector_modules(self):
        return [self.selector_encoder, self.selector_norm, self.selector]

    def predictor_modules(self):
        return [self.predictor_encoder, self.predictor_norm, self.predictor, self.attention_predictor]

    def parts(self):
        return {"selector": self.selector_modules(), "predictors": self.predictor_modules()}

    def optimisers(self):
        return {"selector": self.make_optimizer(self.selector_modules()),
                "predictors": self.make_optimizer(self.predictor_modules(), lr=self.predictor_lr)}

    def generator_turn(self) -> bool:
        return int(self.batches_seen) % 2 == 0

    def generator_terms(self) -> tuple[str, ...]:
        terms = list(self.selector_terms)
        if self.hard_from is not None and self.current_epoch >= self.hard_from:
            terms.append(self.hard_term)
        if self.divergence_in_selector:
            terms.append(self.divergence_term)
        return tuple(dict.fromkeys(terms))

    def phases(self):
        return [
            # the generator, through the attention (and the straight-through sample), the predictors frozen
            Phase("selector", trains=("selector",), optimisers=("selector",), outputs=self.phase_outputs,
                  terms=self.generator_terms(), frozen=("predictors",), when=self.generator_turn,
                  logged="train/selector_loss"),
            # both predictors, the generator's attention and sample read without gradients
            Phase("predictors", trains=("predictors",), optimisers=("predictors",), outputs=self.phase_outputs,
                  terms=tuple(self.predictor_terms), detach=("selector",),
                  when=lambda: not self.generator_turn(), logged="train/predictor_loss"),
        ]

    def phase_outputs(self, step):
        return self.read_selection(step, "selector")

    def evaluation_scales(self):
        """Validation/test ``loss``: the terms some step trains (a term no step uses is logged, not summed)."""
        used = set(self.selector_terms) | set(self.predictor_terms) | {self.hard_term}
        if self.divergence_in_selector:
            used.add(self.divergence_term)
        return {name: 0.0 for name in self.losses.terms if name not in used}
