"""Compositions share Hydra's ConfigStore instead of deep-copying it, and see exactly what it holds."""
import copy

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from pyhighlights.config.compose import compose_config
from pyhighlights.config.store_copy import share_store_on_copy


def test_a_deep_copy_of_the_store_is_the_store():
    share_store_on_copy()
    store = ConfigStore.instance()
    assert copy.deepcopy(store) is store
    assert copy.deepcopy({"store": store})["store"] is store


def test_an_entry_stored_between_compositions_is_composed_and_a_composition_leaves_the_store_as_it_was():
    compose_config(["dataset=beer"])  # the store shared from here on
    store = ConfigStore.instance()
    store.store(group="trainer", name="store_copy_probe", node={"max_epochs": 7, "batch_size": 3})
    try:
        cfg = compose_config(["dataset=beer", "trainer=store_copy_probe", "trainer.max_epochs=9"])
        assert (cfg.trainer.max_epochs, cfg.trainer.batch_size) == (9, 3)
        # The override changed the composed copy, never the stored entry.
        assert OmegaConf.to_container(store.load("trainer/store_copy_probe.yaml").node) == \
            {"max_epochs": 7, "batch_size": 3}
        assert compose_config(["dataset=beer", "trainer=store_copy_probe"]).trainer.max_epochs == 7
    finally:
        del store.repo["trainer"]["store_copy_probe.yaml"]
