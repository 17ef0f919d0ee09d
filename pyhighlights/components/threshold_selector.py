"""A selector with one keep logit per word, thresholded in training and evaluation alike.

GenSPP's generator (Ruggeri and Signorelli, ACL 2025; reference ``genetic/src/model/layers/generator.py``) is a
linear layer to one output, a sigmoid, and the hard mask floor(sigmoid + 0.5): a word is kept when its logit is
>= 0. Nothing samples, so a candidate's rationales are a function of its weights only, which is what lets a
genetic search score them. The Selection's two-column logits are (0, z), so p(keep) = sigmoid(z).
"""
from __future__ import annotations

import torch
from torch import nn

from pyhighlights.components.selectors import Selection, Selector
from pyhighlights.registry import Configuration


class ThresholdSelectorConfig(Configuration):
    pass


class ThresholdSelector(Selector):
    def __init__(self, *, input_size: int):
        super().__init__()
        self.scorer = nn.Linear(input_size, 1)

    #: The parameter holding the decision threshold (the output bias), which GenSPP mutates at its own rate.
    threshold_parameter = "scorer.bias"

    def forward(self, word_states, word_mask):
        keep = self.scorer(word_states).squeeze(-1)
        logits = torch.stack([torch.zeros_like(keep), keep], dim=-1)
        raw = (keep >= 0).to(keep.dtype)
        return Selection(logits=logits, mask=raw * word_mask.to(raw.dtype), raw_mask=raw)
