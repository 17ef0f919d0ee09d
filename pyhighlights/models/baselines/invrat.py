"""InvRat: invariant rationalization (Chang, Zhang, Yu and Jaakkola, ICML 2020, "Invariant Rationalization").
Reference code: github.com/code-terminator/invariant_rationalization, commit
e88eaef67cb1a4c3c4b9be2f08eaa2b8e55e4c6f: ``model.py`` (``InvRNN``), ``train.py`` (``train_imdb``),
``utils.py`` (``inv_rat_loss``, ``cal_sparsity_loss``, ``cal_continuity_loss``) and ``imdb_demo.py`` (its
defaults), cited below by file name; the ``beer_review`` branch (commit 30cc3552760b07d16c289ea3fd9ccd16410d4fd0:
``run_beer.py``, ``beer_model.py``, ``train.py train_beer``) for Beer.

Three players, each with its own embeddings and bidirectional GRU (``model.py``: ``gen_embed_layer`` /
``generator``, ``env_inv_*``, ``env_enable_*``):

- the generator (``selector`` slot): a keep/drop pair of logits per word, the hard argmax of their softmax with
  the softmax's gradient (``_independent_straight_through_sampling``, our ``straight_through`` selector);
- the environment-agnostic predictor (``predictor`` slot): its encoder over the rationale-masked embeddings,
  max-pooled over every real word (``-1e9`` on padding only: ``predictor_pool=valid``), a linear layer;
- the environment-aware predictor (``environment_head`` slot): its own encoder over the same rationale, which
  also reads the environment (the reference joins the environment's one-hot to every real word's input:
  ``environment_head.name=input_onehot``), max-pooled likewise, a linear layer.

Losses (``utils.py inv_rat_loss``, ``train.py``): ``task`` = CE(agnostic), ``env_task`` = CE(aware),
``invariance`` = ReLU(CE(agnostic) - CE(aware)) with weight ``diff_lambda`` 10, ``sparsity`` = |selected real
words / real words - 0.2| weight 1 (``sparsity_percentage``, ``sparsity_lambda``), ``continuity`` = the mean
|z_t - z_{t-1}| over the padded width weight 5 (``continuity_lambda``; padding counted, as
``cal_continuity_loss``). The generator minimises ``invariance + task + sparsity + continuity``.

Coordinate descent, one player per batch (``train_imdb``: ``path = step % 7`` on a step counter that runs on
across epochs): 1 generator step, then 3 of the agnostic predictor (``task``), then 3 of the aware one
(``env_task``), ``schedule=[1, 3, 3]``; each step's gradient reaches only its player's variables, so the
others are frozen (the generator's) or read without gradients (the predictors' steps). Three Adam optimisers,
lr 1e-3 (``imdb_demo.py``), as tf.keras computes Adam (``adam=keras``: eps 1e-7 on sqrt(v)); no dropout; every batch padded to ``max_seq_length`` 300 (``imdb.py text2idx``),
the GRUs run over the padded tensor (Keras ``Bidirectional(CuDNNGRU)``, no masking: ``recurrence=padded``);
batch 500, 40 epochs, embeddings 100d GloVe, trainable (set by the run, see the experiment configs).

Environments come from the batch (``Batch.environments``, one index per document; see
``pyhighlights/data/environments.py`` for how a corpus gets them). Training without them is refused; a
batch without them at evaluation or inference (raw text) gets the agnostic logits as ``env_logits``, so the
invariance gap reads zero there.

Under DDP each process's step averages the gradients of its own share of the batch, so the hinge is taken of
each process's CE gap (the reference runs one batch on one GPU); ``penalty=identity`` is linear and the same.

Departures, each a named setting: ``adam=torch`` (torch's Adam); ``schedule=[1, 1, 1]`` (the Beer branch's ``step % 3``; its README also
suggests both); ``losses.invariance.penalty=identity`` (h(t) = t, the paper's other choice);
``environment_head.name=pooled_onehot`` (the one-hot joined after pooling; works with the transformer, which reads no
extra inputs). Not reproduced: the Beer branch's generator (``InvRNNwithSpanPred``: one contiguous span of
``rationale_length`` words from an attention argmax); our selection is per word, as ``model.py``.
"""
from __future__ import annotations

from typing import Literal

import torch
from cinnamon.registry import RegistrationKey

from pyhighlights.components.environment_heads import KerasAdam
from pyhighlights.data.batch import Batch
from pyhighlights.data.environments import require_environments
from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.extra_inputs import accepting_extra_inputs, backbone_with_inputs
from pyhighlights.models.phases import Phase, PhasedTraining, TakesTurns
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, registration_key as key

PLAYERS = ("generator", "agnostic", "aware")


