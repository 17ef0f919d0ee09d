"""CAR: class-wise adversarial rationalization (Chang, Zhang, Yu and Jaakkola, NeurIPS 2019, "A Game Theoretic
Approach to Class-wise Selective Rationalization").

Reference code: github.com/code-terminator/classwise_rationale, commit 9da3d7014f04a5645f4085efcb9151cbf7300919
(TensorFlow 1.12, eager): ``core/model.py`` (``TargetRNN``), ``core/train_utils.py`` (``train``,
``gen_nl_loss``), ``core/metric.py`` (``get_sparsity_loss``, ``get_continuity_loss``), ``core/eval_utils.py``
(``validate``) and ``run_beer.py`` (its defaults, our registered ones); ``scripts/run_beer_{0,1,2}.sh`` are the
experiment configs ``car_beer_{appearance,aroma,palate}``.

Players (``model.py``), each with its own embeddings and bidirectional GRU:

- one generator per class t (``generator_neg`` for 0, ``generator_pos`` for 1; the ``selector`` slot, one part
  per class): it reads the words and the document's label as a one-hot joined to every real word's embedding
  (``labels_``), and keeps a word where softmax(linear) says keep (``independent_straight_through_sampling``, our
  ``straight_through`` selector); padding is "drop";
- the discriminator (the ``predictor`` slot): its encoder reads the rationale-masked embeddings joined with the
  one-hot of the generator that chose them (``gen_idx``, on every position, padding too), max-pools over the real
  words (-1e6 on padding: ``predictor_pool=valid``), a linear layer; it learns the label (CE, ``dis_loss``).

Generator t argues for class t on every document: its loss is ``-mean p_D(t | rationale)`` (``gen_nl_loss``, the
``likelihood`` term, without a log) + 1·|selected / real words - 0.2| (batch-wise, ``get_sparsity_loss``) +
4·mean |z_i - z_{i-1}| over the padded width (``get_continuity_loss``). Given the label y it is factual when
y = t and counterfactual otherwise; the discriminator, which knows which generator spoke, must still tell the
label.

One batch, one generator (``train``: ``path = dis_step % 2``, a step counter that runs on across epochs; here
``batches_seen % num_classes``, the same for the reference's two classes, one generator per class beyond): the discriminator's gradient of CE and generator t's gradient of its loss are
both taken at the batch's parameters (two tapes over the same forward), then generator t's Adam steps, then the
discriminator's. Here one backward of their sum does it: the discriminator reads the rationale detached for
its CE and is frozen where the generator's terms read it, so each gradient reaches its own player only. Three
Adams at lr 1e-3 as TF1's ``tf.train.AdamOptimizer`` computes them (``adam=tf``: eps 1e-8 on sqrt(v)); no
dropout; every batch padded to ``max_seq_length`` 256 (``convert_single_text``) and read padded by the GRUs
(``CuDNNGRU``: ``recurrence=padded``); batch 100 in random order, GloVe 100d trainable (the experiment configs).

Evaluation (``validate``): each generator t reads the label t (its factual mode), and a document's rationale is
its label's generator's (``rationale=label``: the gold label picks the rationale, as the reference's reported
precision). The class logits we report are, per class t, the discriminator's log p(t) on generator t's factual
rationale (the class whose advocate convinces it most); the reference reports no accuracy.

Departures, each a named setting: ``adam=torch`` (torch's Adam); ``rationale=prediction`` (the rationale of the
predicted class: no gold label at test); ``index_on_padding=false`` (the generator one-hot on real words only);
``conditioning=states`` (the label and generator one-hots joined to the word states before the generators'
scorers and to the discriminator's pooled states: any backbone, the transformer included).
"""
from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F
from cinnamon.registry import RegistrationKey
from torch import nn

from pyhighlights.components.environment_heads import KerasAdam
from pyhighlights.components.selectors import Selection
from pyhighlights.components.words import words_to_tokens
from pyhighlights.data.batch import Batch
from pyhighlights.models.base import SELECTION_OUTPUTS, OptimConfig, SPPModel
from pyhighlights.models.extra_inputs import accepting_extra_inputs, backbone_with_inputs
from pyhighlights.models.phases import Phase, PhasedTraining, TakesTurns, frozen
from pyhighlights.registry import Param, registration_key as key


