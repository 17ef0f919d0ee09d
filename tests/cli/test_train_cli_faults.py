"""scripts/train.py on faults a user meets: each ends in a one-line error or a correct, recorded result."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import statistics
from pathlib import Path

from test_train_cli import train

from pyhighlights.testing import tiny_overrides


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_refused_rerun_leaves_every_file_of_the_first_run_byte_identical(tiny_beer_dir, tiny_cli_run):
    run_dir, _ = tiny_cli_run
    before = digest(run_dir)
    assert {".hydra/config.yaml", ".hydra/hydra.yaml", ".hydra/overrides.yaml", "status.json"} <= set(before)
    assert "trainer.max_epochs=1" in (run_dir / ".hydra" / "overrides.yaml").read_text()
    assert json.loads((run_dir / "status.json").read_text())["state"] == "finished"
    for name in ("results.json", "manifest.json", "predictions.jsonl", "status.json", ".hydra/config.yaml"):
        assert (run_dir / name).stat().st_mode & 0o777 == 0o644, name  # the test runs under umask 022
    # Different overrides: Hydra would have rewritten .hydra/overrides.yaml before the refusal.
    again = train(*tiny_overrides(tiny_beer_dir, "seed=5"), f"hydra.run.dir={run_dir}", check=False)
    assert again.returncode != 0 and "never overwritten" in again.stderr and "Traceback" not in again.stderr
    assert digest(run_dir) == before


def test_non_finite_loss_stops_at_once_naming_step_terms_and_documents(tiny_beer_dir, tmp_path):
    run_dir = tmp_path / "nan"
    result = train(*tiny_overrides(tiny_beer_dir), "model.selector.temperature=1e-40", f"hydra.run.dir={run_dir}",
                   check=False)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("error: non-finite training loss (") and "train/loss/task" in error
    assert "at step 0 " in error and "reviews.aspect0.train.txt:" in error
    report = json.loads((run_dir / "nonfinite" / "report.json").read_text())
    assert report["step"] == 0 and len(report["documents"]) == 16
    assert all(doc.startswith("reviews.aspect0.train.txt:") for doc in report["documents"])
    assert (run_dir / "nonfinite" / "state.pt").is_file()
    assert json.loads((run_dir / "status.json").read_text())["state"] == "failed"
    assert not (run_dir / "results.json").exists()


def test_two_seeds_print_mean_and_std(two_seed_cli_run):
    run_dir, result = two_seed_cli_run
    seeds = json.loads((run_dir / "results.json").read_text())["seeds"]
    values = [seeds[s]["test/accuracy"] for s in ("0", "1")]
    printed = re.search(r"test/accuracy = ([0-9.]+) ± ([0-9.]+) \(n=2\)", result.stdout)
    assert printed, result.stdout
    assert float(printed.group(1)) == round(statistics.fmean(values), 4)
    assert float(printed.group(2)) == round(statistics.stdev(values), 4)


def test_empty_heldout_is_refused_before_training(tiny_beer_dir, tmp_path):
    data = shutil.copytree(tiny_beer_dir, tmp_path / "data")
    (data / "reviews.aspect0.heldout.txt").write_text("")
    result = train(*tiny_overrides(data), f"hydra.run.dir={tmp_path / 'r'}", check=False)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "reviews.aspect0.heldout.txt: the validation split of beer/appearance has no documents" in result.stderr
    assert not (tmp_path / "r" / "status.json").exists()  # nothing was claimed


def test_a_run_directory_that_is_a_file_is_named(tiny_beer_dir, tmp_path):
    (tmp_path / "taken").write_text("not a folder")
    result = train(*tiny_overrides(tiny_beer_dir), f"hydra.run.dir={tmp_path / 'taken' / 'run'}", check=False)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert f"{tmp_path / 'taken'} is a file" in result.stderr


def test_the_returned_objective_is_the_mean_carrying_the_std():
    from pyhighlights.cli.train import objective, summary_lines

    summary = {"test/highlight_f1": {"mean": 0.6, "std": 0.1414, "n": 2},
               "test/accuracy": {"mean": 0.9, "std": 0.0, "n": 2}}
    value = objective(summary)
    assert value == 0.6 and isinstance(value, float) and (value.std, value.n) == (0.1414, 2)
    assert repr(value) == "0.6000 ± 0.1414 (n=2)"
    assert summary_lines(summary) == ["test/accuracy = 0.9000 ± 0.0000 (n=2)",
                                      "test/highlight_f1 = 0.6000 ± 0.1414 (n=2)"]
    assert objective({"test/highlight_f1": {"mean": None, "std": None, "n": 0}}) is None
