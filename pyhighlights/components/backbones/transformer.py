"""A Hugging Face encoder (BERT, RoBERTa, MiniLM, ...) as a backbone, loaded from a local directory.

The corpus is tokenized into subwords by the model's own (fast) tokenizer
(:class:`~pyhighlights.data.subword.SubwordEncoder`); states are per subword
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
from pathlib import Path

import torch

from pyhighlights.components.backbones.base import Backbone, BackboneFactory, PreparedInputs
from pyhighlights.config.resolve import ConfigError
from pyhighlights.registry import Configuration, Param

logger = logging.getLogger(__name__)

#: Additive attention bias of a removed token: the float16 minimum, finite in every precision we train in.
REMOVED_BIAS = torch.finfo(torch.float16).min

#: Models whose position ids start after the padding index, so max_position_embeddings overstates the length.
POSITION_OFFSET = {"roberta": 2, "xlm-roberta": 2, "camembert": 2}


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


def local_model_dir(path: str | None) -> Path:
    """The model directory, or a :class:`ConfigError` naming ``backbone.path`` (downloads are disabled)."""
    if not path:
        raise ConfigError(
            "backbone.path: required for backbone=transformer: the local directory of a Hugging Face encoder "
            "(config.json, weights and tokenizer files). Downloads are disabled."
        )
    directory = Path(path).expanduser()
    if not directory.is_dir() or not (directory / "config.json").is_file():
        what = "does not exist" if not directory.exists() else "has no config.json"
        raise ConfigError(
            f"backbone.path: {path!r} is not a local model directory ({what}). Give the directory that "
            "save_pretrained() wrote (config.json, weights, tokenizer files); model names are not fetched from "
            "the Hugging Face Hub because downloads are disabled."
        )
    return directory


def load_tokenizer(directory: Path):
    """The model's fast tokenizer, set up to take pre-split words (byte-level BPE needs a prefix space)."""
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
        backend = getattr(tokenizer, "backend_tokenizer", None)
        byte_level = backend is not None and "ByteLevel" in repr(backend.pre_tokenizer)
        if byte_level and not getattr(tokenizer, "add_prefix_space", False):
            # Byte-level BPE (GPT-2, RoBERTa) marks word starts with a space: needed for pre-split words.
            tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True, add_prefix_space=True)
    except (OSError, ValueError) as error:
        raise ConfigError(f"backbone.path: cannot load a tokenizer from {directory} ({error})") from None
    return tokenizer


def usable_length(requested: int, tokenizer, config) -> int:
    """``requested`` capped by what the tokenizer and the position embeddings allow."""
    limits = [requested]
    model_max = getattr(tokenizer, "model_max_length", None)
    if isinstance(model_max, int) and model_max < 1_000_000:
        limits.append(model_max)
    positions = getattr(config, "max_position_embeddings", None)
    if isinstance(positions, int):
        limits.append(positions - POSITION_OFFSET.get(config.model_type, 0))
    return min(limits)


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

    @classmethod
    def prepare_inputs(cls, corpus, backbone_spec, embeddings_spec):
        """Tokenizer-based encoder for ``corpus``; truncates the corpus in place to fit ``max_tokens``.

        The ``embeddings`` section does not apply (the encoder has its own
        embeddings) and is ignored; the manifest says so.
        """
        from transformers import AutoConfig

        from pyhighlights.data.subword import SubwordEncoder

        directory = local_model_dir(backbone_spec.get("path"))
        tokenizer = load_tokenizer(directory)
        config = AutoConfig.from_pretrained(directory, local_files_only=True)
        max_tokens = usable_length(backbone_spec.get("max_tokens", 512), tokenizer, config)
        try:
            encoder = SubwordEncoder(tokenizer, max_tokens)
        except ValueError as error:
            raise ConfigError(f"backbone.path: {error}") from None
        truncation = encoder.truncate_corpus(corpus)
        info = {
            "transformer": {"path": str(directory), "model_type": config.model_type,
                            "hidden_size": config.hidden_size, "max_tokens": max_tokens,
                            "tokenizer": type(tokenizer).__name__, "vocabulary_size": len(tokenizer),
                            "frozen": bool(backbone_spec.get("frozen", False))},
            "subword_truncation": truncation,
            "embeddings": "not used: the transformer backbone has its own embeddings",
        }
        logger.info("transformer backbone %s (%s, hidden %d), max_tokens=%d", directory, config.model_type,
                    config.hidden_size, max_tokens)
        return PreparedInputs(encoder, BackboneFactory(backbone_spec), info)
