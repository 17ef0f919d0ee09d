"""GenSPP: a selector found by genetic search, never by gradients (Ruggeri and Signorelli, ACL 2025,
*Interlocking-free Selective Rationalization Through Genetic-based Learning*). Reference code:
github.com/federicoruggeri/gen-spp (commit 79a3574), ``genetic/``.

Select-then-predict models trained jointly suffer *interlocking*: the predictor adapts to whatever the selector
keeps, and the selector's gradient only ever sees that adapted predictor. GenSPP removes the gradient path to the
selector: a population of selectors (each a chromosome, its weights flattened) is evolved; each candidate is scored
by training a fresh predictor on its rationales alone and measuring that predictor's validation cross-entropy and
the rationales' selection rate (:func:`pyhighlights.components.genetic.fitness`). One generation
(``genetic/src/trainer.py __run_generation``): roulette-wheel couples, one-point crossover, Gaussian mutation of
every child, a fresh predictor trained for each child, half-elitist survival back to the population size. The
founders are random selectors, each scored the same way. The search stops after ``generations`` or when
1 / best fitness falls to ``stop_loss``. The search loop, its per-generation checkpoints and its worker processes
are :mod:`pyhighlights.models.selection.genspp_search`.

Defaults: the reference's ``genetic/src/utils/config.py``: population 50, 100 generations, selection rate 0.5 (25
couples, 50 children a generation), mutation probability 1, std 0.05 (0.10 on the selector's output bias, its
decision threshold), half-elitism survival, stop at loss 0.01; each predictor trained 3 epochs by Adam at lr 1e-2
on cross-entropy alone; the expected-loss limit 0.6 of its HateXplain setting (0.1 on its toy corpus); no dropout.
The reference's encoders are unidirectional one-layer GRUs of 8 (toy) or 16 (HateXplain) units over fixed
input vectors: ``encoder_hidden_size=16`` and ``encoder_bidirectional=false`` set a recurrent ``backbone=`` so
(``experiment=genspp_hatexplain`` adds the reference's HateXplain inputs and search sizes).

The chromosome is every parameter of the selector path (encoder, norm, selector) except embedding tables: those
stay the one (seeded) initial table shared by every candidate, as the reference's fixed GloVe or one-hot inputs.

After the search the run's model is the best candidate: its selector and the predictor trained while it was scored.
Lightning's training then continues that predictor on the frozen selector's rationales for ``trainer.max_epochs``
(the reference's ``evaluate.py`` fine-tunes the same way, 5 epochs by default), with the usual validation,
checkpoint and test (at least one epoch: the run's checkpoint is written by it).

The predictor max-pools as the reference's ``classifier.py``: its states are zeroed where a word is not kept,
then the maximum is taken over every position of the padded batch (``predictor_pool=zeroed``), so a pooled
feature is never below 0 unless the whole padded width is kept (the reference pads to the corpus's longest
document; ``experiment=genspp_hatexplain`` pads to its 30 words).

Departures, each ours: a candidate's fitness is read on the corpus's validation split (the reference draws its
validation documents from the training documents it also trains on) and averaged over documents (the reference
averages batches of 64); the training batches are formed once and each candidate visits them in its own seeded
order (the reference reshuffles documents from one global generator, so a candidate's predictor depended on
which candidates were trained before it); every candidate's predictor starts from fresh weights drawn from its
own seed (the reference's model pool records ``classifier.state_dict()``, tensors sharing storage with the
parameters, as a model's initial weights, so a model handed to a new candidate starts from the predictor its
previous candidate trained); the predictor trains with the model's optimiser settings (``encoder_lr``,
``weight_decay``).
"""
from __future__ import annotations

import copy
from typing import Literal

import numpy as np
import torch
from cinnamon.registry import RegistrationKey
from torch import nn

from pyhighlights.components.genetic import CROSSOVERS, SURVIVALS
from pyhighlights.models.base import SELECTION_OUTPUTS, with_encoder_settings
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, Real, registration_key as key


