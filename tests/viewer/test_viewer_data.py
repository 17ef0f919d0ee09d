"""The viewer's data assembly and page, without a browser."""
from __future__ import annotations

import json
import re

import pytest

from fake_runs import fake_documents, read_rows, write_description, write_run
from pyhighlights.viewer import assemble, find_runs, load_run, render
from pyhighlights.viewer.cli import main
from pyhighlights.viewer.data import readable_id
from pyhighlights.viewer.scores import corpus_scores, document_scores


def test_document_scores_by_hand():
    # 2 of 3 selected words are human ones, 2 of 4 human words are found: P 2/3, R 1/2, F1 = 2PR/(P+R) = 4/7.
    assert document_scores([1, 2, 3], [2, 3, 4, 5]) == pytest.approx({"p": 2 / 3, "r": 0.5, "f1": 4 / 7})
    assert document_scores([], [2, 3]) == {"p": 0.0, "r": 0.0, "f1": 0.0}  # nothing selected: P = 0, F1 = 0
    assert document_scores([0], [2, 3]) == {"p": 0.0, "r": 0.0, "f1": 0.0}
    assert document_scores([1], None) == {"p": None, "r": None, "f1": None}
    assert document_scores([1], []) == {"p": 0.0, "r": None, "f1": None}


def test_corpus_scores_pool_words_of_annotated_documents():
    rows = [{"label": 1, "prediction": 1, "selected": [0, 1], "highlight": [1, 2]},        # tp 1, fp 1, fn 1
            {"label": 0, "prediction": 1, "selected": [0, 1, 2, 3], "highlight": [0]},     # tp 1, fp 3
            {"label": 0, "prediction": 0, "selected": [5], "highlight": None}]             # not scored
    scores = corpus_scores(rows, [4, 4, 8])
    assert scores["accuracy"] == pytest.approx(2 / 3)
    assert scores["precision"] == pytest.approx(2 / 6) and scores["recall"] == pytest.approx(2 / 3)
    assert scores["f1"] == pytest.approx(2 * (1 / 3) * (2 / 3) / (1 / 3 + 2 / 3))
    assert scores["document_f1"] == pytest.approx((0.5 + 2 * 0.25 * 1 / 1.25) / 2)
    assert scores["selection_rate"] == pytest.approx(7 / 16)


def test_assemble_aligns_runs_and_explanations_per_document(tmp_path):
    documents = fake_documents(20)
    a = write_run(tmp_path / "a", "rnp", documents, methods=("saliency",))
    b = write_run(tmp_path / "b", "grat", documents[5:])  # fewer documents: rows missing in b's line
    payload = assemble([load_run(a), load_run(b)])
    assert [(line["kind"], line["model"]) for line in payload["lines"]] == [
        ("model", "rnp"), ("explain", "rnp"), ("model", "grat")]
    assert [d["id"] for d in payload["documents"]] == [d["id"] for d in documents]
    rows_a, rows_b = read_rows(a / "predictions.jsonl"), read_rows(b / "predictions.jsonl")
    saliency = read_rows(a / "explain" / "saliency" / "scores.jsonl")
    for i, doc in enumerate(payload["documents"]):
        assert doc["words"] == documents[i]["words"] and doc["human"] == documents[i]["highlight"]
        assert doc["rows"][0]["selected"] == rows_a[i]["selected"]
        assert doc["rows"][1]["selected"] == saliency[i]["selected"]
        assert doc["rows"][2] == (None if i < 5 else {**doc["rows"][2], "selected": rows_b[i - 5]["selected"]})
    assert payload["lines"][2]["documents"] == 15


def test_several_seeds_pick_one_and_a_bad_seed_is_named(tmp_path):
    run = write_run(tmp_path / "r", "rnp", fake_documents(6), seeds=(3, 1), methods=("lime",))
    chosen = load_run(run)
    assert chosen.seed == 1 and chosen.predictions == read_rows(run / "seed1" / "predictions.jsonl")
    assert chosen.explain["lime"] == read_rows(run / "explain" / "lime" / "seed1" / "scores.jsonl")
    assert load_run(run, seed=3).predictions == read_rows(run / "seed3" / "predictions.jsonl")
    with pytest.raises(ValueError, match="no seed 7; it holds seeds \\[1, 3\\]"):
        load_run(run, seed=7)
    assert find_runs([tmp_path]) == [run]
    one_seed = load_run(run / "seed3")  # a seed's folder given directly: its manifest and explanations are found
    assert (one_seed.seed, one_seed.model) == (3, "rnp")
    assert one_seed.explain["lime"] == read_rows(run / "explain" / "lime" / "seed3" / "scores.jsonl")


