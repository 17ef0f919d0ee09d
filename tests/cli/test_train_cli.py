"""scripts/train.py end to end, in its own process, as a user runs it (see forked_scripts)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from forked_scripts import run_script

from pyhighlights.testing import tiny_overrides

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "train.py"


def train(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HYDRA_FULL_ERROR": "0"}
    result = run_script(SCRIPT.name, *args, env=env, cwd=ROOT, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def test_train_writes_a_run_directory_and_refuses_to_overwrite_it(tiny_beer_dir, tiny_cli_run):
    run_dir, result = tiny_cli_run
    assert "test/accuracy = " in result.stdout and "test/highlight_f1 = " in result.stdout
    results = json.loads((run_dir / "results.json").read_text())
    summary = results["summary"]
    for name in ("test/accuracy", "test/highlight_f1", "test/sparsity"):
        assert summary[name]["n"] == 1 and summary[name]["std"] == 0.0
        assert summary[name]["mean"] == results["seeds"]["0"][name]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["parameters"]["backbone"]["hidden_size"] == 16  # numbers, not key names
    assert manifest["parameters"]["model"]["losses"]["sparsity"]["target"] == 0.15
    assert any(path.endswith("annotations.json") for path in manifest["data_files"])
    predictions = [json.loads(line) for line in (run_dir / "predictions.jsonl").read_text().splitlines()]
    assert predictions and {"id", "label", "prediction", "selected", "highlight", "words"} <= set(predictions[0])
    assert all(max(row["selected"], default=-1) < len(row["words"]) for row in predictions)
    for name in ("losses.png", "selection_rate.png", "validation.png", "highlight_positions.png"):
        assert (run_dir / "plots" / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), name
    assert (run_dir / "metrics.csv").exists() and list((run_dir / "checkpoints").glob("*.ckpt"))

    before = (run_dir / "results.json").read_bytes()
    again = train(*tiny_overrides(tiny_beer_dir), f"hydra.run.dir={run_dir}", check=False)
    assert again.returncode != 0 and "never overwritten" in again.stderr
    assert (run_dir / "results.json").read_bytes() == before


def test_lightning_trainer_arguments_loggers_and_callbacks_reach_the_run(tiny_beer_dir, tmp_path):
    run_dir = tmp_path / "run"
    lightning = ("trainer.gradient_clip_val=1.0", "trainer.accumulate_grad_batches=2", "trainer.val_check_interval=0.5",
                 "logger=tensorboard", "callbacks=lr_monitor")
    train(*tiny_overrides(tiny_beer_dir), *lightning, f"hydra.run.dir={run_dir}")
    assert list((run_dir / "tensorboard").glob("events.out.tfevents.*"))
    header = (run_dir / "metrics.csv").read_text().splitlines()[0].split(",")
    assert "lr-Adam/encoder" in header  # the callback's values reach metrics.csv too
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["parameters"]["trainer"]["accumulate_grad_batches"] == 2
    assert manifest["parameters"]["trainer"]["gradient_clip_val"] == 1.0


def test_several_seeds_in_one_run(two_seed_cli_run):
    run_dir, _ = two_seed_cli_run
    results = json.loads((run_dir / "results.json").read_text())
    values = [results["seeds"][s]["test/accuracy"] for s in ("0", "1")]
    mean = sum(values) / 2
    std = (sum((v - mean) ** 2 for v in values) / 1) ** 0.5  # sample standard deviation over 2 seeds
    assert results["summary"]["test/accuracy"]["mean"] == pytest.approx(mean)
    assert results["summary"]["test/accuracy"]["std"] == pytest.approx(std)
    assert (run_dir / "seed1" / "predictions.jsonl").exists() and (run_dir / "seed1" / "plots" / "losses.png").exists()


@pytest.mark.parametrize("override, message", [
    ("model.losses.sparsity.target=-0.1", "model.losses.sparsity.target"),
    ("model.lr=nan", "model.lr"),
    ("+model.temprature=0.5", "model.temprature: unknown field"),
    ("backbone.hidden_size=abc", "backbone.hidden_size"),
    ("trainer.foo=1", "trainer.foo: neither a pyhighlights trainer setting nor a lightning.Trainer argument"),
])
def test_bad_overrides_exit_with_the_field_named(tiny_beer_dir, tmp_path, override, message):
    result = train(*tiny_overrides(tiny_beer_dir), override, f"hydra.run.dir={tmp_path / 'bad'}", check=False)
    assert result.returncode != 0
    assert message in result.stderr
    assert not (tmp_path / "bad").exists()  # the refused run leaves no directory behind


@pytest.mark.parametrize("override, names", [
    ("model.selector.temprature=0.5", "model.selector.temprature: unknown field of selector 'gumbel'; "
                                      "fields: dropout, evaluation, temperature; did you mean temperature?"),
    ("modle.lr=0.1", "modle.lr: unknown field of the config; fields: backbone, dataset, embeddings, logger, "
                     "model, recipe, resume, seed, seeds, trainer; did you mean model?"),
])
def test_a_misspelt_field_exits_2_in_one_line_naming_the_fields(tmp_path, override, names):
    result = run_script(SCRIPT.name, override, cwd=tmp_path, timeout=300)
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {names}"
    assert list(tmp_path.iterdir()) == []  # no outputs/<date>/<time>/train.log


def test_a_refused_run_keeps_a_directory_that_existed_and_whatever_an_earlier_run_left(tiny_beer_dir, tmp_path):
    empty = tmp_path / "mine"
    empty.mkdir()
    result = train(*tiny_overrides(tiny_beer_dir), "model.lr=nan", f"hydra.run.dir={empty}", check=False)
    assert result.returncode == 2 and empty.is_dir() and list(empty.iterdir()) == []
    (tmp_path / "earlier").mkdir()
    (tmp_path / "earlier" / "train.log").write_text("an earlier run's log\n")
    (tmp_path / "earlier" / "notes.txt").write_text("kept\n")
    result = train(*tiny_overrides(tiny_beer_dir), "model.lr=nan", f"hydra.run.dir={tmp_path / 'earlier'}",
                   check=False)
    assert result.returncode == 2
    assert sorted(p.name for p in (tmp_path / "earlier").iterdir()) == ["notes.txt", "train.log"]


def test_unknown_group_option_lists_the_available_ones(tmp_path):
    result = train("model=nosuchmodel", f"hydra.run.dir={tmp_path}", check=False)
    assert result.returncode != 0 and "rnp" in result.stderr and "grat" in result.stderr


def test_missing_corpus_names_the_files(tmp_path):
    result = train("dataset=beer", f"dataset.data_dir={tmp_path / 'nothing'}", f"hydra.run.dir={tmp_path / 'r'}",
                   check=False)
    assert result.returncode != 0 and "annotations.json" in result.stderr


def test_help_lists_the_logger_and_callbacks_groups():
    result = train("--help")
    assert "logger: csv, mlflow, tensorboard, wandb" in result.stdout and "callbacks: lr_monitor" in result.stdout


def test_cfg_job_prints_every_parameter():
    result = train("--cfg", "job", "model=grat")
    assert "pretrain_epochs: 2" in result.stdout and "noise_sigma: 1.0" in result.stdout  # the synthetic-corpus preset
