"""3PLAYER: the three-player game of Yu, Chang, Zhang and Jaakkola (EMNLP 2019, "Rethinking Cooperative
Rationalization: Introspective Extraction and Complement Control").

Reference code: github.com/Gorov/three_player_for_emnlp, commit d8cd74efeaf8c36304a9179690b384dbe88dbc6b; its
README's entry script ``three_player_games/run_beer_single_aspect_rationale_3players.py`` (cited below as *the
script*; its ``Argument`` class holds the settings) with the model ``HardRationale3PlayerClassificationModelForEmnlp``
of ``three_player_games/rationale_3players_for_emnlp.py`` (*the model file*), which extends
``HardRationale3PlayerClassificationModel`` of ``three_player_games/rationale_3players_sentence_classification_models.py``
(*the base file*).

Besides RNP's generator and predictor, a **complement predictor** reads the words the generator leaves out
(``E_anti_model(word_embeddings, 1 - z, mask)``, model file ``forward``) and learns the label from them; the
generator is rewarded when the predictor is right *and* the complement predictor is wrong, so whatever predicts
the label cannot stay outside the rationale. The complement predictor is the ``complement_predictor`` slot (a
predictor part, on its own encoder, as each ``ClassifierModule`` has its own ``RnnModel``); the generator is the
``selector`` slot, by default the REINFORCE policy of :mod:`pyhighlights.components.policy`.

Per document the reward is (model file ``get_advantages``, ``game_mode`` '3player')::

    reward = 0.1·acc + 1.2·(acc − λa·acc_c) − λs·|Σz/n − 8/n| − λc·|Σ|z_i − z_{i+1}|/n − 2·4/n|

acc, acc_c: whether the predictor's and the complement predictor's argmax is the label; n the document's length;
the two penalties ``count_regularization_baos_for_both`` (model file) with ``count_tokens`` 8 and
``count_pieces`` 4 (the script sets them on the model), z zero on padding and the shifted copy over the padded
width, its last column repeated. The advantage is the reward minus the mean reward of the last 200 batches (the
script's ``z_history_rewards = deque(maxlen=200)``, which starts with one 0), read without gradient.

One forward per batch, then three steps in the model file's ``train_one_step`` order, each its own Adam:

1. complement predictor: CE(complement logits, y) (``opt_E_anti``, lr 1e-3);
2. predictor: CE(logits, y) (``opt_E``, lr 1e-3);
3. generator: sum over documents and real words of −log p(z)·advantage (``opt_G_rl``, lr ``args.lr * 0.1``
   = 1e-4, base file ``init_rl_optimizers``).

Further defaults of the script: one bidirectional GRU per player (``hidden_dim`` 400, 200 per direction, packed
to each length: ``recurrence: within_length``), a linear head on the max-pooled kept states (``ClassifierModule``:
``nn.Linear(hidden_dim, num_labels)``, no dropout: ``dropout_rate`` is never read), frozen 100d GloVe
(``fine_tuning`` False; the experiment config), batch 40 drawn at random (``get_train_batch``: ``bucket: false``),
exploration 0.05 (the policy's), Adam without weight decay.

The introspective generator (``run_beer_single_aspect_introspection_3players.py``, model
``HardIntrospection3PlayerClassificationModel`` of the base file) is the selector part ``selector=introspective``
(:mod:`pyhighlights.components.introspection`: the generator classifies the full text and selects knowing its
predicted label), registered with its terms as ``three_player_introspective`` (the same class), two terms:
``consistency`` (CE of the predictor against the generator's predicted label; the predictor's ``e_loss`` is the mean
of it and the task CE: ``predictor_terms=[task,consistency]``, ``losses.task.weight=0.5``) and ``introspection`` (CE
of the generator's classifier, ``g_sup_loss``, stepped by a second Adam over the generator, ``opt_G_sup`` at lr
1e-3: ``introspection_terms=[introspection]``, ``introspection_lr``);
``experiment=three_player_introspective_beer_appearance`` is the script's setting. The part reads the selector
encoder's states, which serve as both the reference's classifier encoder and its generator's input (see that
module). The reference steps that Adam before the REINFORCE one on the same forward (``retain_graph=True``); here it
steps after it, on a forward of its own (one graph cannot be read again after an optimiser changed the parameters it
saved).

Options, each a named setting: ``reward=hinge`` (the paper's hinge form, the large-margin loss the model file
keeps as a TensorFlow comment: the gap term becomes −max(margin − (CE_c − CE), 0) per document, ``margin`` 0.2,
the script's ``args.margin``, read by no PyTorch code); ``losses.policy.reduction=mean``; ``complement_lr``;
``selector=gumbel`` (a straight-through Gumbel sample, read by the policy-gradient term as a draw from
softmax(logits)); ``generator_gradient=pathwise`` (registered with its terms as ``three_player_pathwise``): the
generator steps on a fresh Gumbel sample read through both predictors, frozen in that step, on ``selector_terms``
(the predictor's CE, ``gap``: the hinge above as a loss term, and RNP's sparsity and continuity terms), no reward.
Not an option: a document with nothing kept (or nothing left out) pools to zeros here; the reference max-pools
its states shifted by −1e6 then.
"""
from __future__ import annotations