class GenSPPConfig(RNPConfig):
    selector: RegistrationKey = Param(key("selector", "threshold"))
    losses: dict[str, RegistrationKey] = Param({"task": key("loss", "cross_entropy")})
    population_size: int = Param(50, ge=2, description="candidates per generation (config.py POPULATION_SIZE)")
    generations: int = Param(100, ge=0, description="generations after the founders (N_GENERATIONS)")
    selection_rate: float = Real(0.5, gt=0.0, le=1.0,
                                 description="couples per generation = int(rate x population), two children each")
    crossover: Literal["one_point", "none"] = Param("one_point", description="one_point, or none (mutation only)")
    survival: Literal["half_elitism", "elitism"] = Param(
        "half_elitism", description="half_elitism: the best half, then half drawn by fitness; elitism: the best")
    mutation_probability: float = Real(1.0, ge=0.0, le=1.0, description="probability that a gene gets noise")
    mutation_std: float = Real(0.05, ge=0.0, description="std of the Gaussian noise on a gene")
    threshold_mutation_std: float = Real(0.10, ge=0.0, description="std of the noise on the selector's output bias")
    predictor_epochs: int = Param(3, ge=1, description="epochs of a candidate's fresh predictor (training_epochs)")
    ce_limit: float = Real(0.6, gt=0.0, description="a candidate whose predictor's validation cross-entropy "
                                                    "exceeds this gets the floor fitness 1 (ce_expected_loss)")
    stop_loss: float = Real(0.01, ge=0.0, description="stop once 1 / best fitness <= this (STOP_THRESHOLD)")
    search_workers: int = Param(0, ge=0, description="processes scoring candidates (0: in this process); the "
                                                     "results do not depend on it")
    search_accelerator: Literal["auto", "cpu", "cuda"] = Param(
        "auto", description="where candidates are scored: cuda = one visible GPU per worker, round robin; "
                            "auto = cuda when a GPU is visible")
    encoder_hidden_size: int | None = Param(16, ge=1, description="recurrent encoders' state size (the "
                                                                  "reference's HateXplain GRU: 16); null = backbone's")
    encoder_bidirectional: bool | None = Param(False, description="recurrent encoders read both directions; the "
                                                                  "reference's read left to right; null = backbone's")
    predictor_pool: Literal["zeroed", "kept", "valid"] = Param(
        "zeroed", description="zeroed: the predictor's states zeroed where a word is not kept, then max-pooled over "
                              "every position of the padded batch, zeros included (the reference's classifier.py); "
                              "kept: over the kept words only; valid: over every real word")
    outputs = {"losses": SELECTION_OUTPUTS}
    defaults = {"lr": 1e-2, "encoder_dropout": 0.0, "predictor": {"dropout": 0.0}}


def _embedding_parameters(modules) -> set[int]:
    return {id(p) for m in modules for sub in m.modules() if isinstance(sub, nn.Embedding) for p in sub.parameters()}


