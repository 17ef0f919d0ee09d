"""What training prints when its output is a log file, not a terminal."""
from __future__ import annotations

import csv
import json
import re

from test_train_cli import train

from pyhighlights.testing import tiny_overrides

NUMBER = r"(\d+\.\d{3}|–)"


def epoch_line(epochs: int) -> re.Pattern:
    return re.compile(rf"epoch (\d+)/{epochs}: (\d+\.\d) s, train loss {NUMBER}, train selection rate {NUMBER}, "
                      rf"val accuracy {NUMBER}, val highlight F1 {NUMBER}, val sparsity {NUMBER}$")


EPOCH_LINE = epoch_line(3)


def test_one_line_per_epoch_and_a_short_corpus_line(tiny_beer_dir, tmp_path):
    run_dir = tmp_path / "run"
    # stdout/stderr are pipes here, as in a cluster log; progress_bar=null lets the run decide
    overrides = [o for o in tiny_overrides(tiny_beer_dir) if not o.startswith("trainer.progress_bar")]
    result = train(*overrides, "trainer.max_epochs=3", f"hydra.run.dir={run_dir}")
    output = result.stdout + result.stderr
    lines = [m for m in (EPOCH_LINE.search(line) for line in output.splitlines()) if m]
    assert [int(m.group(1)) for m in lines] == [1, 2, 3], output[-3000:]

    # the numbers are the run's own: validation values equal metrics.csv's epoch rows
    rows = [r for r in csv.DictReader((run_dir / "metrics.csv").open()) if r.get("val/accuracy")]
    assert len(rows) == 3
    for match, row in zip(lines, rows):
        assert float(match.group(5)) == round(float(row["val/accuracy"]), 3)
        assert float(match.group(7)) == round(float(row["val/sparsity"]), 3)
        assert float(match.group(3)) > 0  # a mean cross-entropy + penalties, never 0 on random weights
        assert 0 < float(match.group(4)) < 1  # the share of training words kept
    assert "it/s" not in output and "\r" not in output  # no progress bar in a log file

    # the corpus at start-up: one readable line; the counts dictionary is only in the manifest
    corpus_lines = [line for line in output.splitlines() if "corpus beer" in line]
    assert len(corpus_lines) == 1, corpus_lines
    assert re.search(r"corpus beer/appearance: \d+ train / \d+ validation / \d+ test documents, 2 classes "
                     r"\(negative, positive\), \d+ test documents with human highlights, max_length \d+ "
                     r"\(\d+ truncated\)$", corpus_lines[0]), corpus_lines[0]
    assert "{" not in output.split("epoch 1/3")[0]  # no dictionary dumped before training starts
    # (the same run) predictions.jsonl carries the human evidence spans, which cover exactly the highlight
    for row in map(json.loads, (run_dir / "predictions.jsonl").read_text().splitlines()):
        covered = sorted(i for start, end in row["highlight_spans"] for i in range(start, end))
        assert covered == row["highlight"]
    assert "label_counts" in json.dumps(json.loads((run_dir / "manifest.json").read_text())["corpus_info"])


def _run_in_terminal(args: list[str], timeout: float = 300) -> str:
    """Run a command with a pseudo-terminal as stdin/stdout/stderr; return what it wrote."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios
    import time

    from test_train_cli import ROOT

    master, slave = pty.openpty()
    # a real terminal has a size; a fresh pseudo-terminal is 0 x 0, where bars draw nothing
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # CI would turn bars off on purpose
    env.update(OMP_NUM_THREADS="1")
    process = subprocess.Popen([sys.executable, *args], stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert process.wait(timeout=30) == 0, b"".join(chunks).decode(errors="replace")[-3000:]
    return b"".join(chunks).decode(errors="replace")


def test_a_terminal_gets_a_bar_with_documents_per_second(tiny_beer_dir, tmp_path):
    from test_train_cli import SCRIPT

    overrides = [o for o in tiny_overrides(tiny_beer_dir) if not o.startswith("trainer.progress_bar")]
    output = _run_in_terminal([str(SCRIPT), *overrides, f"hydra.run.dir={tmp_path / 'run'}"])
    assert re.search(r"docs/s=\d+", output), output[-3000:]
    assert re.search(r"train selection rate=\d", output)  # the bar's name for train/selection_rate
    # the per-epoch line stays, on a line of its own above the bar
    assert len([line for line in re.split(r"[\r\n]", output) if epoch_line(1).search(line)]) == 1, output[-3000:]
    assert "nan" not in output


def test_evaluation_bar_counts_documents(monkeypatch, capsys):
    """evaluate.py and explain.py run Lightning's test and predict loops: their bar counts documents too."""
    from types import SimpleNamespace

    import lightning.pytorch as pl

    from pyhighlights.evaluation.loops import device_trainer
    from pyhighlights.training import progress

    class Counting(pl.LightningModule):
        def test_step(self, batch, batch_idx):
            pass

        def predict_step(self, batch, batch_idx):
            return batch.size

    from torch.utils.data import DataLoader

    batches = DataLoader([SimpleNamespace(size=4), SimpleNamespace(size=3)], batch_size=None, collate_fn=lambda b: b)
    monkeypatch.setattr(progress, "interactive", lambda: True)
    for loop in ("test", "predict"):
        trainer = device_trainer("cpu")
        getattr(trainer, loop)(Counting(), dataloaders=batches)
        bar = next(c for c in trainer.callbacks if isinstance(c, progress.DocumentsProgressBar))
        assert bar.rate.documents == 7
        shown = capsys.readouterr()
        assert re.search(r"docs/s=\d+", shown.out + shown.err), loop
    monkeypatch.setattr(progress, "interactive", lambda: False)
    trainer = device_trainer("cpu")
    trainer.test(Counting(), dataloaders=batches, verbose=False)
    assert not any(isinstance(c, progress.DocumentsProgressBar) for c in trainer.callbacks)
    assert "docs/s" not in "".join(capsys.readouterr())
