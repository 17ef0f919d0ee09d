"""scripts/compare.py: models x seeds -> one run directory per model and one mean ± std table."""
from __future__ import annotations

import csv
import io
import json
import statistics

import pytest

from family_helpers import SHORT_PADDING, overrides

from pyhighlights.cli.compare import main
from pyhighlights.training.compare import METRICS, model_overrides, quick_experiment


def fast(data_dir) -> list[str]:
    # the model's own override is added by compare; drop overrides()'s "model=" entry
    return [o for o in overrides(data_dir, "rnp", "trainer.limit_train_batches=2", "trainer.limit_val_batches=1",
                                 SHORT_PADDING) if not o.startswith("model=")]


def test_quick_experiments_are_used_when_they_exist():
    assert quick_experiment("fr") == "quick_fr" and quick_experiment("no_such_model") is None
    assert model_overrides("mrd", [0, 1], ["trainer.max_epochs=1"], quick=True) == [
        "model=mrd", "experiment=quick_mrd", "trainer.max_epochs=1", "seeds=[0,1]"]
    assert model_overrides("mrd", [3], [], quick=False) == ["model=mrd", "seeds=[3]"]


def test_compare_trains_and_tabulates(family_tiny_dir, tmp_path, capsys):
    out = tmp_path / "compare"
    argv = ["--models", "fr,dr", "--seeds", "0,1", "--out", str(out), *fast(family_tiny_dir)]
    assert main(argv) == 0
    for model in ("fr", "dr"):
        results = json.loads((out / model / "results.json").read_text())
        assert set(results["seeds"]) == {"0", "1"}
        manifest = json.loads((out / model / "manifest.json").read_text())
        assert manifest["parameters"]["model"]["name"] == model
        assert manifest["parameters"]["trainer"]["max_epochs"] == 1  # overrides win over the quick experiment
    markdown = (out / "comparison.md").read_text()
    rows = list(csv.DictReader(io.StringIO((out / "comparison.csv").read_text())))
    assert [row["row"] for row in rows] == ["fr", "dr"]
    assert json.loads((out / "comparison.json").read_text()) == {
        "runs": {"fr": str(out / "fr"), "dr": str(out / "dr")}, "seeds": [0, 1]}
    for row in rows:
        seeds = json.loads((out / row["row"] / "results.json").read_text())["seeds"]
        assert row["n"] == "2"
        for metric in METRICS:
            values = [s[f"test/{metric}"] for s in seeds.values() if s.get(f"test/{metric}") is not None]
            if len(values) == 2:
                assert float(row[f"{metric}_mean"]) == statistics.fmean(values)
                assert float(row[f"{metric}_std"]) == statistics.stdev(values)
        assert f"| {row['row']} | 2 |" in markdown and f"- {row['row']}: {out / row['row']}" in markdown
    assert all(m in markdown for m in METRICS)

    # Running again reuses the finished runs (no new training, same table).
    before = (out / "fr" / "results.json").stat().st_mtime_ns
    assert main(argv) == 0
    assert (out / "fr" / "results.json").stat().st_mtime_ns == before
    assert (out / "comparison.md").read_text() == markdown
    capsys.readouterr()


def test_unknown_model_is_refused(tmp_path, capsys):
    assert main(["--models", "fr,nope", "--out", str(tmp_path)]) == 2
    assert "nope" in capsys.readouterr().err


class Killed(Exception):
    pass


