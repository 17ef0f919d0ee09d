"""GenSPP's search: stopped after generation 2 (in this process, or by a SIGKILL of a process scoring its candidates
in two worker processes) and resumed, it ends with the population and scores of a search that ran through."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import lightning.pytorch as pl
import numpy as np
import pytest
import torch
from family_helpers import experiment

from pyhighlights.faults import VARIABLE
from pyhighlights.models.selection.genspp_search import latest_generation, search

#: A search small enough for seconds: four candidates, a 4-unit GRU, one predictor epoch, five generations.
SMALL = ("model.pad_to=null", "model.population_size=4", "model.generations=5", "model.predictor_epochs=1",
         "model.encoder_hidden_size=4", "embeddings.dim=8", "trainer.batch_size=40", "model.ce_limit=5")

RUN = """
import sys
sys.path[:0] = [{tests!r}, {tests_root!r}]  # family_helpers, and the test helpers it imports
import lightning.pytorch as pl
from family_helpers import experiment
from pyhighlights.models.selection.genspp_search import search
exp = experiment({data!r}, "genspp", *{overrides!r})
pl.seed_everything(0, verbose=False)
model = exp.model()
search(model, exp.datamodule(0), {directory!r}, 0)
"""


def searched(data_dir, directory, *extra):
    exp = experiment(data_dir, "genspp", *SMALL, *extra)
    pl.seed_everything(0, verbose=False)
    model = exp.model()
    return model, search(model, exp.datamodule(0), directory, 0)


def same_state(a, b) -> bool:
    names = ("chromosomes", "ce", "sparsity", "fitness", "seeds")
    return a["generation"] == b["generation"] and all(torch.equal(a[n], b[n]) for n in names) and \
        a["rng"] == b["rng"] and all(torch.equal(a["best_predictor"][k], b["best_predictor"][k])
                                     for k in a["best_predictor"])


def test_search_stopped_after_generation_2_resumes_to_the_uninterrupted_result(family_tiny_dir, tmp_path):
    _, through = searched(family_tiny_dir, tmp_path / "through")
    # stopped after generation 2, its candidates scored by two worker processes; resumed here, in this process
    _, stopped = searched(family_tiny_dir, tmp_path / "stopped", "model.generations=2", "model.search_workers=2")
    assert stopped["generation"] == 2 and not same_state(stopped, through)
    _, resumed = searched(family_tiny_dir, tmp_path / "stopped")
    assert same_state(resumed, through)
    assert [h["best_fitness"] for h in resumed["history"]] == [h["best_fitness"] for h in through["history"]]


@pytest.mark.slow  # a second Python process and two workers: a minute on a busy machine
def test_killed_search_resumes_to_the_uninterrupted_result(family_tiny_dir, tmp_path):
    through_model, through = searched(family_tiny_dir, tmp_path / "through")
    assert through["generation"] == 5 and len(through["history"]) == 6
    # the search moved: children were scored and some replaced founders
    assert not torch.equal(through["chromosomes"], torch.load(tmp_path / "through" / "generation-0000.pt",
                                                              weights_only=True)["chromosomes"])

    killed = tmp_path / "killed"
    script = RUN.format(tests=str(Path(__file__).parent), tests_root=str(Path(__file__).parents[1]),
                        data=str(family_tiny_dir), directory=str(killed),
                        overrides=[*SMALL, "model.search_workers=2"])
    # the third generation file (founders, 1, 2) is in place when the process is killed
    env = {**os.environ, VARIABLE: "search_generation:3", "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == -9, done.stderr[-3000:]
    assert latest_generation(killed).name == "generation-0002.pt"

    resumed_model, resumed = searched(family_tiny_dir, killed)
    assert same_state(resumed, through)
    # every generation file after the kill is what the uninterrupted search wrote
    for generation in range(6):
        name = f"generation-{generation:04d}.pt"
        assert same_state(torch.load(killed / name, weights_only=True),
                          torch.load(tmp_path / "through" / name, weights_only=True)), name
    # the model left behind is the best candidate: its selector and its predictor
    best = int(np.argmax(through["fitness"].numpy()))
    assert np.array_equal(resumed_model.chromosome(), through["chromosomes"][best].numpy().astype(np.float32))
    assert all(torch.equal(v, through_model.state_dict()[k]) for k, v in resumed_model.state_dict().items())


def test_a_finished_search_is_read_back_not_rerun(family_tiny_dir, tmp_path):
    _, first = searched(family_tiny_dir, tmp_path / "s", "model.generations=1")
    stamp = (tmp_path / "s" / "generation-0001.pt").stat().st_mtime_ns
    _, again = searched(family_tiny_dir, tmp_path / "s", "model.generations=1")
    assert same_state(first, again) and (tmp_path / "s" / "generation-0001.pt").stat().st_mtime_ns == stamp


def test_a_search_with_other_settings_refuses_the_directory(family_tiny_dir, tmp_path):
    searched(family_tiny_dir, tmp_path / "s", "model.generations=0")
    with pytest.raises(ValueError, match="generation-0000.pt: written by a search with other settings"):
        searched(family_tiny_dir, tmp_path / "s", "model.generations=0", "model.mutation_std=0.2")
