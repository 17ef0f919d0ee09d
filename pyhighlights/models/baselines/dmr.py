"""DMR: distribution matching for rationalization (Huang, Chen, Du and Yang, AAAI 2021, "Distribution Matching
for Rationalization"). Reference code: github.com/kochsnow/distribution-matching-rationality, commit
95b40ec86f8f390ff3824b4e0afb1cccaae4d8bd (``run.py``, ``core/model.py``, ``core/train_utils.py``,
``core/distance.py``, ``core/metric.py``, ``core/eval_utils.py``, ``scripts/run_beer_0.sh``), cited by file
name below.

A rationale should look like its full text to the classifier that reads it: its features (the classifier's
pooled states) should be distributed as the full text's, and its predicted class distribution as that of a
teacher trained on the full text. The reference builds this on the class-wise game of CAR (Chang et al.,
NeurIPS 2019; ``core/model.py TargetRNN``), and so do we: :class:`DMR` is CAR's :class:`~pyhighlights.models.baselines.car.ClasswiseGame`
(its players, their one-hots, the factual explanation, TF1's Adam) with a teacher, the discriminator's matching
terms and the reference's two steps a batch:

- one generator per class (``gen_neg``, ``gen_pos``; here ``generators`` / ``generator_encoders``, each built
  from the ``selector`` slot): its encoder reads the embeddings joined with the document's label one-hot (zero
  on padding), a keep/drop pair of logits per word, the hard argmax of their softmax with the softmax's gradient
  (``independent_straight_through_sampling``: ``selector=straight_through``), padding "drop";
- one discriminator (the ``predictor`` slot on ``predictor_encoder``): its encoder reads the rationale-masked
  embeddings joined with the one-hot of the generator that chose them (``gen_idx``, at every position, padding
  included), max-pooled over every real word (-1e6 on padding: ``predictor_pool=valid``), a linear layer; it
  also reads the full text the same way (``raw_embeddings``) for the feature match;
- the teacher (the ``auxiliary_predictor`` slot on ``auxiliary_encoder``; ``TeacherEncoder``): its own
  embeddings and encoder over the full text, max-pooled, a linear layer.

Schedule (``run.py``): ``auxiliary_epochs`` (``pretrain_epchos``) epochs train only the teacher, CE on the
full text (``train_teacher``); its last state is kept (``auxiliary_selection=last``: the dev F1 is printed,
never used) and frozen. Then per batch (``train``), ``path = discriminator steps % 2``: the generator of
class ``path`` explains every document of the batch, and

1. generator ``path``: ``target_likelihood`` (CAR's ``target_probability`` term: -mean p(path | rationale),
   ``gen_nl_loss``) + λs·``sparsity`` (|selected / real words - s|) + λc·``continuity`` (the mean
   |z_t - z_{t-1}| over the padded width), the discriminator frozen; its own Adam steps;
2. discriminator, on the same rationale read detached: cls·``task`` (CE with the labels) + om·``distillation``
   (CE against softmax(teacher / T), ``dis_soft_loss``) + fm·``feature_match`` (CMD between the pooled
   rationale and pooled full-text features over the batch, ``cmd_loss_1``); its Adam steps.

The reference takes both gradients before either step (the generator's ``gen_tape`` forward sees the
discriminator before its update), so running the generator's step first, the discriminator frozen, and the
discriminator's on the rationale drawn before it, is the same arithmetic. Four Adams as
``tf.train.AdamOptimizer`` computes them (``lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)``, eps 1e-8 on sqrt(v):
``adam=tf``), lr 1e-3 each (``gen_pos_lr``, ``gen_neg_lr``, ``discriminator_lr``).

Evaluation (``eval_utils.py validate``): a document's rationale is its *factual* one, from the generator of
its label fed its label; the discriminator reads it with that generator's one-hot. Our ``logits`` are that
discriminator's prediction (the reference scores no prediction). ``evaluation_label=teacher`` takes the
teacher's prediction on the full text instead of the label (what ``highlight`` does with raw text, which has no
label).

Defaults: ``scripts/run_beer_0.sh`` (Beer appearance): s 0.08, λs 5, λc 10, cls 0.1 (``cls_lambda``), om 0.9
(``om_lambda``), fm 0.01 (``fm_lambda``), T 3 (``params_t``), CMD with 5 moments (``distance`` cmd), teacher
10 epochs, sequences padded to 256 (``max_seq_length``) and the GRUs run over the padded tensor (Keras
``Bidirectional(CuDNNGRU)``, no masking: ``recurrence=padded``), random batches, no dropout. The experiment
configs ``dmr_<beer|hotel>_<aspect>`` add each script's corpus settings: 37 epochs after the teacher's, batch
200, classes balanced (``balance``), 100d GloVe in four trainable tables, 100 GRU units per direction.

Departures, each a named option: ``losses.feature_match.central=powered`` (the CMD's central moments; the
reference's ``moment_diff`` multiplies by k instead of raising to the power k, so only the means are
matched); ``adam=torch``; ``auxiliary_selection=f1`` or ``accuracy`` (the teacher's best validation epoch);
``evaluation_label=teacher``; ``conditioning=states`` (the one-hots joined to the
encoders' states instead of their inputs: what a transformer backbone, which reads no extra inputs, needs).
Always: a CMD norm of an exactly zero difference has gradient 0 (the reference's ``sqrt`` gives NaN there:
a batch of one document); the ``mmd`` and ``coral`` distances of ``core/distance.py`` are not offered (they
call Theano methods and cannot run); the straight-through mask is ``hard + (p - p.detach())``, exactly 0/1.
"""
from __future__ import annotations

