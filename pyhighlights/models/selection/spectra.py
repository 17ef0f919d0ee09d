"""SPECTRA: Sparse Structured Text Rationalization (Guerreiro and Martins, ACL 2021). Reference code:
github.com/deep-spin/spectra-rationalization (commit 3f43d9c), ``rationalizers/lightning_models/highlights/
spectra.py`` and ``modules/generators.py SPECTRAGenerator``.

Selector encoder -> one score per word -> SparseMAP over a budgeted sequence factor
(:mod:`pyhighlights.components.spectra`): deterministic keep marginals, mostly exactly 0 or 1 -> predictor
encoder over the words scaled by their marginals -> class logits. The budget replaces a sparsity penalty, so the
loss is the task loss alone, and the selector learns from it by backpropagation through the SparseMAP solution
(no sampling, no estimator).

Defaults: the reference's Beer settings (``configs/beer/beer_spectra.yaml``): budget 10 % of each document's
words, transition 0.001, temperature 0.05 (and evaluation at a further 1e-3, ``generators.py``), Adam lr 1e-4,
weight decay 1e-6, gradient norm clipped at 5, dropout 0.1. Its multistep schedule (milestones 25, 50, 75) never
fires within its 25 epochs, so the learning rate is constant here. ``experiment=`` settings would add what is
not the model's: batch 32, frozen 300d GloVe, 200 hidden units per direction.

Departures, each a named option or a part in a slot: the task loss is cross-entropy over the corpus's classes
(the reference regresses the aspect score with MSE on a sigmoid output); the encoders are ``backbone=`` (the
reference's are bidirectional LSTMs), and the predictor max-pools the states of the words with a nonzero
marginal into ``model/predictor`` (the reference runs its LSTM over those words and reads its final states);
the SparseMAP solve runs to convergence (``selector.max_iter`` 100; lp-sparsemap, as the reference calls it,
stops after 10 active-set iterations).
"""
from __future__ import annotations

from cinnamon.registry import RegistrationKey

from pyhighlights.models.base import SELECTION_OUTPUTS
from pyhighlights.models.rnp import RNP, RNPConfig
from pyhighlights.registry import Param, registration_key as key


class SpectraConfig(RNPConfig):
    selector: RegistrationKey = Param(key("selector", "spectra"))
    losses: dict[str, RegistrationKey] = Param({"task": key("loss", "cross_entropy")})
    outputs = {"losses": SELECTION_OUTPUTS}
    defaults = {"lr": 1e-4, "weight_decay": 1e-6, "grad_clip": 5.0, "encoder_dropout": 0.1}


class Spectra(RNP):
    """RNP's two encoders with SPECTRA's structured selector and the task loss alone; one Adam."""
