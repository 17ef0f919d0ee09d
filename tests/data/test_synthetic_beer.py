from __future__ import annotations

import json
import random
import threading
from pathlib import Path

import pytest
from forked_scripts import run_script

from pyhighlights.data.beer_lei import load_lei_beer
from pyhighlights.data.preprocess import binarize_score
from pyhighlights.data.synthetic import synthetic_beer_dir, write_synthetic_beer
from pyhighlights.data.synthetic_lexicon import ASPECT_WORDS, FILLER_SENTENCES, MIDDLE_WORDS, SHORTEST_FILLER
from pyhighlights.data.synthetic_reviews import POLARITY_WEIGHTS, generate_review

REPO = Path(__file__).resolve().parents[2]
TINY = {"n_train": 40, "n_heldout": 10, "n_test": 10, "min_length": 30, "max_length": 80}


def files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_same_seed_same_bytes_other_seed_differs(tmp_path: Path) -> None:
    first = files(write_synthetic_beer(tmp_path / "a", seed=7, **TINY))
    assert files(write_synthetic_beer(tmp_path / "b", seed=7, **TINY)) == first
    other = files(write_synthetic_beer(tmp_path / "c", seed=8, **TINY))
    assert set(other) == set(first)
    assert all(other[name] != first[name] for name in first if name != "synthetic.json")


def test_test_set_does_not_depend_on_train_size(tmp_path: Path) -> None:
    small = write_synthetic_beer(tmp_path / "a", **TINY)
    large = write_synthetic_beer(tmp_path / "b", **{**TINY, "n_train": 80})
    assert (small / "annotations.json").read_bytes() == (large / "annotations.json").read_bytes()


def _sentiment_owner() -> dict[str, tuple[int, str]]:
    owner = {}
    for aspect, words in enumerate(ASPECT_WORDS):
        owner.update({w: (aspect, "positive") for w in words.positive})
        owner.update({w: (aspect, "negative") for w in words.negative})
    return owner


def _is_filler_run(tokens: list[str]) -> bool:
    """True if ``tokens`` is a concatenation of filler sentences."""
    fillers = [s.split() for s in FILLER_SENTENCES] + [[SHORTEST_FILLER]]
    if not tokens:
        return True
    return any(tokens[: len(f)] == f and _is_filler_run(tokens[len(f) :]) for f in fillers)


def test_spans_cover_exactly_the_aspect_sentences() -> None:
    owner = _sentiment_owner()
    rng = random.Random(3)
    for _ in range(200):
        review = generate_review(rng, anchor=0, correlation=0.3, min_length=25, max_length=120)
        assert 25 <= len(review.tokens) <= 120
        spans = sorted((start, end, aspect) for aspect, s in review.spans.items() for start, end in s)
        assert {aspect for _, _, aspect in spans} == set(range(5))  # every aspect is rated
        position = 0
        for start, end, aspect in spans:
            assert start >= position  # no overlap
            assert _is_filler_run(review.tokens[position:start])
            sentence = review.tokens[start:end]
            # One whole sentence: ends with its full stop and has no other.
            assert sentence[-1] == "." and "." not in sentence[:-1]
            words = ASPECT_WORDS[aspect]
            assert set(sentence) & (set(words.nouns) | {v.split()[0] for v in words.verbs})
            polarity = ("negative", "middle", "positive")[
                [0, None, 1].index(binarize_score(review.scores[aspect]))
            ]
            carried = [owner.get(t, (aspect, "middle") if t in MIDDLE_WORDS else None) for t in sentence]
            carried = [c for c in carried if c is not None]
            # Sentiment is there, belongs to this aspect and agrees with its score.
            assert carried and all(c == (aspect, polarity) for c in carried)
            position = end
        assert _is_filler_run(review.tokens[position:])


@pytest.mark.parametrize("correlation", [0.0, 0.5, 1.0])
def test_correlation_sets_polarity_agreement(correlation: float) -> None:
    rng = random.Random(11)
    agree = pairs = 0
    for _ in range(1500):
        review = generate_review(rng, anchor=1, correlation=correlation, min_length=25, max_length=40)
        labels = [binarize_score(s) for s in review.scores]
        for other in (0, 2, 3, 4):
            pairs += 1
            agree += labels[other] == labels[1]
    chance = sum(p * p for p in POLARITY_WEIGHTS.values())  # independent draws agree this often
    expected = correlation + (1 - correlation) * chance
    assert agree / pairs == pytest.approx(expected, abs=0.03)