class CARConfig(OptimConfig):
    selector: RegistrationKey = Param(key("selector", "straight_through"))
    predictor: RegistrationKey = Param(key("predictor", "mlp"))
    losses: dict[str, RegistrationKey] = Param(
        {"task": key("loss", "cross_entropy"), "likelihood": key("loss", "target_probability"),
         "sparsity": key("loss", "sparsity"), "continuity": key("loss", "continuity")})
    discriminator_terms: list[str] = Param(["task"], description="loss terms of the discriminator (dis_loss)")
    generator_terms: list[str] = Param(["likelihood", "sparsity", "continuity"],
                                       description="loss terms of the generator of the batch (gen_loss)")
    adam: Literal["tf", "torch"] = Param("tf", description="tf: Adam as TF1's tf.train.AdamOptimizer computes it "
                                                           "(eps 1e-8 on sqrt(v), the reference); torch: torch's")
    rationale: Literal["label", "prediction"] = Param(
        "label", description="evaluation: the rationale of the gold label's generator (the reference's validate) "
                             "or of the predicted class's")
    conditioning: Literal["inputs", "states"] = Param(
        "inputs", description="inputs: the label (generators) and generator (discriminator) one-hots join the "
                              "encoders' word inputs (the reference; recurrent backbone); states: they join the "
                              "word states before the generators' scorers and the discriminator's pooled states")
    index_on_padding: bool = Param(True, description="the discriminator's generator one-hot also on padding "
                                                     "(the reference's gen_idx; read with recurrence=padded)")
    outputs = {"losses": SELECTION_OUTPUTS | {"generator_logits", "targets"}}
    term_fields = {"discriminator_terms": "losses", "generator_terms": "losses"}
    defaults = {
        "lr": 1e-3, "encoder_dropout": 0.0, "recurrence": "padded", "pad_to": 256, "bucket": False,
        "predictor_pool": "valid", "selector": {"dropout": 0.0}, "predictor": {"dropout": 0.0},
        "losses": {"sparsity": {"weight": 1.0, "target": 0.2, "padding": "counted"},
                   "continuity": {"weight": 4.0, "padding": "counted"}},
    }


def one_hot(classes: torch.Tensor, num_classes: int, like: torch.Tensor) -> torch.Tensor:
    return F.one_hot(classes.long(), num_classes).to(like.dtype)


