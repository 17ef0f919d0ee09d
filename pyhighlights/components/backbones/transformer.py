"""A Hugging Face encoder (BERT, RoBERTa, MiniLM, ...) as a backbone, loaded from a local directory.

The corpus is tokenized into subwords by the model's own (fast) tokenizer
(:class:`~pyhighlights.data.subword.SubwordEncoder`, prepared in
:mod:`pyhighlights.data.inputs`); states are per subword
token [B, T, H] and the SPP base folds them onto words through ``word_ids``,
so selection, highlights, metrics and predictions stay over words.

Removing words: a removed word's tokens are removed from the attention mask
so no kept token attends to them; special tokens are
always kept. The mask is passed as a 4-D additive bias (0 on kept keys, a
large negative number on removed ones), because a 2-D mask is turned into a
boolean mask inside ``transformers`` and would cut the gradient to the
selector. The bias carries a straight-through gradient: its backward is that
of ``keep - 1``, i.e. the derivative of the masked softmax with respect to
``log keep`` at the kept tokens (as in the multiplicative formulation
``keep_j * exp(s_ij) / sum_k keep_k * exp(s_ik)``). A removed token gets no
task gradient through the attention (its attention weight is exactly 0);
the selector still gets the sparsity and continuity gradients for it.

No download ever happens: ``path`` must be a local directory with the
model's ``config.json``, weights and tokenizer files (what
``save_pretrained`` writes), and everything is loaded with
``local_files_only=True``.

``frozen`` keeps the encoder's weights fixed and the encoder in eval mode
(no dropout); gradients still flow through it to the selector. The
encoder-specific learning rate is the model's ``encoder_lr``, applied to
:meth:`TransformerBackbone.encoder_parameters`.

Reference: Wolf et al., "Transformers: State-of-the-Art Natural Language
Processing", EMNLP 2020 (demos); the pretrained encoders are those of Devlin
et al. (BERT, NAACL 2019) and their descendants.
"""
from __future__ import annotations

import logging
from contextlib import contextmanager

import torch

from pyhighlights.components.backbones.base import Backbone
from pyhighlights.config.resolve import ConfigError
from pyhighlights.data.subword import local_model_dir
from pyhighlights.registry import Configuration, Param

logger = logging.getLogger(__name__)

#: Additive attention bias of a removed token: the float16 minimum, finite in every precision we train in.
REMOVED_BIAS = torch.finfo(torch.float16).min

class TransformerConfig(Configuration):
    path: str | None = Param(None, description="local directory of a Hugging Face encoder (config.json, weights, "
                                               "tokenizer); never downloaded")
    frozen: bool = Param(False, description="keep the encoder's weights fixed (and its dropout off)")
    max_tokens: int = Param(512, ge=4, description="subword tokens per document incl. special tokens; longer "
                                                   "documents lose whole words at the end (reported)")


@contextmanager
def quiet_loading():
    """Hide ``transformers``' per-file progress bars while loading (one model per encoder)."""
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if shown:
            hf_logging.enable_progress_bar()


def removal_bias(attention_mask: torch.Tensor, keep: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """[B, 1, 1, T] additive attention bias: 0 on kept real tokens, REMOVED_BIAS elsewhere.

    Forward: exactly the hard mask ``attention_mask * (keep > 0.5)``. Backward:
    straight-through, d bias / d keep = 1 (see the module docstring).
    """
    kept = (attention_mask > 0) & (keep.detach() > 0.5)
    hard = torch.zeros(kept.shape, dtype=dtype, device=keep.device).masked_fill(~kept, REMOVED_BIAS)
    soft = keep.to(dtype)
    return (hard + (soft - soft.detach()))[:, None, None, :]


class TransformerBackbone(Backbone):
    """States of a local Hugging Face encoder's last layer, [B, T, hidden_size]."""

    reads = "subwords"

    def __init__(self, *, path: str | None, frozen: bool = False, max_tokens: int = 512):
        super().__init__()
        from transformers import AutoModel

        directory = local_model_dir(path)
        try:
            with quiet_loading():
                self.model = AutoModel.from_pretrained(directory, local_files_only=True)
        except (OSError, ValueError) as error:
            raise ConfigError(f"backbone.path: cannot load a model from {directory} ({error})") from None
        if isinstance(getattr(self.model, "pooler", None), torch.nn.Module):
            # The [CLS] pooler is never used here; without it no parameter is left unused (DDP).
            self.model.pooler = None
        self.output_size = self.model.config.hidden_size
        self.frozen = frozen
        self.max_tokens = max_tokens
        if frozen:
            self.model.requires_grad_(False)
        # from_pretrained returns the model in eval mode; a trainable encoder starts in train mode (dropout on)
        # like every other module, and Lightning keeps the mode it finds.
        self.model.train(not frozen)

    def train(self, mode: bool = True):
        super().train(mode)
        if self.frozen:
            self.model.eval()
        return self

    def encoder_parameters(self):
        return self.model.parameters()

    def forward(self, input_ids, attention_mask, keep=None):
        if keep is None:
            mask = attention_mask
        else:
            mask = removal_bias(attention_mask, keep, self.model.dtype)
        return self.model(input_ids=input_ids, attention_mask=mask).last_hidden_state
