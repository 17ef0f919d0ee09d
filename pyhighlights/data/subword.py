"""Subword encoding with a Hugging Face tokenizer, keeping selection over words.

A document's words are tokenized as pre-split words (``is_split_into_words``),
so every subword knows its word: ``word_ids[t]`` is the word index of token
t, -1 for special tokens ([CLS], [SEP], <s>, ...). Highlights, selection,
metrics and predictions stay over the document's words;
the model folds token states onto words (``components/words.py``).

Two guarantees the word folding relies on:

- every word has at least one token: a word the tokenizer turns into nothing
  (e.g. a lone control or combining character) is encoded as the unknown
  token, and counted;
- a document fits the model: :meth:`SubwordEncoder.truncate` keeps the
  longest prefix of *whole words* whose tokens, with the special tokens,
  number at most ``max_tokens``, and cuts the document's words and
  highlights to match, so word count and token count stay consistent.
  :meth:`SubwordEncoder.truncate_corpus` does it for a corpus and reports
  how many documents and words were cut.

The tokenizer must be a "fast" (Rust) tokenizer, which reports word ids. It
is read from the encoder's local directory (what ``save_pretrained`` writes);
nothing is downloaded.
"""
from __future__ import annotations

import logging
from pathlib import Path

from pyhighlights.config.resolve import ConfigError
from pyhighlights.data.batch import Corpus, Document

logger = logging.getLogger(__name__)


#: Models whose position ids start after the padding index, so max_position_embeddings overstates the length.
POSITION_OFFSET = {"roberta": 2, "xlm-roberta": 2, "camembert": 2}


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


class SubwordEncoder:
    """``encode(document) -> (input_ids, word_ids)`` through a fast HF tokenizer (specials -> -1)."""

    def __init__(self, tokenizer, max_tokens: int) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError(
                f"{type(tokenizer).__name__} is not a fast tokenizer; word-level selection needs the word ids "
                "that only fast (tokenizers-backed) tokenizers report (a tokenizer.json in the model directory)"
            )
        self.tokenizer = tokenizer
        self.specials = tokenizer.num_special_tokens_to_add(pair=False)
        if self.specials < 1:
            raise ValueError(
                "the tokenizer adds no special token; subword folding needs at least one ([CLS]/<s>) so that "
                "a batch always has more tokens than words"
            )
        if max_tokens <= self.specials:
            raise ValueError(f"max_tokens={max_tokens} leaves no room for words after {self.specials} special tokens")
        self.max_tokens = max_tokens
        pad = tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else 0

    def _tokenize(self, words: list[str]) -> tuple[list[int], list[int]]:
        encoding = self.tokenizer(words, is_split_into_words=True, add_special_tokens=True, truncation=False,
                                  return_attention_mask=False, return_token_type_ids=False)
        word_ids = [-1 if w is None else w for w in encoding.word_ids()]
        return list(encoding["input_ids"]), word_ids

    def tokens_per_word(self, words: list[str]) -> list[int]:
        """How many subword tokens each word gets (0 for a word the tokenizer drops)."""
        _, word_ids = self._tokenize(words)
        per_word = [0] * len(words)
        for w in word_ids:
            if w >= 0:
                per_word[w] += 1
        return per_word

    def _with_unknowns(self, words: list[str]) -> tuple[list[int], list[int]]:
        """Tokenize, replacing words that produce no token by the unknown token."""
        input_ids, word_ids = self._tokenize(words)
        if len(set(w for w in word_ids if w >= 0)) == len(words):
            return input_ids, word_ids
        per_word = self.tokens_per_word(words)
        unknown = self.tokenizer.unk_token
        if unknown is None:
            empty = [word for word, n in zip(words, per_word) if n == 0]
            raise ValueError(f"words {empty[:5]} produce no subword token and the tokenizer has no unknown "
                             "token to stand for them")
        return self._tokenize([unknown if n == 0 else word for word, n in zip(words, per_word)])

    def fitting_words(self, document: Document, per_word: list[int] | None = None) -> int:
        """How many leading words fit in ``max_tokens`` tokens (special tokens included)."""
        per_word = self.tokens_per_word(document.tokens) if per_word is None else per_word
        budget, used = self.max_tokens - self.specials, 0
        for count, n in enumerate(per_word):
            used += max(n, 1)  # a word without tokens becomes one unknown token
            if used > budget:
                return count
        return len(per_word)

    def truncate(self, document: Document, per_word: list[int] | None = None) -> Document:
        """The longest prefix of whole words that fits (the document itself when it fits)."""
        keep = self.fitting_words(document, per_word)
        if keep == len(document.tokens):
            return document
        if keep == 0:
            raise ValueError(f"document {document.doc_id}: its first word alone has more than "
                             f"{self.max_tokens - self.specials} subword tokens; cannot keep whole words")
        return document.truncated(keep)

    def truncate_corpus(self, corpus: Corpus) -> dict:
        """Truncate every split in place; return (and store in ``corpus.info``) what was cut.

        Per split: documents, truncated documents, words and highlighted words
        removed, subword tokens per word (mean, before truncation) and words
        with no subword of their own (encoded as the unknown token).
        """
        report: dict = {"max_tokens": self.max_tokens, "special_tokens": self.specials}
        for split in ("train", "validation", "test"):
            documents = corpus.split(split)
            counts = [self.tokens_per_word(d.tokens) for d in documents]
            fitted = [self.truncate(d, c) for d, c in zip(documents, counts)]
            cut = [(d, f) for d, f in zip(documents, fitted) if f is not d]
            words = sum(len(c) for c in counts)
            report[split] = {
                "documents": len(documents),
                "truncated": len(cut),
                "words_removed": sum(len(d.tokens) - len(f.tokens) for d, f in cut),
                "highlight_words_removed": sum(sum(d.highlights[len(f.tokens):]) for d, f in cut
                                               if d.highlights is not None),
                "subwords_per_word": round(sum(map(sum, counts)) / words, 4) if words else 0.0,
                "words_without_subwords": sum(n == 0 for c in counts for n in c),
            }
            setattr(corpus, split, fitted)
        corpus.info["subword_truncation"] = report
        for split in ("train", "validation", "test"):
            logger.info("%s %s: %d of %d documents truncated to max_tokens=%d subword tokens (%d words removed)",
                        corpus.name, split, report[split]["truncated"], report[split]["documents"],
                        self.max_tokens, report[split]["words_removed"])
        return report

    def describe(self) -> dict:
        """What a checkpoint stores to encode text again: where the tokenizer is read from, and the length."""
        return {"kind": "subwords", "tokenizer": str(self.tokenizer.name_or_path), "max_tokens": self.max_tokens}

    def encode(self, document: Document) -> tuple[list[int], list[int]]:
        """``(input_ids, word_ids)``; word_ids are word indices, -1 on special tokens."""
        input_ids, word_ids = self._with_unknowns(document.tokens)
        if len(input_ids) > self.max_tokens:
            raise ValueError(
                f"document {document.doc_id} has {len(input_ids)} subword tokens, more than max_tokens="
                f"{self.max_tokens}; truncate it first (SubwordEncoder.truncate / truncate_corpus, which "
                "data.inputs.prepare_inputs runs on the corpus)"
            )
        return input_ids, word_ids