from typing import Literal

import torch
from cinnamon.registry import RegistrationKey
from torch import nn

from pyhighlights.components.selectors import Selection
from pyhighlights.data.batch import Batch
from pyhighlights.models.base import SELECTION_OUTPUTS, OptimConfig, SPPModel
from pyhighlights.models.baselines.car import ClasswiseGame
from pyhighlights.models.mechanics import AuxiliaryPretraining
from pyhighlights.models.phases import Phase
from pyhighlights.registry import Param, registration_key as key

#: What the discriminator's step reads beside the selection outputs.
DMR_OUTPUTS = frozenset({"targets", "teacher_logits", "rationale_features", "text_features"})


class DMRConfig(OptimConfig):
    selector: RegistrationKey = Param(key("selector", "straight_through"))
    predictor: RegistrationKey = Param(key("predictor", "mlp"))
    auxiliary_predictor: RegistrationKey = Param(key("predictor", "mlp"))
    losses: dict[str, RegistrationKey] = Param(
        {"target_likelihood": key("loss", "target_probability"), "sparsity": key("loss", "sparsity"),
         "continuity": key("loss", "continuity"), "task": key("loss", "cross_entropy"),
         "distillation": key("loss", "soft_cross_entropy"), "feature_match": key("loss", "cmd")})
    auxiliary_losses: dict[str, RegistrationKey] = Param({"auxiliary_task": key("loss", "cross_entropy")})
    generator_terms: list[str] = Param(["target_likelihood", "sparsity", "continuity"],
                                       description="loss terms of a generator's step (reference: gen_loss)")
    discriminator_terms: list[str] = Param(["task", "distillation", "feature_match"],
                                           description="loss terms of the discriminator's step (dis_loss)")
    discriminator_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                           description="the discriminator's learning rate (reference: "
                                                       "discriminator_lr 1e-3); null = lr")
    auxiliary_epochs: int = Param(10, ge=1, description="epochs in which only the teacher trains, on the full "
                                                        "text (reference: pretrain_epchos 10)")
    auxiliary_lr: float | None = Param(None, gt=0.0, allow_inf_nan=False,
                                       description="the teacher's learning rate (reference: discriminator_lr); "
                                                   "null = lr")
    auxiliary_selection: Literal["last", "f1", "accuracy"] = Param(
        "last", description="the teacher state kept: its last pre-training epoch (reference), or the best on the "
                            "full validation text")
    adam: Literal["tf", "torch"] = Param(
        "tf", description="tf: Adam as tf.train.AdamOptimizer computes it (eps 1e-8 on sqrt(v), "
                          "the reference); torch: torch.optim.Adam")
    evaluation_label: Literal["label", "teacher"] = Param(
        "label", description="the class whose generator explains a document at evaluation: its label (the "
                             "reference's factual rationale) or the teacher's prediction on the full text")
    conditioning: Literal["inputs", "states"] = Param(
        "inputs", description="where the label / generator one-hots are joined: the encoders' inputs "
                              "(reference) or their output states (a transformer backbone)")
    outputs = {"losses": SELECTION_OUTPUTS | DMR_OUTPUTS,
               "auxiliary_losses": frozenset({"auxiliary_full_logits", "labels"})}
    term_fields = {"generator_terms": "losses", "discriminator_terms": "losses"}
    defaults = {
        "lr": 1e-3, "encoder_dropout": 0.0, "recurrence": "padded", "pad_to": 256, "bucket": False,
        "predictor_pool": "valid", "selector": {"dropout": 0.0}, "predictor": {"dropout": 0.0},
        "auxiliary_predictor": {"dropout": 0.0},
        "losses": {"target_likelihood": {"logits": "logits", "targets": "targets"},
                   "sparsity": {"weight": 5.0, "target": 0.08},
                   "continuity": {"weight": 10.0, "padding": "counted"},
                   "task": {"weight": 0.1},
                   "distillation": {"weight": 0.9, "temperature": 3.0, "p": "logits", "q": "teacher_logits"},
                   "feature_match": {"weight": 0.01, "p": "rationale_features", "q": "text_features"}},
        "auxiliary_losses": {"auxiliary_task": {"logits": "auxiliary_full_logits"}},
    }

    @classmethod
    def default(cls):
        config = super().default()
        config.add_condition(lambda c: bool(c.generator_terms) and bool(c.discriminator_terms),
                             name="generator_terms and discriminator_terms must not be empty")
        return config


