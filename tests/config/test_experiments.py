"""Every experiment config composes and validates (the real corpora are not needed for that)."""
from pathlib import Path

import pytest

from pyhighlights.cli.common import CONFIG_DIR
from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import resolve_specs

EXPERIMENTS = sorted(p.stem for p in (Path(CONFIG_DIR) / "experiment").glob("*.yaml"))

# The reference table of DESIGN.md section 7: corpus/aspect -> (lr, s, λs, λc, λg, λm, epochs, decay, batch)
REFERENCE = {
    "grat_beer_appearance": (1e-4, 0.15, 10, 10, 10, 1.5, 300, 1e-5, 256),
    "grat_beer_aroma": (1e-4, 0.123, 12, 10, 10, 1.5, 300, 1e-4, 256),
    "grat_beer_palate": (1e-4, 0.10, 10, 10, 10, 0.2, 100, 1e-5, 64),
    "grat_hotel_location": (2e-4, 0.08, 8, 10, 2.5, 1.5, 300, 1e-5, 256),
    "grat_hotel_service": (2e-4, 0.105, 8, 10, 5, 0.2, 100, 1e-5, 256),
    "grat_hotel_cleanliness": (1e-4, 0.0775, 8, 10, 2.5, 0.2, 75, 1e-5, 256),
}


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_composes_and_validates(name):
    specs = resolve_specs(compose_config([f"experiment={name}"]))
    assert specs.model["name"]


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_grat_reference_settings(name):
    specs = resolve_specs(compose_config([f"experiment={name}"]))
    model, trainer = specs.model, specs.trainer
    losses = model["losses"]
    got = (model["lr"], losses["sparsity"]["target"], losses["sparsity"]["weight"], losses["continuity"]["weight"],
           losses["guide"]["weight"], losses["jsd"]["weight"], trainer["max_epochs"], model["decay"],
           trainer["batch_size"])
    assert got == pytest.approx(REFERENCE[name])
    assert specs.embeddings["name"] == "glove_file" and specs.embeddings["trainable"] is False