def test_bad_lines_and_disagreeing_corpora_fail_clearly(tmp_path):
    run = write_run(tmp_path / "r", "rnp", fake_documents(4))
    lines = (run / "predictions.jsonl").read_text().splitlines()
    (run / "predictions.jsonl").write_text("\n".join(lines[:2] + ['{"id": "x", "label": 1}']) + "\n")
    with pytest.raises(ValueError, match=r"predictions.jsonl:3: .*missing prediction, selected, highlight"):
        load_run(run)
    other = fake_documents(4, seed=9)
    a, b = write_run(tmp_path / "a", "rnp", fake_documents(4)), write_run(tmp_path / "b", "rnp", other)
    with pytest.raises(ValueError, match="document doc0: the runs given hold different words"):
        assemble([load_run(a), load_run(b)])


def test_runs_on_different_corpora_keep_their_documents_apart(tmp_path):
    a = write_run(tmp_path / "a", "rnp", fake_documents(3))
    b = write_run(tmp_path / "b", "rnp", fake_documents(2, seed=9))
    manifest = json.loads((b / "manifest.json").read_text())
    manifest["parameters"]["dataset"]["aspect"] = "other"
    (b / "manifest.json").write_text(json.dumps(manifest))
    payload = assemble([load_run(a), load_run(b)])
    assert [d["id"] for d in payload["documents"]] == [
        "doc0 (synthetic/a)", "doc1 (synthetic/a)", "doc2 (synthetic/a)", "doc0 (synthetic/other)",
        "doc1 (synthetic/other)"]
    assert [[row is not None for row in d["rows"]] for d in payload["documents"]] == [[True, False]] * 3 + [
        [False, True]] * 2


def test_an_older_run_without_words_and_without_its_corpus_fails_clearly(tmp_path):
    run = write_run(tmp_path / "old", "rnp", fake_documents(3), keep_words=False)
    with pytest.raises(ValueError, match="has no 'words' .* could not be reloaded"):
        load_run(run)


def test_the_page_embeds_the_data_safely_and_loads_nothing_from_outside(tmp_path):
    documents = fake_documents(5)
    documents[0]["words"][0] = "</script><img src=x onerror=alert(1)>"
    run = write_run(tmp_path / "r", "rnp", documents)
    payload = assemble([load_run(run)])
    page = render(payload, title="a <title>")
    scripts = re.findall(r"<script id=\"viewer-data\" type=\"application/json\">(.*?)</script>", page, re.S)
    assert len(scripts) == 1 and json.loads(scripts[0]) == payload
    assert "<title>a &lt;title&gt;</title>" in page
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page) and "@import" not in page
    assert "<img" not in page.replace(scripts[0], "")


def test_cli_writes_the_page_and_names_a_missing_run(tmp_path, capsys):
    run = write_run(tmp_path / "r", "rnp", fake_documents(3))
    assert main([str(run), "--out", str(tmp_path / "v.html")]) == 0
    assert "doc2" in (tmp_path / "v.html").read_text()
    assert main([str(tmp_path / "nowhere"), "--out", str(tmp_path / "w.html")]) == 2
    assert "nowhere: no such directory" in capsys.readouterr().err


def test_labels_by_their_class_names_and_documents_by_number_and_readable_id(tmp_path):
    documents = fake_documents(6)
    for i, doc in enumerate(documents):
        doc["id"] = f"annotations.json:{40 + i}"
    named = write_run(tmp_path / "named", "rnp", documents)
    write_description(named, ["negative", "neutral", "positive"])
    payload = assemble([load_run(named)])
    rows = read_rows(named / "predictions.jsonl")
    names = ["negative", "neutral", "positive"]
    for i, doc in enumerate(payload["documents"]):
        assert doc["number"] == i + 1 and doc["title"] == f"annotations.json, line {40 + i}"
        assert doc["label"] == rows[i]["label"] and doc["label_name"] == names[rows[i]["label"]]
        assert doc["rows"][0]["prediction_name"] == names[rows[i]["prediction"]]
    # no checkpoint to describe the classes: their numbers
    bare = assemble([load_run(write_run(tmp_path / "bare", "rnp", documents))])
    assert [d["label_name"] for d in bare["documents"]] == [str(r["label"]) for r in rows]
    assert readable_id("doc7") == "doc7" and readable_id("a:b:12") == "a:b, line 12"


def test_every_word_and_name_is_bidi_isolated_in_the_page(tmp_path):
    documents = fake_documents(3)
    documents[0]["words"][2] = "evil\u202etext"
    page = render(assemble([load_run(write_run(tmp_path / "r", "rnp", documents))]))
    style = re.sub(r"/\*.*?\*/", "", re.search(r"<style>(.*?)</style>", page, re.S).group(1), flags=re.S)
    isolated = re.search(r"([^}]*)\{\s*unicode-bidi:\s*isolate;\s*\}", style).group(1)
    assert {s.strip() for s in isolated.split(",")} >= {".text", ".text .w", ".text bdi", "bdi"}
    script = page.split('<script>')[-1]
    # unmarked words go out as <bdi> elements, marked ones as .w spans (isolated by the rule above)
    assert "\"<bdi>\" + word + \"</bdi>\"" in script and "<span class='w \" + classes[marks[i]]" in script