def reinitialise(modules, seed: int) -> None:
    """Draw fresh weights for every layer of ``modules`` but embedding tables, from ``seed`` (the global
    generator is left as it was)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        for module in modules:
            for sub in module.modules():
                if not isinstance(sub, nn.Embedding) and hasattr(sub, "reset_parameters"):
                    sub.reset_parameters()


class GenSPP(RNP):
    """RNP's parts; the selector path is frozen (the search sets it) and stays in eval mode."""

    def __init__(self, *, population_size: int, generations: int, selection_rate: float, crossover: str,
                 survival: str, mutation_probability: float, mutation_std: float, threshold_mutation_std: float,
                 predictor_epochs: int, ce_limit: float, stop_loss: float, search_workers: int,
                 search_accelerator: str, encoder_hidden_size: int | None, encoder_bidirectional: bool | None,
                 **common):
        # Small recurrent encoders, as the reference's: the chromosome is the selector encoder's weights. A
        # transformer backbone has neither setting and keeps its own.
        common["backbone_factory"] = with_encoder_settings(
            common["backbone_factory"], hidden_size=encoder_hidden_size, bidirectional=encoder_bidirectional)
        super().__init__(**common)
        if crossover not in CROSSOVERS or survival not in SURVIVALS:
            raise ValueError(f"model.crossover/survival: expected one of {sorted(CROSSOVERS)} / {sorted(SURVIVALS)}")
        self.search_settings = dict(
            population_size=population_size, generations=generations, selection_rate=selection_rate,
            crossover=crossover, survival=survival, mutation_probability=mutation_probability,
            mutation_std=mutation_std, threshold_mutation_std=threshold_mutation_std,
            predictor_epochs=predictor_epochs, ce_limit=ce_limit, stop_loss=stop_loss)
        self.search_workers, self.search_accelerator = search_workers, search_accelerator
        for module in self.selector_path():
            module.requires_grad_(False)
        # A fresh predictor starts from these (embedding tables included), then redraws every other layer.
        self._initial_predictor = copy.deepcopy(self.predictor_state())

    # --- the two paths -----------------------------------------------------------------
    def selector_path(self) -> list[nn.Module]:
        return [self.selector_encoder, self.selector_norm, self.selector]

    def predictor_path(self) -> list[nn.Module]:
        return [self.predictor_encoder, self.predictor_norm, self.predictor]

    def train(self, mode: bool = True):
        super().train(mode)
        for module in self.selector_path():
            module.eval()  # the rationales a candidate was scored on: no dropout, ever
        return self

    def represent(self, batch, keep_words):
        if self.predictor_pool != "zeroed":
            return super().represent(batch, keep_words)
        states, _ = self.encode_words(self.predictor_encoder, batch, keep_words, norm=self.predictor_norm)
        keep = self.kept_tokens(batch, keep_words)
        # a position not kept (padding included) pools as 0: the maximum is never below 0 unless every position
        # of the padded width is kept
        return (states * keep.unsqueeze(-1).to(states.dtype)).max(dim=1).values

    # --- chromosomes -------------------------------------------------------------------
    def chromosome_parameters(self) -> list[tuple[str, nn.Parameter]]:
        """The selector path's parameters in a fixed order, embedding tables left out."""
        embedding = _embedding_parameters(self.selector_path())
        names = {id(p): n for n, p in self.named_parameters(remove_duplicate=False)}
        seen: set[int] = set()
        chosen = []
        for module in self.selector_path():
            for p in module.parameters():
                if id(p) not in seen and id(p) not in embedding:
                    seen.add(id(p))
                    chosen.append((names[id(p)], p))
        return chosen

    def chromosome(self) -> np.ndarray:
        return np.concatenate([p.detach().double().cpu().flatten().numpy() for _, p in self.chromosome_parameters()])

    def set_chromosome(self, genes: np.ndarray) -> None:
        parameters = self.chromosome_parameters()
        total = sum(p.numel() for _, p in parameters)
        if genes.shape != (total,):
            raise ValueError(f"a GenSPP chromosome has {total} genes here, got shape {tuple(genes.shape)}")
        start = 0
        with torch.no_grad():
            for _, p in parameters:
                piece = torch.as_tensor(genes[start:start + p.numel()]).view_as(p)
                p.copy_(piece.to(device=p.device, dtype=p.dtype))
                start += p.numel()

    def threshold_genes(self) -> np.ndarray:
        """Positions of the selector's decision threshold (its output bias) in the chromosome."""
        wanted = getattr(self.selector, "threshold_parameter", None)
        positions, start = [], 0
        for name, p in self.chromosome_parameters():
            if wanted is not None and name == f"selector.{wanted}":
                positions.extend(range(start, start + p.numel()))
            start += p.numel()
        return np.asarray(positions, dtype=np.int64)

    def founder_chromosome(self, seed: int) -> np.ndarray:
        """A random selector (fresh layers from ``seed``), as a chromosome."""
        reinitialise(self.selector_path(), seed)
        return self.chromosome()

    # --- predictors --------------------------------------------------------------------
    def predictor_state(self) -> dict[str, torch.Tensor]:
        prefixes = ("predictor_encoder.", "predictor_norm.", "predictor.")
        return {name: value.detach().cpu().clone() for name, value in self.state_dict().items()
                if name.startswith(prefixes)}

    def load_predictor_state(self, state: dict[str, torch.Tensor]) -> None:
        own = self.state_dict()
        if set(state) != set(self._initial_predictor):
            raise ValueError("a GenSPP predictor state must hold exactly this model's predictor path")
        with torch.no_grad():
            for name, value in state.items():
                own[name].copy_(value.to(own[name].device))

    def fresh_predictor(self, seed: int) -> None:
        """The initial predictor, every layer but the embedding tables redrawn from ``seed``."""
        self.load_predictor_state(self._initial_predictor)
        reinitialise(self.predictor_path(), seed)

    # --- the search, before Lightning trains ---------------------------------------------
    def search_before_fit(self, datamodule, directory, seed: int, write: bool = True) -> dict:
        """Run (or resume) the genetic search in ``directory``; leaves the best candidate in this model."""
        from pyhighlights.models.selection.genspp_search import search

        return search(self, datamodule, directory, seed, write=write)
