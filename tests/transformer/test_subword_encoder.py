"""Subword encoding: word_ids folding, specials -1, whole-word truncation, batches over words."""
from __future__ import annotations

import pytest
import torch

from transformer_fixtures import tiny_bert, tiny_tokenizer  # noqa: F401 (pytest fixtures)
from pyhighlights.components.words import tokens_to_words_mean, words_to_tokens
from pyhighlights.data.batch import Corpus, Document
from pyhighlights.data.datamodule import SPPDataModule
from pyhighlights.data.subword import SubwordEncoder

DOC = Document("d", ["the", "location", "is", "great", "cleanliness"], 1, [0, 1, 1, 0, 1])


def test_word_ids_fold_subwords_and_mark_specials(tiny_tokenizer) -> None:
    encoder = SubwordEncoder(tiny_tokenizer, 64)
    input_ids, word_ids = encoder.encode(DOC)
    pieces = tiny_tokenizer.convert_ids_to_tokens(input_ids)
    assert pieces == ["[CLS]", "the", "loc", "##ation", "is", "great", "clean", "##li", "##ness", "[SEP]"]
    assert word_ids == [-1, 0, 1, 1, 2, 3, 4, 4, 4, -1]
    assert encoder.pad_id == tiny_tokenizer.pad_token_id


def test_word_without_subwords_becomes_unknown(tiny_tokenizer) -> None:
    encoder = SubwordEncoder(tiny_tokenizer, 64)
    document = Document("d", ["the", "\u0301", "zzz"], 0)  # a lone combining accent has no token
    input_ids, word_ids = encoder.encode(document)
    assert word_ids == [-1, 0, 1, 2, -1]
    assert tiny_tokenizer.convert_ids_to_tokens(input_ids)[2] == "[UNK]"


def test_truncation_keeps_whole_words_within_max_tokens(tiny_tokenizer) -> None:
    encoder = SubwordEncoder(tiny_tokenizer, 7)  # 5 tokens for words after [CLS] and [SEP]
    cut = encoder.truncate(DOC)
    # the(1) loc ##ation(2) is(1) great(1) = 5 tokens; "cleanliness" (3 tokens) does not fit
    assert cut.tokens == ["the", "location", "is", "great"] and cut.highlights == [0, 1, 1, 0]
    input_ids, word_ids = encoder.encode(cut)
    assert len(input_ids) == 7 and max(word_ids) == len(cut.tokens) - 1
    assert SubwordEncoder(tiny_tokenizer, 6).truncate(DOC).tokens == ["the", "location", "is"]
    with pytest.raises(ValueError, match="more than max_tokens=6; truncate it first"):
        SubwordEncoder(tiny_tokenizer, 6).encode(DOC)


def test_truncate_corpus_reports_and_works_in_place(tiny_tokenizer) -> None:
    short = Document("s", ["the", "room"], 0, None)
    corpus = Corpus("c", [DOC, short], [short], [DOC], ["negative", "positive"])
    report = SubwordEncoder(tiny_tokenizer, 7).truncate_corpus(corpus)
    assert report["train"] == {"documents": 2, "truncated": 1, "words_removed": 1, "highlight_words_removed": 1,
                               "subwords_per_word": round(10 / 7, 4), "words_without_subwords": 0}
    assert corpus.train[0].tokens == ["the", "location", "is", "great"] and corpus.train[1] is short
    assert corpus.info["subword_truncation"] is report


def test_batches_keep_words_and_tokens_apart(tiny_tokenizer) -> None:
    documents = [DOC, Document("e", ["great", "staff"], 0, [1, 0]), Document("f", ["the", "room"], 0)]
    corpus = Corpus("c", documents, documents, documents, ["negative", "positive"])
    datamodule = SPPDataModule(corpus, None, encoder=SubwordEncoder(tiny_tokenizer, 64), batch_size=3, bucket=False,
                               shuffle=False)
    datamodule.setup()
    batch = next(iter(datamodule.test_dataloader()))
    order = batch.sample_ids.tolist()
    row = order.index(0)
    assert batch.word_mask.shape[1] == 5 and batch.input_ids.shape[1] == 10  # W words, T subword tokens
    assert batch.highlights[row].tolist() == [0, 1, 1, 0, 1]
    assert batch.word_ids[row].tolist() == [-1, 0, 1, 1, 2, 3, 4, 4, 4, -1]
    assert batch.highlights[order.index(2)].tolist() == [-1] * 5
    # Folding: a word's state is the mean of its tokens; a word mask spreads to all of its tokens.
    states = torch.arange(10, dtype=torch.float).repeat(3, 1).unsqueeze(-1)
    words = tokens_to_words_mean(states, batch.word_ids, batch.word_mask.shape[1])
    assert words[row, :, 0].tolist() == [1.0, 2.5, 4.0, 5.0, 7.0]
    keep = words_to_tokens(torch.tensor([[0.0, 1, 0, 0, 1]] * 3), batch.word_ids, fill=1.0)
    assert keep[row].tolist() == [1, 0, 1, 1, 0, 0, 1, 1, 1, 1]
