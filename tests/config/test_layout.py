"""The batching layout: each model's registered choice, the named ``layout=packed``, and the data module they set."""
import pytest

from pyhighlights.config.compose import compose_config
from pyhighlights.training.run import resolve_specs

REFERENCE = {"grat": ("padded", None, False), **{m: ("padded", 256, False) for m in ("fr", "dr", "mgr", "mcd", "dar",
                                                                                      "mrd")}}
PACKED = ("within_length", None, True)


def layout(*overrides):
    model = resolve_specs(compose_config(list(overrides))).model
    return model["recurrence"], model["pad_to"], model["bucket"]


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_models_with_reference_parity_default_to_the_reference_layout(name):
    """G-RAT: train_utils.py pads to the batch's longest, random batches; the Liu et al. loaders pad to 256."""
    assert layout(f"model={name}") == REFERENCE[name]
    assert layout(f"model={name}", "layout=packed") == PACKED


def test_rnp_keeps_the_within_length_encoder_and_buckets():
    assert layout("model=rnp") == (None, None, True)  # null: the backbone's own recurrence, within_length
    assert resolve_specs(compose_config(["model=rnp"])).backbone["recurrence"] == "within_length"


@pytest.mark.parametrize("name", ["quick_fr", "quick_dr", "quick_mgr", "quick_mcd", "quick_dar", "quick_mrd",
                                  "quick_grat", "quick_a2r"])
def test_quick_settings_use_the_packed_layout(name):
    assert layout(f"experiment={name}") == PACKED


@pytest.mark.parametrize("name", ["fr_beer_appearance", "dr_beer_aroma", "mgr_hotel_cleanliness",
                                  "mcd_beer_appearance", "dar_beer_appearance", "mrd_beer_correlated_appearance",
                                  "grat_beer_appearance", "grat_hotel_service"])
def test_published_run_settings_use_the_reference_layout(name):
    assert layout(f"experiment={name}") == REFERENCE[name.split("_")[0]]


def test_the_layout_reaches_the_data_and_the_encoders(tiny_beer_dir):
    from pyhighlights.training.run import Experiment

    def built(*extra):
        exp = Experiment(resolve_specs(compose_config(["dataset=beer", f"dataset.data_dir={tiny_beer_dir}",
                                                       "model=fr", "backbone.hidden_size=8", "embeddings.dim=8",
                                                       *extra])))
        return exp.datamodule(0), exp.model()

    data, model = built()
    assert (data.bucket, data.collate.pad_to, model.encoder.recurrence) == (False, 256, "padded")
    data, model = built("layout=packed")
    assert (data.bucket, data.collate.pad_to, model.encoder.recurrence) == (True, None, "within_length")
