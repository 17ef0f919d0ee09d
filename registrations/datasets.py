"""Corpus sources."""
from pyhighlights.data import sources
from pyhighlights.registry import register

register("dataset", "synth_beer", sources.SynthBeerConfig, sources.SynthBeer)
register("dataset", "beer", sources.LeiBeerConfig, sources.LeiBeer)
