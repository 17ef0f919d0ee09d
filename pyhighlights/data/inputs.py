"""The ids a backbone reads, prepared from the corpus once per run.

A backbone declares what it reads (``Backbone.reads``):

- ``"words"``: one vocabulary id per word. The vocabulary and its embedding
  matrix (learned, or pretrained vectors) come from the ``embeddings`` spec;
  the matrix is handed to the backbone as ``embedding_matrix``.
- ``"subwords"``: the ids of the encoder's own tokenizer, read from the
  local model directory ``backbone.path``. Documents longer than the token
  budget (``backbone.max_tokens``, capped by the model) lose whole words at
  the end, here, in place, and the cut is reported.

The backbone itself only receives ready ids.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from pyhighlights.data.batch import Corpus

logger = logging.getLogger(__name__)


@dataclass
class PreparedInputs:
    """The text encoder of the data module, the backbone's runtime arguments, and what to record of them."""

    text_encoder: Any
    backbone_runtime: dict[str, Any] = field(default_factory=dict)
    info: dict = field(default_factory=dict)


def prepare_inputs(corpus: Corpus, backbone_spec: dict, embeddings_spec: dict) -> PreparedInputs:
    """Text encoder and backbone arguments for ``corpus`` and the backbone ``backbone_spec`` names."""
    from pyhighlights import registry

    reads = registry.entry("backbone", backbone_spec["name"]).component.reads
    if reads == "words":
        return word_inputs(corpus, embeddings_spec)
    if reads == "subwords":
        return subword_inputs(corpus, backbone_spec)
    raise ValueError(f"backbone {backbone_spec['name']} reads {reads!r}; expected words or subwords")


def word_inputs(corpus: Corpus, embeddings_spec: dict) -> PreparedInputs:
    """The vocabulary's word encoder and the embedding matrix over it."""
    from pyhighlights.config.resolve import build
    from pyhighlights.data.encoding import WordEncoder

    source = build("embeddings", embeddings_spec, path="embeddings")
    vocabulary, embeddings = source.build(corpus)
    return PreparedInputs(WordEncoder(vocabulary),
                          {"embedding_matrix": embeddings.weight, "freeze_embeddings": not source.trainable},
                          {"embeddings": embeddings.info(), "vocabulary_size": len(vocabulary)})


def subword_inputs(corpus: Corpus, backbone_spec: dict) -> PreparedInputs:
    """The model's tokenizer as a subword encoder; truncates ``corpus`` in place to its token budget.

    The ``embeddings`` section does not apply (the encoder has its own
    embeddings); the manifest says so.
    """
    from transformers import AutoConfig

    from pyhighlights.config.resolve import ConfigError
    from pyhighlights.data.subword import SubwordEncoder, load_tokenizer, local_model_dir, usable_length

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
    return PreparedInputs(encoder, {}, info)
