"""key=value arguments of the evaluation scripts."""
import pytest

from pyhighlights.evaluation.overrides import ArgumentError, parse_overrides, section


def test_values_are_yaml_scalars_and_sections_nest():
    args = parse_overrides(["split=val", "overwrite=true", "rate=0.15", "dataset=beer", "dataset.aspect=1",
                            "method.n_steps=8", "tag=null"], ["split", "overwrite", "rate", "dataset", "method", "tag"])
    assert args == {"split": "val", "overwrite": True, "rate": 0.15, "dataset": "beer", "dataset.aspect": 1,
                    "method.n_steps": 8, "tag": None}
    assert section(args, "dataset") == {"name": "beer", "aspect": 1}
    assert section(args, "method") == {"n_steps": 8}
    assert section({"a.b.c": 1}, "a") == {"b": {"c": 1}}


@pytest.mark.parametrize("argument, message", [
    ("split", "expected key=value"), ("colour=red", "colour: unknown argument"), ("=3", "expected key=value"),
])
def test_mistakes_are_named(argument, message):
    with pytest.raises(ArgumentError, match=message):
        parse_overrides([argument], ["split"])
    with pytest.raises(ArgumentError, match="given twice"):
        parse_overrides(["split=a", "split=b"], ["split"])