def test_written_corpus_loads_with_both_classes_and_middle_band(tmp_path: Path) -> None:
    out = write_synthetic_beer(tmp_path, n_train=200, n_heldout=50, n_test=60, min_length=30, max_length=90)
    annotated = [json.loads(line) for line in (out / "annotations.json").read_text().splitlines()]
    for aspect in range(3):
        corpus = load_lei_beer(out, aspect, max_length=1000)
        counts = corpus.info["splits"]
        assert counts["train"]["middle_band_dropped"] > 0
        assert min(counts["train"]["label_counts"]) > 0 and min(counts["validation"]["label_counts"]) > 0
        assert counts["test"]["no_rationale_skipped"] == 0
        for document in corpus.test:
            record = annotated[int(document.doc_id.split(":")[1]) - 1]
            marked = {i for start, end in record[str(aspect)] for i in range(start, end)}
            assert [int(i in marked) for i in range(len(document.tokens))] == document.highlights
        assert all(30 <= len(d.tokens) <= 90 for d in corpus.train)


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"correlation": 1.5}, "correlation"),
        ({"min_length": 5}, "min_length"),
        ({"max_length": 20}, "max_length"),
    ],
)
def test_bad_parameters(tmp_path: Path, bad: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        write_synthetic_beer(tmp_path, **{**TINY, **bad})


def test_cache_directory_is_reused_and_race_safe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYHIGHLIGHTS_CACHE", str(tmp_path))
    found: list[Path] = []
    def make() -> None:
        found.append(synthetic_beer_dir(seed=1, **TINY))

    threads = [threading.Thread(target=make) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == 1 and found[0].parent == tmp_path / "synth_beer"
    assert [p.name for p in (tmp_path / "synth_beer").iterdir()] == [found[0].name]  # no scratch left
    stamp = (found[0] / "annotations.json").stat().st_mtime_ns
    assert synthetic_beer_dir(seed=1, **TINY) == found[0]
    assert (found[0] / "annotations.json").stat().st_mtime_ns == stamp  # not regenerated
    assert synthetic_beer_dir(seed=2, **TINY) != found[0]
    assert files(found[0]) == files(write_synthetic_beer(tmp_path / "direct", seed=1, **TINY))
    with pytest.raises(TypeError, match="synthetic corpus parameters are"):
        synthetic_beer_dir(n_documents=3)


def test_shipped_tiny_fixture_matches_generator(tmp_path: Path) -> None:
    shipped = REPO / "data" / "synth_beer_tiny"
    parameters = json.loads((shipped / "synthetic.json").read_text())
    arguments = {k: v for k, v in parameters.items() if k not in ("generator", "version")}
    assert files(write_synthetic_beer(tmp_path, **arguments)) == files(shipped)
    assert len(load_lei_beer(shipped, "palate").test) > 0


def test_command_line_script(tmp_path: Path) -> None:
    sizes = {"n_train": 5, "n_heldout": 2, "n_test": 3, "min_length": 25, "max_length": 40}
    arguments = [f"--{name.replace('_', '-')}={value}" for name, value in sizes.items()]
    done = run_script("make_synthetic.py", str(tmp_path / "out"), "--seed", "4", *arguments)
    assert done.returncode == 0, done.stderr
    assert "wrote synthetic Beer corpus" in done.stdout
    expected = write_synthetic_beer(tmp_path / "lib", seed=4, **sizes)
    assert files(tmp_path / "out") == files(expected)
    failed = run_script("make_synthetic.py", str(tmp_path / "bad"), "--correlation", "2")
    assert failed.returncode != 0 and "correlation must be in [0, 1]" in failed.stderr


def test_validation_annotations_are_the_heldout_reviews_with_their_aspect_sentences(tmp_path: Path) -> None:
    from pyhighlights.data.lei_format import parse_annotation_line, parse_review_line

    out = write_synthetic_beer(tmp_path, **TINY)
    for aspect in range(3):
        heldout = (out / f"reviews.aspect{aspect}.heldout.txt").read_text().splitlines()
        annotated = (out / f"annotations.aspect{aspect}.heldout.json").read_text().splitlines()
        assert len(annotated) == len(heldout) == TINY["n_heldout"]
        for review_line, annotation_line in zip(heldout, annotated):
            review, record = parse_review_line(review_line), parse_annotation_line(annotation_line, aspects=(aspect,))
            assert (record.tokens, list(record.scores)) == (review.tokens, list(review.scores))
            for start, end in record.spans[aspect]:  # each span is one sentence naming this aspect
                sentence = record.tokens[start:end]
                words = ASPECT_WORDS[aspect]
                assert sentence[-1] == "." and "." not in sentence[:-1]
                assert set(sentence) & (set(words.nouns) | {v.split()[0] for v in words.verbs})
            assert record.spans[aspect]


def test_the_synthetic_validation_split_has_highlights_and_the_test_split_is_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pyhighlights.config.resolve import build

    monkeypatch.setenv("PYHIGHLIGHTS_CACHE", str(tmp_path / "cache"))
    sizes = {"n_train": TINY["n_train"], "n_heldout": 30, "n_test": 20}
    corpus = build("dataset", {"name": "synth_beer", "aspect": "aroma", **sizes}).load()
    # the same documents as the Lei reader gives from the same files (heldout reviews, annotations.json)
    plain = load_lei_beer(corpus.info["data_dir"], "aroma")
    assert [(d.tokens, d.label) for d in corpus.validation] == [(d.tokens, d.label) for d in plain.validation]
    assert [(d.doc_id, d.tokens, d.highlights) for d in corpus.test] == [
        (d.doc_id, d.tokens, d.highlights) for d in plain.test]
    assert all(d.highlights is None for d in plain.validation + corpus.train)
    assert corpus.validation and all(d.highlights is not None and 1 in d.highlights for d in corpus.validation)
    assert all(d.doc_id.startswith("annotations.aspect1.heldout.json:") for d in corpus.validation)
    assert not {tuple(d.tokens) for d in corpus.validation} & {tuple(d.tokens) for d in corpus.test}
