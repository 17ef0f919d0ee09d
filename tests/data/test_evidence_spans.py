"""Human evidence spans kept as written, from the corpus files to the batch and the metric."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from corpus_fixture_files import HELDOUT_LINES, TRAIN_LINES, annotation, write_text
from pyhighlights.data.batch import Document, mask_runs
from pyhighlights.data.beer_lei import load_lei_beer
from pyhighlights.data.collate import BatchCollator
from pyhighlights.data.encoding import WordEncoder, encode_document
from pyhighlights.data.preprocess import truncate_document
from pyhighlights.data.vocabulary import Vocabulary
from pyhighlights.metrics import iou_f1_scores

TOKENS = " ".join(f"w{i}" for i in range(50))


@pytest.fixture
def adjacent_dir(tmp_path: Path) -> Path:
    """A Lei corpus whose one aroma annotation has the adjacent spans [18,24), [24,34), [34,44)."""
    write_text(tmp_path / "reviews.aspect1.train.txt", TRAIN_LINES)
    write_text(tmp_path / "reviews.aspect1.heldout.txt", HELDOUT_LINES)
    write_text(tmp_path / "annotations.json", [
        annotation(TOKENS, [0.5, 0.8, 0.5, 0.5, 0.5], a1=[[18, 24], [24, 34], [34, 44]]),
        annotation("u0 u1 u2 u3", [0.5, 0.2, 0.5, 0.5, 0.5], a1=[[0, 1], [3, 4]]),
    ])
    return tmp_path


def test_lei_reader_keeps_adjacent_spans_apart(adjacent_dir):
    first, second = load_lei_beer(adjacent_dir, "aroma").test
    assert first.highlight_spans == [(18, 24), (24, 34), (34, 44)]
    assert first.highlights == [0] * 18 + [1] * 26 + [0] * 6
    assert second.highlight_spans == [(0, 1), (3, 4)]


def test_spans_reach_the_batch_and_the_metric(adjacent_dir):
    documents = load_lei_beer(adjacent_dir, "aroma").test
    vocabulary = Vocabulary.from_documents(documents)
    examples = [encode_document(d, i, WordEncoder(vocabulary)) for i, d in enumerate(documents)]
    batch = BatchCollator(pad_id=0)(examples)
    assert batch.highlight_spans.tolist() == [[[18, 24], [24, 34], [34, 44]], [[0, 1], [3, 4], [-1, -1]]]
    assert batch.spans_of(0) == [[18, 24], [24, 34], [34, 44]]

    # prediction [19, 48) in document 0, nothing in document 1: by hand (see the IOU-F1 tests)
    # its best IoU is 10/29 < 0.5, so ERASER's P = 0/1, R = 0/(3 + 2), F1 = 0.
    selection = torch.zeros_like(batch.word_mask)
    selection[0, 19:48] = 1
    out = iou_f1_scores(selection, batch.highlights, batch.word_mask, highlight_spans=batch.highlight_spans)
    assert out["iou_precision"] == 0 and out["iou_recall"] == 0 and out["iou_f1"] == 0
    # the mask alone would merge the three spans into [18, 44): IoU 25/30, a match
    assert iou_f1_scores(selection, batch.highlights, batch.word_mask)["iou_precision"] == 1


def test_mask_only_documents_use_the_maximal_runs():
    document = Document("d", list("abcdef"), 1, [1, 1, 0, 1, 0, 1])
    assert document.evidence_spans == [(0, 2), (3, 4), (5, 6)] == mask_runs(document.highlights)
    assert Document("u", ["a"], 0).evidence_spans is None
    assert mask_runs([0, 0]) == [] and mask_runs([1]) == [(0, 1)]


def test_truncation_clips_and_drops_spans():
    document = Document("d", list("abcdefgh"), 1, [0, 1, 1, 1, 1, 1, 0, 1], [(1, 3), (3, 6), (7, 8)])
    cut = truncate_document(document, 4)
    assert cut.tokens == list("abcd") and cut.highlights == [0, 1, 1, 1]
    assert cut.highlight_spans == [(1, 3), (3, 4)]


@pytest.mark.parametrize("spans, message", [
    ([(2, 9)], "out of range"),
    ([(1, 3)], "do not cover exactly"),
])
def test_inconsistent_spans_are_refused(spans, message):
    with pytest.raises(ValueError, match=message):
        Document("d", list("abcd"), 0, [0, 1, 1, 1], spans)
    with pytest.raises(ValueError, match="without highlights"):
        Document("d", list("abcd"), 0, None, [(0, 1)])

