"""Settings a run cannot train with are refused before it claims its run directory (nothing is left there)."""
from __future__ import annotations

import pytest

from pyhighlights.config.compose import compose_config
from pyhighlights.config.resolve import ConfigError
from pyhighlights.data.synthetic import write_synthetic_beer
from pyhighlights.testing import tiny_overrides
from pyhighlights.training.run import run


@pytest.mark.parametrize("seeds, message", [
    ("seed=-1", r"seed=-1: expected an integer from 0 to 4294967295"),
    (f"seed={2 ** 32}", r"seed=4294967296: expected an integer"),
    ("seeds=[0,-3]", r"seeds: expected a list of distinct integers from 0 to 4294967295, got \[0, -3\]"),
])
def test_a_seed_numpy_and_torch_cannot_take_is_refused(tiny_beer_dir, tmp_path, seeds, message):
    with pytest.raises(ConfigError, match=message):
        run(compose_config(tiny_overrides(tiny_beer_dir, seeds)), tmp_path / "run")
    assert not (tmp_path / "run").exists()


@pytest.fixture(scope="module")
def one_test_document(tmp_path_factory):
    # At most 40 training documents (at most 3 batches of 16); a test split of 1 document.
    return write_synthetic_beer(tmp_path_factory.mktemp("small"), seed=0, n_train=40, n_heldout=3, n_test=1,
                                min_length=20, max_length=30)


@pytest.mark.parametrize("devices, split, message", [
    (2, "test", r"2 processes, but the test split of .* has 1 document\(s\)"),
    (4, "train", r"4 processes, but the train split of .* gives [1-3] batch\(es\) of trainer.batch_size=16"),  # <= 40 docs
])
def test_more_processes_than_a_split_can_feed_are_refused(one_test_document, tmp_path, devices, split, message):
    cfg = compose_config(tiny_overrides(one_test_document, f"trainer.devices={devices}", "trainer.strategy=ddp_spawn"))
    with pytest.raises(ConfigError, match=message):
        run(cfg, tmp_path / "run")
    assert not (tmp_path / "run").exists()
