"""Corpus sources."""
from pyhighlights.data import sources
from pyhighlights.registry import register

register("dataset", "synth_beer", sources.SynthBeerConfig, sources.SynthBeer)
register("dataset", "beer", sources.LeiBeerConfig, sources.LeiBeer)
register("dataset", "hotel", sources.HotelConfig, sources.Hotel)
register("dataset", "beer_r2a", sources.BeerR2AConfig, sources.BeerR2A)
register("dataset", "movies", sources.MoviesConfig, sources.Movies)
register("dataset", "hatexplain", sources.HateXplainConfig, sources.HateXplain)
