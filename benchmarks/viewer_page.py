"""How the HTML viewer copes with a large test set, in headless Chromium.

Run by hand (never as a timed test):

    python benchmarks/viewer_page.py [--documents 2500] [--runs 2]

Writes synthetic runs of Beer-length documents (100-250 words, one 15-word
human span, ~30 % of words selected) into a temporary folder, builds the page
and prints its size, the time from navigation to the load event, and the time
the page's own script takes to re-render after a filter, a sort and a page
change (measured inside the page).
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
from pathlib import Path

from pyhighlights.viewer.cli import write_viewer

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage")


def write_runs(root: Path, documents: int, runs: int) -> list[Path]:
    rng = random.Random(0)
    docs = []
    for i in range(documents):
        n = rng.randint(100, 250)
        start = rng.randrange(n - 20)
        docs.append((f"doc{i}", [f"word{rng.randrange(5000)}" for _ in range(n)], rng.randint(0, 1),
                     list(range(start, start + 15))))
    paths = []
    for r in range(runs):
        path = root / f"run{r}"
        path.mkdir(parents=True)
        with open(path / "predictions.jsonl", "w") as handle:
            for sample, (doc_id, words, label, human) in enumerate(docs):
                selected = [j for j in range(len(words)) if rng.random() < 0.3]
                prediction = label if rng.random() < 0.8 else 1 - label
                handle.write(json.dumps({"id": doc_id, "sample": sample, "label": label, "prediction": prediction,
                                         "selected": selected, "highlight": human, "words": words}) + "\n")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=2500)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    root = Path(tempfile.mkdtemp(prefix="viewer-bench-"))
    try:
        page = write_viewer(write_runs(root, args.documents, args.runs), root / "view.html")
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "chromium"
        for flag in (*FLAGS, f"--user-data-dir={root / 'profile'}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"), options=options)
        try:
            driver.get(page.as_uri())
            load = driver.execute_script("const t = performance.timing; return t.loadEventEnd - t.navigationStart;")
            timed = {
                "errors-only filter": "document.getElementById('errors-only').click();",
                "sort by F1": "const s = document.getElementById('sort'); s.value = 'f1-asc';"
                              "s.dispatchEvent(new Event('change'));",
                "next page": "document.getElementById('next').click();",
            }
            print(f"{args.documents} documents x {args.runs} runs: page {page.stat().st_size / 1e6:.1f} MB, "
                  f"navigation to load {load} ms")
            for name, script in timed.items():
                ms = driver.execute_script(f"const t = performance.now(); {script} return performance.now() - t;")
                print(f"  {name}: {ms:.0f} ms")
        finally:
            driver.quit()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