def test_interrupted_comparison_is_finished_and_a_changed_override_trains_anew(family_tiny_dir, tmp_path, capsys,
                                                                               monkeypatch):
    from pyhighlights.training.run import Experiment

    out = tmp_path / "compare"
    argv = ["--models", "rnp,fr", "--seeds", "0", "--out", str(out), "--no-quick",
            *fast(family_tiny_dir), "trainer.max_epochs=2"]
    build, trained = Experiment.model, []

    def model_killed_in_frs_second_epoch(self):
        built = build(self)
        trained.append(self.specs.model["name"])

        def crash(batch, batch_idx):
            if self.specs.model["name"] == "fr" and built.current_epoch == 1:
                raise Killed()
        built.on_train_batch_start = crash
        return built

    monkeypatch.setattr(Experiment, "model", model_killed_in_frs_second_epoch)
    with pytest.raises(Killed):
        main(argv)
    assert trained == ["rnp", "fr"] and (out / "rnp" / "results.json").is_file()
    assert not (out / "fr" / "results.json").exists() and (out / "fr" / "checkpoints" / "last.ckpt").is_file()
    finished = (out / "rnp" / "results.json").read_bytes()

    monkeypatch.setattr(Experiment, "model", lambda self: trained.append(self.specs.model["name"]) or build(self))
    trained.clear()
    assert main(argv) == 0
    assert trained == ["fr"]  # rnp was finished; fr resumed from its epoch-1 checkpoint
    assert (out / "rnp" / "results.json").read_bytes() == finished
    assert set(json.loads((out / "fr" / "results.json").read_text())["seeds"]) == {"0"}

    trained.clear()
    assert main([*argv, "model.lr=0.01"]) == 0
    assert trained == ["rnp", "fr"]
    for model in ("rnp", "fr"):
        manifest = json.loads((out / f"{model}-2" / "manifest.json").read_text())
        assert manifest["parameters"]["model"]["lr"] == 0.01
    assert (out / "rnp" / "results.json").read_bytes() == finished
    # the table of the other configuration is written beside the first one, which is kept
    assert json.loads((out / "comparison-2.json").read_text())["runs"] == {"rnp": str(out / "rnp-2"),
                                                                           "fr": str(out / "fr-2")}
    assert json.loads((out / "comparison.json").read_text())["runs"] == {"rnp": str(out / "rnp"), "fr": str(out / "fr")}
    capsys.readouterr()


def fake_finished_run(run_dir, model, seeds, overrides, f1):
    """A finished run directory recording the configuration compare.py resolves for these overrides."""
    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import resolve_specs

    specs = resolve_specs(compose_config(model_overrides(model, seeds, overrides, quick=True))).as_dict()
    run_dir.mkdir(parents=True)
    (run_dir / "manifest.json").write_text(json.dumps({"parameters": specs, "seeds": list(seeds)}, default=str))
    (run_dir / "results.json").write_text(json.dumps(
        {"seeds": {str(s): {"test/highlight_f1": f1 + s / 10} for s in seeds}}))
    (run_dir / "status.json").write_text(json.dumps({"state": "finished"}))


def test_table_only_tabulates_only_the_configuration_and_seeds_asked_for(family_tiny_dir, tmp_path, capsys):
    out, base = tmp_path / "compare", fast(family_tiny_dir)
    fake_finished_run(out / "rnp", "rnp", [0, 1], base, 0.2)
    table_only = ["--models", "rnp", "--seeds", "0,1", "--out", str(out), "--table-only", "--", *base]
    assert main([*table_only, "model.lr=0.01"]) == 2  # no run of that configuration: not stood in for by rnp/
    assert "no finished run of rnp with seeds [0, 1]" in capsys.readouterr().err
    assert main(["--models", "rnp", "--seeds", "0", "--out", str(out), "--table-only", "--", *base]) == 2
    assert "with seeds [0]" in capsys.readouterr().err and not (out / "comparison.md").exists()

    fake_finished_run(out / "rnp-2", "rnp", [0, 1], [*base, "model.lr=0.01"], 0.6)
    assert main([*table_only, "model.lr=0.01"]) == 0
    first = (out / "comparison.md").read_text()
    assert "| rnp | 2 | – | – | – | 0.650 ± 0.071 | – |" in first and f"- rnp: {out / 'rnp-2'}" in first  # seeds 0.6, 0.7
    assert main(table_only) == 0
    assert (out / "comparison.md").read_text() == first  # the table of the other runs is kept
    second = (out / "comparison-2.md").read_text()
    assert "| rnp | 2 | – | – | – | 0.250 ± 0.071 | – |" in second and f"- rnp: {out / 'rnp'}" in second
    assert main([*table_only, "model.lr=0.01"]) == 0  # the same runs again: their own file is refreshed
    assert not (out / "comparison-3.md").exists()
    assert "written: " + str(out / "comparison.md") in capsys.readouterr().out