class ClasswiseGame(PhasedTraining, SPPModel):
    """CAR's players (a label-told generator per class, a discriminator told which generator spoke) and their
    factual explanation; a model built on them adds its turns, parts and phases (CAR; DMR)."""

    def init_game(self, *, discriminator_terms, generator_terms, adam, rationale, conditioning, index_on_padding):
        self.adam, self.rationale, self.conditioning = adam, rationale, conditioning
        classes = self.num_classes
        extra = classes if conditioning == "inputs" else 0
        self.generator_encoders = nn.ModuleList(self.encoder(extra) for _ in range(classes))
        # gen_idx is not masked: the discriminator's GRUs read the generator's one-hot on padding too
        self.predictor_encoder = self.encoder(extra, extra_on_padding=index_on_padding)
        joined = classes if conditioning == "states" else 0  # the one-hot joined to the states
        self.generators = nn.ModuleList(self.build_slot("selector", input_size=encoder.output_size + joined)
                                        for encoder in self.generator_encoders)
        self.predictor = self.build_slot("predictor", input_size=self.predictor_encoder.output_size + joined,
                                         num_classes=classes)
        self.losses.require([*discriminator_terms, *generator_terms], "model.discriminator_terms/generator_terms")
        self.discriminator_terms, self.generator_terms = tuple(discriminator_terms), tuple(generator_terms)

    def encoder(self, extra_inputs: int, extra_on_padding: bool = False):
        options = {"extra_on_padding": True} if extra_on_padding else {}
        return backbone_with_inputs(
            accepting_extra_inputs(self.make_backbone), extra_inputs,
            "model.conditioning=inputs joins the label and generator one-hots to the encoders' word inputs, which "
            "only a recurrent backbone reads; with this backbone use model.conditioning=states", **options)

    # --- the players ----------------------------------------------------------------
    def generate(self, batch: Batch, generator: int, labels: torch.Tensor) -> Selection:
        """Generator ``generator``'s selection, told the documents' ``labels`` [B]."""
        encoder = self.generator_encoders[generator]
        mask = batch.attention_mask
        if self.conditioning == "inputs":
            onehot = one_hot(labels, self.num_classes, mask.float()).unsqueeze(1).expand(-1, mask.shape[1], -1)
            states = encoder(batch.input_ids, mask, extra=onehot)  # the encoder zeroes it on padding (labels_)
        else:
            states = encoder(batch.input_ids, mask)
        words = self.word_states(states, batch)
        if self.conditioning == "states":
            onehot = one_hot(labels, self.num_classes, words)
            words = torch.cat([words, onehot.unsqueeze(1).expand(-1, words.shape[1], -1)], dim=-1)
        return self.generators[generator](words, batch.word_mask)

    def discriminator_features(self, batch: Batch, keep_words: torch.Tensor | None,
                               generator: int | torch.Tensor) -> torch.Tensor:
        """The discriminator's pooled states [B, H] on the words ``keep_words`` [B, W] chose (None: the full
        text), told which generator chose them (an index, or one per document)."""
        attention = batch.attention_mask
        if keep_words is None:
            keep_words = batch.word_mask.float()
        index = torch.as_tensor(generator, device=attention.device).expand(attention.shape[0])
        keep = words_to_tokens(keep_words, batch.word_ids, fill=1.0) * attention
        if self.conditioning == "inputs":
            onehot = one_hot(index, self.num_classes, keep).unsqueeze(1).expand(-1, attention.shape[1], -1)
            states = self.predictor_encoder(batch.input_ids, attention, keep=keep, extra=onehot)
        else:
            states = self.predictor_encoder(batch.input_ids, attention, keep=keep)
        pool_mask = attention if self.predictor_pool == "valid" else keep.detach()
        return self.pool(states, pool_mask)

    def discriminator_head(self, features: torch.Tensor, generator: int | torch.Tensor) -> torch.Tensor:
        """The class logits [B, C] on the pooled ``features`` (joined with the generator's one-hot when the
        one-hots join the states)."""
        if self.conditioning == "states":
            index = torch.as_tensor(generator, device=features.device).expand(features.shape[0])
            features = torch.cat([features, one_hot(index, self.num_classes, features)], dim=-1)
        return self.predictor(features)

    def discriminate(self, batch: Batch, keep_words: torch.Tensor | None,
                     generator: int | torch.Tensor) -> torch.Tensor:
        """The discriminator's class logits [B, C] on the words ``keep_words`` [B, W] chose, told which
        generator chose them (an index, or one per document)."""
        return self.discriminator_head(self.discriminator_features(batch, keep_words, generator), generator)

    # --- the explanation interface ------------------------------------------------------
    def factual_selections(self, batch: Batch) -> list[Selection]:
        """Each class t's generator in its factual mode, told the label t."""
        return [self.generate(batch, t, torch.full_like(batch.labels, t)) for t in range(self.num_classes)]

    def factual(self, batch: Batch) -> tuple[list[Selection], torch.Tensor]:
        """Each class's factual selection, and the class scores [B, C]: per class t, the discriminator's log p(t)
        on generator t's rationale."""
        selections = self.factual_selections(batch)
        scores = [torch.log_softmax(self.discriminate(batch, s.mask, t), dim=-1)[:, t]
                  for t, s in enumerate(selections)]
        return selections, torch.stack(scores, dim=-1)

    @staticmethod
    def chosen_selection(selections: list[Selection], chosen: torch.Tensor) -> Selection:
        """Per document, the selection of the class ``chosen`` [B] gives it."""
        pick = chosen.view(-1, 1, 1)
        mask = torch.stack([s.mask for s in selections], dim=1).gather(
            1, pick.expand(-1, 1, selections[0].mask.shape[1])).squeeze(1)
        logits = torch.stack([s.logits for s in selections], dim=1).gather(
            1, pick.unsqueeze(-1).expand(-1, 1, *selections[0].logits.shape[1:])).squeeze(1)
        return Selection(logits=logits, mask=mask)

    def reported_class(self, batch: Batch, scores: torch.Tensor) -> torch.Tensor:
        labels = batch.labels
        if self.rationale == "prediction" or labels is None or bool((labels < 0).any()):
            return scores.argmax(dim=-1)
        return labels

    def evaluation_outputs(self, batch: Batch) -> dict[str, torch.Tensor]:
        selections, scores = self.factual(batch)
        chosen = self.reported_class(batch, scores)
        selection = self.chosen_selection(selections, chosen)
        return self.outputs(batch, selection, scores, generator_logits=self.discriminate(batch, selection.mask, chosen),
                            targets=chosen)

    def select(self, batch: Batch) -> Selection:
        out = self.evaluation_outputs(batch)
        return Selection(logits=out["selector_logits"], mask=out["mask"])

    def predict(self, batch: Batch, keep_words: torch.Tensor | None) -> torch.Tensor:
        """Per class t, the discriminator's log p(t) on ``keep_words`` said to come from generator t."""
        if keep_words is None:
            keep_words = batch.word_mask.float()
        return torch.stack([torch.log_softmax(self.discriminate(batch, keep_words, t), dim=-1)[:, t]
                            for t in range(self.num_classes)], dim=-1)

    def forward(self, batch: Batch) -> dict[str, torch.Tensor]:
        return self.evaluation_outputs(batch)

    def highlight(self, texts, batch_size: int = 32):
        """Raw text has no label (its documents carry a placeholder 0): the predicted class's rationale."""
        saved, self.rationale = self.rationale, "prediction"
        try:
            return super().highlight(texts, batch_size)
        finally:
            self.rationale = saved

    def make_optimizer(self, modules, lr=None):
        if self.adam == "torch":
            return super().make_optimizer(modules, lr)
        return KerasAdam(self.param_groups(modules, lr), eps=1e-8, weight_decay=self.weight_decay)


