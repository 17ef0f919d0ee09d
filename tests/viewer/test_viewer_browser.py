"""The viewer page in headless Chromium: no console errors, the right words marked, filters, two runs, screenshot."""
from __future__ import annotations

from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from fake_runs import fake_documents, read_rows, write_description, write_run
from pyhighlights.viewer.cli import write_viewer

CLASSES = ("agree", "model-only", "human-only")


def expected_counts(selected: list[int], human: list[int] | None) -> dict[str, int]:
    chosen, gold = set(selected), set(human or [])
    return {"agree": len(chosen & gold), "model-only": len(chosen - gold), "human-only": len(gold - chosen)}


def f1_of(selected, human):
    if human is None:
        return None
    hits = len(set(selected) & set(human))
    return 2 * hits / (len(selected) + len(human))  # 2PR/(P+R) = 2tp/(|selected|+|human|)


def open_page(browser, path):
    browser.get(path.as_uri())
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not severe, f"console errors: {severe}"


def shown(browser) -> list[str]:
    return [a.get_attribute("data-id") for a in browser.find_elements(By.CSS_SELECTOR, "article.doc")]


def matching_count(browser) -> int:
    return int(browser.find_element(By.ID, "shown-count").text.split(" of ")[0])


def set_number(browser, element_id: str, value: str) -> None:
    field = browser.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(value)


def test_two_runs_side_by_side_with_matching_highlights_filters_and_a_screenshot(browser, tmp_path):
    documents = fake_documents(120)
    rnp = write_run(tmp_path / "rnp", "rnp", documents, methods=("saliency",))
    grat = write_run(tmp_path / "grat", "grat", documents)
    page = write_viewer([rnp, grat], tmp_path / "view.html")
    open_page(browser, page)
    rows = {"rnp": read_rows(rnp / "predictions.jsonl"), "saliency": read_rows(rnp / "explain/saliency/scores.jsonl"),
            "grat": read_rows(grat / "predictions.jsonl")}
    line_names = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#summary tr td:first-child")]
    assert len(line_names) == 3 and line_names[0].startswith("rnp") and line_names[2].startswith("grat")

    # First page: 50 documents, each with the three lines, each word class counted as predictions.jsonl says.
    assert shown(browser) == [d["id"] for d in documents[:50]] and matching_count(browser) == 120
    for article in browser.find_elements(By.CSS_SELECTOR, "article.doc")[::7]:
        index = int(article.get_attribute("data-id")[3:])
        for line, source in enumerate(("rnp", "saliency", "grat")):
            row = rows[source][index]
            block = article.find_element(By.CSS_SELECTOR, f".line[data-line='{line}']")
            counts = {c: len(block.find_elements(By.CSS_SELECTOR, f"span.{c}")) for c in CLASSES}
            assert counts == expected_counts(row["selected"], row["highlight"]), (index, source)
            assert block.find_element(By.CSS_SELECTOR, ".line-head").text.startswith(("rnp", "saliency", "grat")[line])

    # Errors only, for the grat line.
    Select(browser.find_element(By.ID, "filter-line")).select_by_index(2)
    browser.find_element(By.ID, "errors-only").click()
    errors = [r["id"] for r in rows["grat"] if r["prediction"] != r["label"]]
    assert 0 < len(errors) < 120 and matching_count(browser) == len(errors)
    assert shown(browser) == errors[:50]
    browser.find_element(By.ID, "errors-only").click()

    # True label, then an F1 range, then sorting by F1.
    Select(browser.find_element(By.ID, "label-filter")).select_by_value("2")
    assert shown(browser) == [d["id"] for d in documents if d["label"] == 2][:50]
    Select(browser.find_element(By.ID, "label-filter")).select_by_value("all")
    set_number(browser, "f1-min", "0.4")
    expected = [r["id"] for r in rows["grat"] if (f := f1_of(r["selected"], r["highlight"])) is not None and f >= 0.4]
    assert 0 < len(expected) < 120 and matching_count(browser) == len(expected)
    Select(browser.find_element(By.ID, "sort")).select_by_value("f1-desc")
    f1s = [f1_of(rows["grat"][int(i[3:])]["selected"], rows["grat"][int(i[3:])]["highlight"]) for i in shown(browser)]
    assert f1s == sorted(f1s, reverse=True) and min(f1s) >= 0.4
    set_number(browser, "f1-min", "0")
    Select(browser.find_element(By.ID, "sort")).select_by_value("order")

    # Pagination.
    browser.find_element(By.ID, "next").click()
    assert shown(browser) == [d["id"] for d in documents[50:100]]
    assert browser.find_element(By.ID, "page-info").text == "page 2 / 3"

    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not severe, f"console errors: {severe}"
    shot = tmp_path / "viewer.png"
    browser.find_element(By.ID, "prev").click()
    assert browser.save_screenshot(str(shot))
    with Image.open(shot) as image:
        assert image.format == "PNG" and image.size[0] >= 800
        colours = {colour for _, colour in image.convert("RGB").getcolors(maxcolors=1 << 24)}
    assert (0xA6, 0xDB, 0xA0) in colours and (0xFD, 0xB8, 0x63) in colours  # agree and model-only backgrounds drawn


def test_a_large_test_set_stays_paginated(browser, tmp_path):
    documents = fake_documents(2500, annotated_every=5)
    page = write_viewer([write_run(tmp_path / "rnp", "rnp", documents)], tmp_path / "view.html")
    open_page(browser, page)
    assert matching_count(browser) == 2500 and len(shown(browser)) == 50
    Select(browser.find_element(By.ID, "page-size")).select_by_visible_text("100")
    browser.find_element(By.ID, "errors-only").click()
    assert len(shown(browser)) == 100 and matching_count(browser) < 2500


def test_a_right_to_left_override_stays_inside_its_word_and_labels_show_their_names(browser, tmp_path):
    documents = fake_documents(4)
    words = documents[0]["words"]
    words[1] = "abc\u202edef"  # U+202E RIGHT-TO-LEFT OVERRIDE, never closed by a U+202C
    documents[0]["id"] = "annotations\u202e.json:7"
    run = write_run(tmp_path / "rnp", "rnp", documents)
    write_description(run, ["negative", "neutral", "positive"])
    open_page(browser, write_viewer([run], tmp_path / "view.html"))
    article = browser.find_elements(By.CSS_SELECTOR, "article.doc")[0]
    shown_words = article.find_elements(By.CSS_SELECTOR, "p.text > *")
    assert [w.text for w in shown_words] == words
    # isolated, the words after the override still run left to right; mirrored they would run right to left
    lefts = [w.rect["x"] for w in shown_words[2:8]]
    assert lefts == sorted(lefts) and len(set(lefts)) == len(lefts), lefts
    names = ["negative", "neutral", "positive"]
    header = article.find_element(By.TAG_NAME, "header").text
    assert header.startswith(f"document 1 · annotations\u202e.json, line 7 · true label {names[documents[0]['label']]}")
    prediction = read_rows(run / "predictions.jsonl")[0]["prediction"]
    assert f"predicted {names[prediction]}" in article.find_element(By.CSS_SELECTOR, ".line-head").text
    options = [o.text for o in Select(browser.find_element(By.ID, "label-filter")).options]
    assert options == ["all"] + sorted({names[d["label"]] for d in documents}, key=names.index)
