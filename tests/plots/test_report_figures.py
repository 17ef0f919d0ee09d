"""scripts/report.py --plots / --html next to the table."""
from __future__ import annotations

import json

from PIL import Image

from pyhighlights.cli.report import main


def write_run(root, model, seed, sparsity, f1):
    root.mkdir(parents=True)
    (root / "results.json").write_text(json.dumps(
        {"seeds": {str(seed): {"test/sparsity": sparsity, "test/highlight_f1": f1}}, "summary": {}}))
    (root / "manifest.json").write_text(json.dumps({"seeds": [seed], "parameters": {
        "model": {"name": model}, "dataset": {"name": "beer", "aspect": "aroma", "data_dir": None}}}))
    row = {"id": "d0", "label": 1, "prediction": 1, "selected": [1], "highlight": [1, 2], "words": ["a", "b", "c"]}
    (root / "predictions.jsonl").write_text(json.dumps(row) + "\n")


def test_report_writes_the_tradeoff_plot_and_the_viewer(tmp_path, capsys):
    write_run(tmp_path / "runs" / "rnp0", "rnp", 0, 0.1, 0.5)
    write_run(tmp_path / "runs" / "rnp1", "rnp", 1, 0.2, 0.6)
    write_run(tmp_path / "runs" / "grat", "grat", 0, 0.15, 0.7)
    out = tmp_path / "figures"
    assert main([str(tmp_path / "runs"), "--plots", "--html", "--out-dir", str(out)]) == 0
    with Image.open(out / "sparsity_f1.png") as image:
        assert image.format == "PNG"
    page = (out / "highlights.html").read_text()
    assert page.count('"kind":"model"') == 3 and "| rnp | 2 |" in capsys.readouterr().out


def test_report_plots_without_the_metrics_fail_clearly(tmp_path, capsys):
    root = tmp_path / "clf"
    root.mkdir()
    (root / "results.json").write_text(json.dumps({"seeds": {"0": {"test/accuracy": 0.9}}, "summary": {}}))
    assert main([str(root), "--plots", "--out-dir", str(tmp_path)]) == 2
    assert "no run has both test/sparsity and test/highlight_f1" in capsys.readouterr().err
