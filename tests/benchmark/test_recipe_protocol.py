"""The recipe protocol's plumbing on a tiny corpus: it writes the corpus, runs a cell as scripts/train.py,
prints its table, and a rerun skips the finished cell instead of training it again."""
import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--models", "fr", "--seeds", "0", "--corpora", "beer_appearance", "--n-train", "30", "--n-heldout", "8",
        "--n-test", "8", "--", "trainer.max_epochs=1", "backbone.hidden_size=8", "embeddings.dim=8"]


def protocol():
    spec = importlib.util.spec_from_file_location("recipe_protocol", ROOT / "benchmarks" / "recipe_protocol.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # one cell: a training process (start-up and one tiny epoch)
def test_one_tiny_cell_runs_is_tabled_and_is_skipped_on_a_rerun(tmp_path, monkeypatch, capsys):
    module = protocol()
    text = module.main(["--out", str(tmp_path), *TINY])
    cell = tmp_path / "cells" / "fr" / "recommended" / "beer_appearance" / "seed0"
    results = json.loads((cell / "results.json").read_text())
    f1 = results["summary"]["test/highlight_f1"]["mean"]
    row = next(line for line in text.splitlines() if line.startswith("| beer_appearance"))
    assert row.endswith(f"| {f1:.3f} (n=1) |")
    config = (cell / ".hydra" / "config.yaml").read_text()
    assert "name: recommended" in config and "max_epochs: 1" in config
    log = (cell / "train.log").read_text()
    assert "recipe: recommended (pyhighlights/configs/recipe_model/recommended_fr.yaml" in log
    corpus = json.loads(next((tmp_path / "corpora").glob("lei_g10_*/synthetic.json")).read_text())
    assert corpus["n_train"] == 30 and corpus["correlation"] == 0.0
    monkeypatch.setattr(subprocess, "call", lambda *a, **k: pytest.fail("a finished cell was run again"))
    assert module.main(["--out", str(tmp_path), *TINY]) == text
    assert f"skip {cell} (finished)" in capsys.readouterr().out


def test_an_unknown_corpus_name_is_refused_with_the_known_ones(tmp_path):
    with pytest.raises(SystemExit, match="--corpora: unknown \\['nope'\\]; known: tune_beer_appearance"):
        protocol().main(["--out", str(tmp_path), "--corpora", "nope"])


def test_a_cell_run_with_other_settings_is_refused_naming_its_record(tmp_path):
    module = protocol()
    cell = tmp_path / "cells" / "fr" / "recommended" / "beer_appearance" / "seed0"
    module.recorded_command(cell, ["model=fr", "trainer.max_epochs=4"])
    module.recorded_command(cell, ["model=fr", "trainer.max_epochs=4"])  # the same settings: accepted
    with pytest.raises(SystemExit, match=r"seed0.command.json: the cell .* was run with other settings \(differing: "
                                         r"\['trainer.max_epochs=1', 'trainer.max_epochs=4'\]\)"):
        module.recorded_command(cell, ["model=fr", "trainer.max_epochs=1"])
    stray = tmp_path / "cells" / "fr" / "recommended" / "beer_appearance" / "seed1"
    stray.mkdir()
    with pytest.raises(SystemExit, match="seed1 exists but has no seed1.command.json"):
        module.recorded_command(stray, ["model=fr"])


def test_an_unfinished_cell_is_resumed_from_its_own_settings_and_a_failure_is_reported(tmp_path, monkeypatch):
    module = protocol()
    cell = tmp_path / "seed0"
    (cell).mkdir()
    (cell / "status.json").write_text('{"state": "running"}')
    commands = []
    monkeypatch.setattr(subprocess, "call", lambda command, **kwargs: commands.append(command) or 3)
    assert module.run_cell(cell, ["model=fr", "seed=0"]) is False
    assert commands[0][1:] == [str(ROOT / "scripts" / "train.py"), f"resume={cell}"]


def test_the_table_by_model_has_a_row_per_model_the_seeds_mean_and_sample_std_and_the_corpus_mean(tmp_path):
    module = protocol()
    corpora = [c for c in module.CORPORA if c["name"] in ("beer_appearance", "hotel_service")]
    cells = {("rnp", "beer_appearance"): (0.5, 0.7),  # mean 0.6, sample std sqrt(0.02) = 0.141
             ("fr", "beer_appearance"): (0.5, 0.7), ("fr", "hotel_service"): (0.9,)}  # corpus means 0.6, 0.9
    for (model, corpus), values in cells.items():
        for seed, f1 in enumerate(values):
            cell = tmp_path / "cells" / model / "recommended" / corpus / f"seed{seed}"
            cell.mkdir(parents=True)
            (cell / "status.json").write_text('{"state": "finished"}')
            (cell / "results.json").write_text(json.dumps({"summary": {"test/highlight_f1": {"mean": f1}}}))
    text = module.table(tmp_path, ["rnp", "fr", "mcd"], ["recommended"], corpora, [0, 1, 2], "test/highlight_f1",
                        "model")
    assert text.splitlines()[0] == \
        "| model | recipe | beer_appearance (appearance) | hotel_service (service) | mean |"
    # the mean column: the mean of the corpus means (0.6 + 0.9) / 2, only when every corpus has a seed
    assert text.splitlines()[2:] == ["| rnp | recommended | 0.600 ± 0.141 (n=2) | – | – |",
                                     "| fr | recommended | 0.600 ± 0.141 (n=2) | 0.900 (n=1) | 0.750 |",
                                     "| mcd | recommended | – | – | – |"]


def test_a_cell_whose_recipe_changed_since_it_ran_is_refused(tmp_path):
    from pyhighlights.config.compose import compose_config
    from pyhighlights.training.run import resolve_specs

    module = protocol()
    cell = tmp_path / "seed0"
    overrides = ["model=fr", "recipe=recommended", "trainer.max_epochs=4"]
    module.refuse_stale(cell, overrides)  # not run yet: nothing to compare
    cell.mkdir()
    recorded = json.loads(json.dumps(resolve_specs(compose_config(overrides)).as_dict(), default=str))
    assert recorded["model"]["lr"] == 0.01  # FR's recipe rate now
    del recorded["trainer"]["monitor_ties"]  # a field added to the schema since: not a change
    (cell / "manifest.json").write_text(json.dumps({"parameters": recorded}))
    module.refuse_stale(cell, overrides)
    recorded["model"]["lr"] = 0.004  # what the recipe file set when the cell ran
    (cell / "manifest.json").write_text(json.dumps({"parameters": recorded}))
    with pytest.raises(SystemExit, match=r"seed0: ran with settings its overrides no longer compose \(differing: "
                                         r"\['model.lr'\]; a recipe or preset file changed since\)"):
        module.refuse_stale(cell, overrides)
    # a field added since that the overrides now set: the cell ran with its default (null), so it is stale
    recorded["model"]["lr"] = 0.01
    del recorded["dataset"]["disagreement_share"]
    (cell / "manifest.json").write_text(json.dumps({"parameters": recorded}))
    module.refuse_stale(cell, overrides)
    with pytest.raises(SystemExit, match=r"differing: \['dataset.disagreement_share'\]"):
        module.refuse_stale(cell, [*overrides, "dataset.disagreement_share=0.9"])