class InvRatConfig(RNPConfig):
    selector: RegistrationKey = Param(key("selector", "straight_through"))
    environment_head: RegistrationKey = Param(key("environment_head", "input_onehot"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "env_task": key("loss", "cross_entropy"),
         "invariance": key("loss", "invariance"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity")})
    num_environments: int = Param(2, ge=1, description="environments of the corpus (reference: --num_envs 2)")
    schedule: list[int] = Param([1, 3, 3], description="consecutive steps of the generator, the agnostic and the "
                                                       "aware predictor per cycle (reference: path = step % 7)")
    generator_terms: list[str] = Param(["task", "invariance", "sparsity", "continuity"],
                                       description="loss terms of the generator step (reference: gen_loss)")
    agnostic_terms: list[str] = Param(["task"], description="the agnostic predictor's terms (env_inv_loss)")
    aware_terms: list[str] = Param(["env_task"], description="the aware predictor's terms (env_enable_loss)")
    adam: Literal["keras", "torch"] = Param("keras", description="keras: Adam as tf.keras computes it (eps 1e-7 "
                                                                 "on sqrt(v), the reference); torch: torch.optim.Adam")
    outputs = {"losses": SELECTION_OUTPUTS | {"env_logits"}}
    term_fields = {"generator_terms": "losses", "agnostic_terms": "losses", "aware_terms": "losses"}
    defaults = {
        "lr": 1e-3, "encoder_dropout": 0.0, "recurrence": "padded", "pad_to": 300, "bucket": False,
        "predictor_pool": "valid", "selector": {"dropout": 0.0}, "predictor": {"dropout": 0.0},
        "losses": {"env_task": {"logits": "env_logits"}, "invariance": {"weight": 10.0},
                   "sparsity": {"weight": 1.0, "target": 0.2},
                   "continuity": {"weight": 5.0, "padding": "counted"}},
    }

    @classmethod
    def default(cls):
        config = super().default()
        config.add_condition(lambda c: len(c.schedule) == 3 and all(n >= 0 for n in c.schedule) and
                             sum(c.schedule) > 0, name="schedule: three step counts >= 0, not all 0")
        return config


class InvRat(TakesTurns, PhasedTraining, RNP):
    def __init__(self, *, num_environments, schedule, generator_terms, agnostic_terms, aware_terms, adam, **rnp):
        super().__init__(**rnp)
        self.adam = adam
        self.num_environments = num_environments
        self.environment_head = self.build_slot("environment_head", input_size=self.predictor_encoder.output_size,
                                                num_classes=self.num_classes, num_environments=num_environments)
        self.environment_encoder = backbone_with_inputs(
            accepting_extra_inputs(self.make_backbone), self.environment_head.extra_inputs,
            "model.environment_head: this head joins the environment to the encoder's inputs, which only a "
            "recurrent backbone reads; use model.environment_head.name=pooled_onehot")
        self.losses.require([*generator_terms, *agnostic_terms, *aware_terms],
                            "model.generator_terms/agnostic_terms/aware_terms")
        self.schedule = list(schedule)
        self.player_terms = {"generator": tuple(generator_terms), "agnostic": tuple(agnostic_terms),
                             "aware": tuple(aware_terms)}
        # The reference's global step, kept across epochs and a resume: it decides whose turn a batch is.
        self.count_batches()

    # --- the environment-aware predictor -----------------------------------------------
    def environment_predict(self, batch: Batch, keep_words: torch.Tensor | None) -> torch.Tensor:
        if batch.environments is None:
            if self.training:
                require_environments(None, "model=invrat")
            return self.predict(batch, keep_words)  # raw text / no environments: the agnostic logits
        keep_tokens = None if keep_words is None else self.kept_tokens(batch, keep_words)
        extra = self.environment_head.word_features(batch.environments, batch.attention_mask)
        if extra is None:
            states = self.environment_encoder(batch.input_ids, batch.attention_mask, keep=keep_tokens)
        else:
            states = self.environment_encoder(batch.input_ids, batch.attention_mask, keep=keep_tokens, extra=extra)
        pool_mask = batch.attention_mask if self.predictor_pool == "valid" or keep_tokens is None else \
            keep_tokens.detach()
        return self.environment_head(self.pool(states, pool_mask), batch.environments)

    def read(self, batch: Batch, selection) -> dict[str, torch.Tensor]:
        logits = self.predict(batch, selection.mask)
        return self.outputs(batch, selection, logits, env_logits=self.environment_predict(batch, selection.mask))

    def forward(self, batch):
        return self.read(batch, self.select(batch))

    # --- parts, optimisers, phases ----------------------------------------------------
    def parts(self):
        return {"generator": [self.selector_encoder, self.selector_norm, self.selector],
                "agnostic": [self.predictor_encoder, self.predictor_norm, self.predictor],
                "aware": [self.environment_encoder, self.environment_head]}

    def make_optimizer(self, modules, lr=None):
        if self.adam == "torch":
            return super().make_optimizer(modules, lr)
        return KerasAdam(self.param_groups(modules, lr), weight_decay=self.weight_decay)

    def optimisers(self):
        return {name: self.make_optimizer(modules) for name, modules in self.parts().items()}

    def turn(self) -> str:
        """Whose step this batch is: position ``batches_seen`` in the cycle of ``schedule``."""
        position = int(self.batches_seen) % sum(self.schedule)
        for player, steps in zip(PLAYERS, self.schedule):
            if position < steps:
                return player
            position -= steps
        raise AssertionError("unreachable: position < sum(schedule)")

    def phases(self):
        others = {player: tuple(p for p in PLAYERS if p != player) for player in PLAYERS}
        return [
            # the generator, through both predictors (frozen); the predictors' steps read its rationale detached
            Phase(player, trains=(player,), optimisers=(player,), outputs=self.phase_outputs,
                  terms=self.player_terms[player],
                  frozen=others[player] if player == "generator" else ("aware",) if player == "agnostic" else
                  ("agnostic",),
                  detach=() if player == "generator" else ("generator",),
                  when=lambda player=player: self.turn() == player, logged=f"train/{player}_loss")
            for player in PLAYERS
        ]

    def phase_outputs(self, step):
        return self.read_selection(step, "generator")

    def training_step(self, batch, batch_idx):
        require_environments(batch.environments, "model=invrat")
        super().training_step(batch, batch_idx)