class CAR(TakesTurns, ClasswiseGame):
    def __init__(self, *, discriminator_terms, generator_terms, adam, rationale, conditioning, index_on_padding,
                 **common):
        super().__init__(**common)
        self.init_game(discriminator_terms=discriminator_terms, generator_terms=generator_terms, adam=adam,
                       rationale=rationale, conditioning=conditioning, index_on_padding=index_on_padding)
        # The reference's dis_step counter, kept across epochs and a resume: whose turn a batch is.
        self.count_batches()

    # --- training: one generator and the discriminator per batch ----------------------------
    def turn(self) -> int:
        return int(self.batches_seen) % self.num_classes

    def play(self, step) -> dict[str, torch.Tensor]:
        """Generator t's rationale for the batch (told the gold labels), the discriminator's logits on it read
        detached (its CE) and read through the frozen discriminator (generator t's terms)."""
        batch, t = step.batch, self.turn()
        selection = self.generate(batch, t, batch.labels)
        logits = self.discriminate(batch, selection.mask.detach(), t)
        with frozen([self.predictor_encoder, self.predictor]):
            generator_logits = self.discriminate(batch, selection.mask, t)
        targets = torch.full_like(batch.labels, t)
        return self.outputs(batch, selection, logits, generator_logits=generator_logits, targets=targets)

    def parts(self):
        parts = {f"generator_{t}": [self.generator_encoders[t], self.generators[t]] for t in range(self.num_classes)}
        parts["discriminator"] = [self.predictor_encoder, self.predictor]
        return parts

    def optimisers(self):
        return {name: self.make_optimizer(modules) for name, modules in self.parts().items()}

    def phases(self):
        return [Phase(f"generator_{t}", trains=(f"generator_{t}", "discriminator"),
                      optimisers=(f"generator_{t}", "discriminator"), outputs=self.play,
                      terms=self.discriminator_terms + self.generator_terms,
                      when=lambda t=t: self.turn() == t, logged=f"train/generator_{t}_loss")
                for t in range(self.num_classes)]
