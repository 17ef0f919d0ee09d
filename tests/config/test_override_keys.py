"""The check of field overrides before Hydra runs: a missing field is named with its part's fields; every
override Hydra accepts passes."""
from __future__ import annotations

import pytest

from pyhighlights.config.errors import ConfigError
from pyhighlights.config.override_keys import check_override_keys


@pytest.mark.parametrize("arguments", [
    ["model=grat", "model/guider=additive", "model.guider.attention_size=3", "model.lr=0.1"],
    ["trainer.gradient_clip_val=1.0", "trainer.max_epochs=2"],  # the trainer takes any Lightning argument
    ["+model.extra=1", "model.extra=2"],  # added first, then changed
    ["callbacks=[lr_monitor,timer]", "callbacks.timer.duration=00:02:00:00"],
    ["-m", "seed=0,1,2", "model.lr=0.1,0.2"],
    ["hydra.run.dir=/tmp/somewhere", "hydra/launcher=local", "seeds=[0,1]"],
    ["model=grat", "dataset=beer", "dataset.aspect=aroma", "model.pretrain_epochs=4"],  # values interpolated
    ["--cfg", "job", "experiment=quick_fr", "model.lr=0.1"],
])
def test_overrides_hydra_accepts_pass(arguments):
    check_override_keys(arguments)


@pytest.mark.parametrize("arguments, message", [
    (["model.selector.temprature=0.5"], "model.selector.temprature: unknown field of selector 'gumbel'; "
                                        "fields: dropout, evaluation, temperature; did you mean temperature?"),
    (["model=grat", "model/guider=additive", "model.guider.hiden=3"],
     "model.guider.hiden: unknown field of guider 'additive'; fields: attention_size, dropout, noise_sigma"),
    (["-m", "seed=0,1", "model.lr=1,2", "model.selector.tmp=1,2"], "model.selector.tmp: unknown field"),
    (["model.losses.sparsity.wieght=2"], "did you mean weight?"),
    (["--cfg", "job", "seds=1"], "seds: unknown field of the config; fields: backbone, "),
])
def test_a_missing_field_is_refused_with_the_valid_names(arguments, message):
    with pytest.raises(ConfigError) as refused:
        check_override_keys(arguments)
    assert message in str(refused.value)


def test_a_sweep_over_models_is_left_to_hydra():
    check_override_keys(["-m", "model=rnp,grat", "model.guider.noise_sigma=0.5"])  # grat's field only
