"""HateXplain: majority labels (ties dropped), majority highlights, three classes, errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from corpora_fixtures import HATEXPLAIN, copy_fixture, rewrite_json
from pyhighlights.data.errors import CorpusFormatError, CorpusNotFoundError
from pyhighlights.data.hatexplain import load_hatexplain, majority_highlights, majority_label


def _by_id(corpus, split):
    return {d.doc_id: d for d in corpus.split(split)}


def test_three_classes_and_majority_labels() -> None:
    corpus = load_hatexplain(HATEXPLAIN, remove_leakage=False)
    assert corpus.label_names == ["hatespeech", "offensive", "normal"] and corpus.num_classes == 3
    train = _by_id(corpus, "train")
    assert train["1_gab"].label == 0  # hatespeech, hatespeech, offensive
    assert train["3_twitter"].label == 1  # offensive, offensive, normal
    assert train["5_twitter"].label == 2
    assert "4_gab" not in train  # three different labels: no majority
    assert corpus.info["splits"]["train"]["no_majority_dropped"] == 1
    assert corpus.info["posts_in_no_split"] == 1  # 11_gab


def test_highlight_is_the_majority_of_present_rationales() -> None:
    train = _by_id(load_hatexplain(HATEXPLAIN), "train")
    # three vectors: a token needs two marks
    assert train["1_gab"].highlights == [0, 1, 0, 1, 0, 0, 0]
    # two vectors: a token needs both
    assert train["3_twitter"].highlights == [0, 0, 0, 1, 1]
    # one vector present: it decides
    assert train["5_twitter"].highlights == [0, 0, 0, 0]
    # normal post without rationales: unannotated
    assert train["6_twitter"].highlights is None
    assert majority_highlights([]) is None and majority_label(["a", "b"]) is None


def test_leaked_post_is_removed_from_train() -> None:
    corpus = load_hatexplain(HATEXPLAIN)
    assert "2_twitter" not in _by_id(corpus, "train") and "10_twitter" in _by_id(corpus, "test")
    assert corpus.info["leakage"]["examples"]["train/test"] == [["2_twitter", "10_twitter"]]


def test_unknown_label_names_file_line_and_post(tmp_path: Path) -> None:
    root = copy_fixture(HATEXPLAIN, tmp_path)
    rewrite_json(root / "dataset.json", lambda d: d["7_gab"]["annotators"][1].update(label="toxic"))
    with pytest.raises(CorpusFormatError, match=r"post '7_gab': unknown label 'toxic'") as caught:
        load_hatexplain(root)
    text = (root / "dataset.json").read_text().splitlines()
    assert caught.value.path == root / "dataset.json"
    assert text[caught.value.line - 1].strip().startswith('"7_gab"')


def test_rationale_length_mismatch(tmp_path: Path) -> None:
    root = copy_fixture(HATEXPLAIN, tmp_path)
    rewrite_json(root / "dataset.json", lambda d: d["9_twitter"]["rationales"][2].pop())
    with pytest.raises(CorpusFormatError, match="post '9_twitter': rationale vector 2 has 6 values but the post "
                                                "has 7 tokens"):
        load_hatexplain(root)
    corpus = load_hatexplain(root, skip_malformed=True)
    assert corpus.info["splits"]["test"]["malformed_skipped"] == 1 and "9_twitter" not in _by_id(corpus, "test")


def test_division_errors(tmp_path: Path) -> None:
    root = copy_fixture(HATEXPLAIN, tmp_path)
    rewrite_json(root / "post_id_divisions.json", lambda d: d["test"].append("99_gab"))
    with pytest.raises(CorpusFormatError, match="post '99_gab': listed in post_id_divisions.json but absent"):
        load_hatexplain(root)
    rewrite_json(root / "post_id_divisions.json", lambda d: d["test"].__setitem__(-1, "1_gab"))
    with pytest.raises(CorpusFormatError, match="post '1_gab' is listed in both 'train' and 'test'") as caught:
        load_hatexplain(root)
    assert caught.value.path.name == "post_id_divisions.json" and caught.value.line is not None


def test_invalid_json_and_missing_files(tmp_path: Path) -> None:
    root = copy_fixture(HATEXPLAIN, tmp_path)
    (root / "dataset.json").write_text('{\n  "1_gab": {\n    "post_tokens": [,]\n  }\n}\n')
    with pytest.raises(CorpusFormatError, match=r"dataset.json, line 3: expected a JSON document"):
        load_hatexplain(root)
    with pytest.raises(CorpusNotFoundError, match="HateXplain") as caught:
        load_hatexplain(tmp_path / "nowhere")
    assert any("post_id_divisions.json" in name for name in caught.value.missing)