from typing import Literal

import torch
from cinnamon.registry import RegistrationKey
from torch import nn

from pyhighlights.data.batch import Batch
from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.mechanics import global_sums
from pyhighlights.models.liu_family.mrd import remainder
from pyhighlights.models.phases import Phase, PhasedTraining
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, Real, registration_key as key


def count_penalties(mask: torch.Tensor, word_mask: torch.Tensor, tokens: float, pieces: float):
    """(continuity, sparsity) per document, as the reference's ``count_regularization_baos_for_both``:
    |transitions/n − 2·pieces/n| and |kept/n − tokens/n| over the padded width, n the document's length."""
    z = mask.detach() * word_mask
    lengths = word_mask.sum(dim=1)
    shifted = torch.cat([z[:, 1:], z[:, -1:]], dim=-1)
    continuity = ((z - shifted).abs().sum(dim=-1) / lengths - pieces * 2 / lengths).abs()
    sparsity = (z.sum(dim=-1) / lengths - tokens / lengths).abs()
    return continuity, sparsity


def game_reward(logits, complement_logits, labels, mask, word_mask, *, kind: str, margin: float,
                accuracy_weight: float, gap_weight: float, complement_weight: float, sparsity_weight: float,
                continuity_weight: float, count_tokens: float, count_pieces: float) -> torch.Tensor:
    """The generator's reward per document [B], without gradient (see the module's docstring).

    ``kind`` "accuracy": the gap term is acc − complement_weight·acc_c; "hinge": −max(margin − (CE_c − CE), 0).
    """
    logits, complement_logits = logits.detach(), complement_logits.detach()
    word_mask = word_mask.to(logits.dtype)
    right = (logits.argmax(dim=-1) == labels).to(logits.dtype)
    if kind == "hinge":
        ce = nn.functional.cross_entropy(logits, labels, reduction="none")
        ce_c = nn.functional.cross_entropy(complement_logits, labels, reduction="none")
        gap = -(margin - (ce_c - ce)).clamp_min(0.0)
    else:
        gap = right - complement_weight * (complement_logits.argmax(dim=-1) == labels).to(logits.dtype)
    continuity, sparsity = count_penalties(mask, word_mask, count_tokens, count_pieces)
    return accuracy_weight * right + gap_weight * gap - sparsity_weight * sparsity - continuity_weight * continuity