class DMR(AuxiliaryPretraining, ClasswiseGame):
    """CAR's players and their explanation, a teacher beside them, the discriminator's matching terms, and the
    reference's schedule: the generator's step, then the discriminator's."""

    def __init__(self, *, generator_terms, discriminator_terms, discriminator_lr, auxiliary_epochs, auxiliary_lr,
                 auxiliary_selection, adam, evaluation_label, conditioning, **common):
        super().__init__(**common)
        # the evaluation's rationale is chosen by explained_class (select), the generator one-hot always on padding
        self.init_game(generator_terms=generator_terms, discriminator_terms=discriminator_terms,
                       adam=adam, rationale="label", conditioning=conditioning,
                       index_on_padding=True)
        self.evaluation_label = evaluation_label
        classes = self.num_classes
        self.auxiliary_encoder = self.make_backbone()
        self.auxiliary_predictor = self.build_slot("auxiliary_predictor", input_size=self.auxiliary_encoder.output_size,
                                                   num_classes=classes)
        self.discriminator_lr = discriminator_lr or self.lr
        self.auxiliary_lr = auxiliary_lr or self.lr
        self.init_auxiliary(auxiliary_epochs, self.build_slot("auxiliary_losses"), selection=auxiliary_selection,
                            frozen_mode="eval")
        # The reference's discriminator step counter: it picks the generator of a batch (path = steps % 2) and
        # counts the game's batches only, not the teacher's; a buffer, so the turn survives a resume.
        self.register_buffer("game_steps", torch.zeros((), dtype=torch.long))

    def turn(self) -> int:
        return int(self.game_steps) % self.num_classes

    def discriminate_with_features(self, batch: Batch, keep_words: torch.Tensor | None, paths: torch.Tensor):
        """(logits, pooled features) of the discriminator on ``keep_words`` (None: the full text)."""
        features = self.discriminator_features(batch, keep_words, paths)
        return self.discriminator_head(features, paths), features

    def auxiliary_modules(self):
        return [self.auxiliary_encoder, self.auxiliary_predictor]

    def auxiliary_logits(self, batch, keep_words=None):
        states, pool_mask = self.encode_words(self.auxiliary_encoder, batch, keep_words)
        return self.auxiliary_predictor(self.pool(states, pool_mask))

    # --- evaluation: the factual rationale ------------------------------------------------
    def explained_class(self, batch: Batch) -> torch.Tensor:
        """[B]: the class whose generator explains each document (its label, or the teacher's prediction)."""
        labels = batch.labels
        if self.evaluation_label == "teacher" or labels is None or bool((labels < 0).any()):
            with torch.no_grad():
                return self.auxiliary_logits(batch).argmax(dim=-1)
        return labels

    def select(self, batch: Batch) -> Selection:
        return self.chosen_selection(self.factual_selections(batch), self.explained_class(batch))

    def highlight(self, texts, batch_size: int = 32):
        """Raw text has no label: each text is explained by the generator of the teacher's prediction."""
        saved, self.evaluation_label = self.evaluation_label, "teacher"
        try:  # past the game's, which explains by the discriminator's prediction
            return SPPModel.highlight(self, texts, batch_size)
        finally:
            self.evaluation_label = saved

    def forward(self, batch: Batch):
        classes = self.explained_class(batch)
        selection = self.select(batch)
        logits, rationale_features = self.discriminate_with_features(batch, selection.mask, classes)
        text_features = self.discriminator_features(batch, None, classes)
        return self.outputs(batch, selection, logits, targets=classes, teacher_logits=self.auxiliary_logits(batch),
                            rationale_features=rationale_features, text_features=text_features)

    # --- parts, optimisers, phases --------------------------------------------------------
    def generator_modules(self, c: int) -> list[nn.Module]:
        return [self.generator_encoders[c], self.generators[c]]

    def discriminator_modules(self) -> list[nn.Module]:
        return [self.predictor_encoder, self.predictor]

    def parts(self):
        parts = {f"generator{c}": self.generator_modules(c) for c in range(self.num_classes)}
        return {**parts, "discriminator": self.discriminator_modules(), "auxiliary": self.auxiliary_modules()}

    def optimisers(self):
        built = {f"generator{c}": self.make_optimizer(self.generator_modules(c)) for c in range(self.num_classes)}
        return {**built, "discriminator": self.make_optimizer(self.discriminator_modules(), lr=self.discriminator_lr),
                "auxiliary": self.make_optimizer(self.auxiliary_modules(), lr=self.auxiliary_lr)}

    def phases(self):
        game = lambda c: (lambda: not self.pretraining and self.turn() == c)  # noqa: E731
        phases = [
            # the teacher alone on the full text while it pre-trains
            Phase("auxiliary", trains=("auxiliary",), optimisers=("auxiliary",), outputs=self.auxiliary_outputs,
                  losses="auxiliary_losses", when=lambda: self.pretraining, logged="train/auxiliary_loss",
                  progress_bar=True, reported=False)]
        for c in range(self.num_classes):
            # generator c through the frozen discriminator; the discriminator then reads its rationale detached
            phases.append(Phase(f"generator{c}", trains=(f"generator{c}",), optimisers=(f"generator{c}",),
                                outputs=self.generator_outputs, terms=self.generator_terms,
                                frozen=("discriminator",), when=game(c), logged="train/generator_loss"))
        phases.append(Phase("discriminator", trains=("discriminator",), optimisers=("discriminator",),
                            outputs=self.discriminator_outputs, terms=self.discriminator_terms,
                            when=lambda: not self.pretraining, logged="train/discriminator_loss"))
        return phases

    def generator_outputs(self, step):
        batch, c = step.batch, self.turn()
        paths = torch.full_like(batch.labels, c)
        selection = self.generate(batch, c, batch.labels)
        step.state["rationale"], step.state["paths"] = selection.mask.detach(), paths
        return self.outputs(batch, selection, self.discriminate(batch, selection.mask, paths), targets=paths)

    def discriminator_outputs(self, step):
        batch = step.batch
        mask, paths = step.state["rationale"], step.state["paths"]
        logits, rationale_features = self.discriminate_with_features(batch, mask, paths)
        text_features = self.discriminator_features(batch, None, paths)
        with torch.no_grad():
            teacher_logits = self.auxiliary_logits(batch)
        selection = Selection(logits=torch.stack([1 - mask, mask], dim=-1), mask=mask)
        return self.outputs(batch, selection, logits, targets=paths, teacher_logits=teacher_logits,
                            rationale_features=rationale_features, text_features=text_features)

    def training_step(self, batch, batch_idx):
        playing = not self.pretraining
        super().training_step(batch, batch_idx)
        if playing:
            self.game_steps += 1

    def evaluation_scales(self):
        """Validation/test ``loss``: the discriminator's CE on the factual rationale (the other terms are logged,
        not summed: the game's terms mix players that pull apart)."""
        return {name: 0.0 for name in self.losses.terms if name != "task"}