class ThreePlayerConfig(RNPConfig):
    selector: RegistrationKey = Param(key("selector", "policy"))
    complement_predictor: RegistrationKey = Param(key("predictor", "mlp"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "complement_task": key("loss", "cross_entropy"),
         "policy": key("loss", "policy_gradient"),
         # read by no step of the reference game: the terms of generator_gradient=pathwise (our option)
         "gap": key("loss", "complement_gap"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity")})
    layer_norm: Literal["none", "selector", "both"] = Param(
        "none", description="LayerNorm on encoder states: none (reference), the selector path, or each path its own")
    predictor_lr: float = Param(1e-3, gt=0.0, allow_inf_nan=False,
                                description="learning rate of the predictor (reference: opt_E, lr 1e-3)")
    complement_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                        description="learning rate of the complement predictor (reference: "
                                                    "opt_E_anti, lr 1e-3); null = predictor_lr")
    generator_gradient: Literal["reward", "pathwise"] = Param(
        "reward", description="how the generator learns: REINFORCE on the reward (reference), or pathwise, its "
                              "selector_terms read through a straight-through mask on a fresh sample (our option, "
                              "three_player_pathwise)")
    reward: Literal["accuracy", "hinge"] = Param(
        "accuracy", description="the generator's gap term: accuracy gap (reference) or the paper's hinge on the "
                                "two cross-entropies")
    accuracy_weight: float = Real(0.1, ge=0.0, description="weight of the predictor's accuracy in the reward (0.1)")
    gap_weight: float = Real(1.2, ge=0.0, description="weight of the gap term (reference: lambda_acc_gap 1.2)")
    complement_weight: float = Real(1.0, ge=0.0, description="weight of the complement's accuracy inside the gap "
                                                             "(reference: lambda_anti 1)")
    margin: float = Real(0.2, ge=0.0, description="reward=hinge: the margin h of max(h - (CE_c - CE), 0) "
                                                  "(reference: args.margin 0.2)")
    sparsity_weight: float = Real(1.0, ge=0.0, description="weight of the kept-count penalty (lambda_sparsity 1)")
    continuity_weight: float = Real(1.0, ge=0.0, description="weight of the piece-count penalty "
                                                             "(lambda_continuity 1)")
    count_tokens: float = Real(8.0, ge=0.0, description="words a rationale should keep (count_tokens 8)")
    count_pieces: float = Real(4.0, ge=0.0, description="pieces a rationale should have (count_pieces 4)")
    baseline_window: int = Param(200, ge=1, description="batches whose mean reward is the baseline "
                                                        "(reference: deque(maxlen=200), starting with one 0)")
    complement_terms: list[str] = Param(["complement_task"], description="loss terms of the complement step")
    predictor_terms: list[str] = Param(["task"], description="loss terms of the predictor step (the introspective "
                                                             "script: task and consistency, each weight 0.5)")
    selector_terms: list[str] = Param(["policy"], description="loss terms of the generator step")
    introspection_terms: list[str] = Param([], description="loss terms of the introspective generator's classifier "
                                                           "step (selector=introspective); empty = no such step")
    introspection_lr: float = Param(1e-3, gt=0.0, allow_inf_nan=False,
                                    description="learning rate of that step (reference: opt_G_sup, lr 1e-3)")
    outputs = {"losses": SELECTION_OUTPUTS | {"complement_logits", "reward", "advantage"}}
    term_fields = {"complement_terms": "losses", "predictor_terms": "losses", "selector_terms": "losses",
                   "introspection_terms": "losses"}
    defaults = {
        "lr": 1e-4, "encoder_dropout": 0.0, "recurrence": "within_length", "bucket": False,
        "predictor": {"dropout": 0.0}, "complement_predictor": {"dropout": 0.0},
        "losses": {"complement_task": {"logits": "complement_logits"}, "gap": {"weight": 1.2}},
    }


class IntrospectiveThreePlayerConfig(ThreePlayerConfig):
    """``three_player_introspective``: the introspection script's model (``HardIntrospection3PlayerClassificationModel``),
    the same game with ``selector=introspective`` and its two terms (see the module's docstring)."""

    selector: RegistrationKey = Param(key("selector", "introspective"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "complement_task": key("loss", "cross_entropy"),
         "policy": key("loss", "policy_gradient"), "consistency": key("loss", "cross_entropy"),
         "introspection": key("loss", "cross_entropy"), "gap": key("loss", "complement_gap"),
         "sparsity": key("loss", "sparsity"), "continuity": key("loss", "continuity")})
    predictor_terms: list[str] = Param(["task", "consistency"], description="loss terms of the predictor step "
                                                                          "(reference: e_loss, the mean of both CEs)")
    introspection_terms: list[str] = Param(["introspection"], description="loss terms of the generator's "
                                                                          "classifier step (reference: g_sup_loss)")
    outputs = {"losses": ThreePlayerConfig.outputs["losses"] | {"selector_label_logits", "selector_label"}}
    # e_loss = (CE(predict, label) + CE(predict, cls_pred)) / 2; g_sup_loss = CE(cls_pred_logits, label)
    defaults = {"losses": {"task": {"weight": 0.5}, "consistency": {"labels": "selector_label", "weight": 0.5},
                           "introspection": {"logits": "selector_label_logits"}}}


class PathwiseThreePlayerConfig(ThreePlayerConfig):
    """``three_player_pathwise`` (our option, not the reference's): the same three players and steps, but the
    generator is RNP's Gumbel selector and learns by backpropagation through both predictors (frozen in its step)
    instead of REINFORCE: CE on the rationale, the complement's large-margin gap (the paper's hinge, margin 0.2,
    weight 1.2 as the reward's gap), and RNP's sparsity and continuity terms in place of the count penalties."""

    selector: RegistrationKey = Param(key("selector", "gumbel"))
    generator_gradient: Literal["reward", "pathwise"] = Param("pathwise", description="see three_player")
    selector_terms: list[str] = Param(["task", "gap", "sparsity", "continuity"],
                                      description="loss terms of the generator step, read through its mask")


class ThreePlayer(PhasedTraining, RNP):
    def __init__(self, *, predictor_lr, complement_lr, reward, accuracy_weight, gap_weight, complement_weight,
                 margin, sparsity_weight, continuity_weight, count_tokens, count_pieces, baseline_window,
                 complement_terms, predictor_terms, selector_terms, introspection_terms, introspection_lr,
                 generator_gradient, **rnp):
        super().__init__(**rnp)
        self.complement_encoder = self.make_backbone()
        size = self.complement_encoder.output_size
        self.complement_norm: nn.Module = nn.LayerNorm(size) if rnp["layer_norm"] == "both" else nn.Identity()
        self.complement_predictor = self.build_slot("complement_predictor", input_size=size,
                                                    num_classes=self.num_classes)
        self.step_terms = {"complement": tuple(complement_terms), "predictor": tuple(predictor_terms),
                           "selector": tuple(selector_terms), "introspection": tuple(introspection_terms)}
        self.losses.require([t for terms in self.step_terms.values() for t in terms],
                            "model.complement_terms/predictor_terms/selector_terms/introspection_terms")
        if introspection_terms and not hasattr(self.selector, "introspect"):
            raise ValueError("model.introspection_terms trains the generator's classifier, but model.selector "
                             f"({type(self.selector).__name__}) has none; use selector=introspective")
        self.introspection_lr = introspection_lr
        self.generator_gradient = generator_gradient
        classes = getattr(getattr(self.selector, "classifier", None), "out_features", self.num_classes)
        if classes != self.num_classes:
            raise ValueError(f"model.selector.num_classes is {classes} but the corpus has {self.num_classes} "
                             f"classes; set model.selector.num_classes={self.num_classes}")
        self.predictor_lr = predictor_lr
        self.complement_lr = predictor_lr if complement_lr is None else complement_lr
        self.reward_kind, self.margin = reward, margin
        self.accuracy_weight, self.gap_weight, self.complement_weight = accuracy_weight, gap_weight, complement_weight
        self.sparsity_weight, self.continuity_weight = sparsity_weight, continuity_weight
        self.count_tokens, self.count_pieces = count_tokens, count_pieces
        # The baseline: the last ``baseline_window`` batch rewards, a ring that starts with one 0 (kept in checkpoints).
        self.register_buffer("reward_history", torch.zeros(baseline_window, dtype=torch.float64))
        self.register_buffer("rewards_seen", torch.ones((), dtype=torch.long))

    # --- the players ----------------------------------------------------------------
    def complement_predict(self, batch: Batch, left_out: torch.Tensor) -> torch.Tensor:
        states, pool_mask = self.encode_words(self.complement_encoder, batch, left_out, norm=self.complement_norm)
        return self.complement_predictor(self.pool(states, pool_mask))

    def baseline(self) -> torch.Tensor:
        seen = min(int(self.rewards_seen), self.reward_history.numel())
        return self.reward_history[:seen].mean()

    def remember_reward(self, reward: torch.Tensor) -> None:
        """Append the global batch's mean reward to the baseline's history (the same on every process)."""
        total, count = global_sums(reward.detach().sum(), torch.tensor(float(reward.numel()), device=reward.device))
        slot = int(self.rewards_seen) % self.reward_history.numel()
        self.reward_history[slot] = (total / count).to(self.reward_history.dtype)
        self.rewards_seen += 1

    def rewards(self, batch: Batch, selection, logits, complement_logits) -> torch.Tensor:
        return game_reward(logits, complement_logits, batch.labels, selection.mask, batch.word_mask,
                           kind=self.reward_kind, margin=self.margin, accuracy_weight=self.accuracy_weight,
                           gap_weight=self.gap_weight, complement_weight=self.complement_weight,
                           sparsity_weight=self.sparsity_weight, continuity_weight=self.continuity_weight,
                           count_tokens=self.count_tokens, count_pieces=self.count_pieces)

    def forward(self, batch):
        selection = self.select(batch)
        # the players read the draw as data: the generator learns only from the reward (a Gumbel selector's
        # straight-through mask would otherwise tie the three steps' graphs together)
        drawn = selection.mask.detach()
        logits = self.predict(batch, drawn)
        complement_logits = self.complement_predict(batch, remainder(drawn, batch.word_mask))
        reward = self.rewards(batch, selection, logits, complement_logits)
        advantage = reward - self.baseline().to(reward.dtype)
        extra = {}
        if selection.label_logits is not None:  # the introspective generator's own prediction of the label
            extra = {"selector_label_logits": selection.label_logits,
                     "selector_label": selection.label_logits.detach().argmax(dim=-1)}
        return self.outputs(batch, selection, logits, complement_logits=complement_logits, reward=reward,
                            advantage=advantage, **extra)

    # --- parts, optimisers, phases --------------------------------------------------
    def parts(self):
        return {"complement": [self.complement_encoder, self.complement_norm, self.complement_predictor],
                "predictor": [self.predictor_encoder, self.predictor_norm, self.predictor],
                "selector": [self.selector_encoder, self.selector_norm, self.selector]}

    def optimisers(self):
        parts = self.parts()
        built = {"complement": self.make_optimizer(parts["complement"], lr=self.complement_lr),
                 "predictor": self.make_optimizer(parts["predictor"], lr=self.predictor_lr),
                 "selector": self.make_optimizer(parts["selector"])}
        if self.step_terms["introspection"]:  # the reference's opt_G_sup: a second Adam over the generator
            built["introspection"] = self.make_optimizer(parts["selector"], lr=self.introspection_lr)
        return built

    def phase_outputs(self, step):
        # one forward (one sample) per batch, read by all three steps; their graphs share no parameter
        if "outputs" not in step.state:
            step.state["outputs"] = self(step.batch)
        return step.state["outputs"]

    def pathwise_outputs(self, step):
        """A fresh sample read by both predictors with its gradient (generator_gradient=pathwise)."""
        batch = step.batch
        selection = self.select(batch)
        if not selection.mask.requires_grad:
            raise ValueError(f"model.generator_gradient=pathwise backpropagates through the generator's mask, but "
                             f"model.selector ({type(self.selector).__name__}) draws it without gradient; use "
                             f"selector=gumbel")
        logits = self.predict(batch, selection.mask)
        complement_logits = self.complement_predict(batch, remainder(selection.mask, batch.word_mask))
        shared = step.state["outputs"]
        return self.outputs(batch, selection, logits, complement_logits=complement_logits, reward=shared["reward"],
                            advantage=shared["advantage"])

    def after_generator(self, result, step) -> None:
        outputs = result.outputs
        self.log("train/reward", outputs["reward"].detach().mean(), batch_size=step.batch.size)
        self.log("train/baseline", self.baseline().detach().float(), batch_size=step.batch.size)
        self.remember_reward(outputs["reward"])

    def introspection_outputs(self, step):
        """The generator's classifier on the full text, a forward of its own (the generator step has stepped)."""
        states, _ = self.encode_words(self.selector_encoder, step.batch, norm=self.selector_norm)
        label_logits, _ = self.selector.introspect(self.word_states(states, step.batch), step.batch.word_mask)
        return {**step.state["outputs"], "selector_label_logits": label_logits}

    def phases(self):
        terms = self.step_terms
        # REINFORCE reads the shared forward; the pathwise step a fresh sample through the frozen predictors
        generator = dict(outputs=self.phase_outputs) if self.generator_gradient == "reward" else \
            dict(outputs=self.pathwise_outputs, frozen=("complement", "predictor"))
        phases = [
            Phase("complement", trains=("complement",), optimisers=("complement",), outputs=self.phase_outputs,
                  terms=terms["complement"], logged="train/complement_loss"),
            Phase("predictor", trains=("predictor",), optimisers=("predictor",), outputs=self.phase_outputs,
                  terms=terms["predictor"], logged="train/predictor_loss"),
            Phase("selector", trains=("selector",), optimisers=("selector",), terms=terms["selector"],
                  logged="train/selector_loss", after=self.after_generator, **generator),
        ]
        if terms["introspection"]:
            phases.append(Phase("introspection", trains=("selector",), optimisers=("introspection",),
                                outputs=self.introspection_outputs, terms=terms["introspection"],
                                logged="train/introspection_loss"))
        return phases

    def loss(self, outputs, scales=None, only=None):
        """The terms of the model's steps only (the introspective terms read outputs only that selector makes)."""
        used = {t for terms in self.step_terms.values() for t in terms}
        return super().loss(outputs, scales=scales, only=used if only is None else only)

    def evaluation_scales(self):
        """Validation/test ``loss``: the predictor step's terms (the complement's CE should rise; the policy term
        is logged, not summed)."""
        return {name: 0.0 for name in self.losses.terms if name not in self.step_terms["predictor"]}
