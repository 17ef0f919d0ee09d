"""Registered corpus sources: the ``dataset`` config group.

A source knows where its files are and how to read them; ``load()`` returns a
preprocessed :class:`~pyhighlights.data.batch.Corpus`. ``files()`` lists the
files read, so the run manifest can record their checksums.
"""
from __future__ import annotations

from pathlib import Path

from pyhighlights.data.batch import Corpus
from pyhighlights.registry import Configuration, Param


class CorpusSource:
    def __init__(self, **values):
        self.values = values
        for name, value in values.items():
            setattr(self, name, value)

    def load(self) -> Corpus:
        raise NotImplementedError

    def directory(self) -> Path:
        raise NotImplementedError

    def files(self) -> list[Path]:
        return sorted(p for p in self.directory().rglob("*") if p.is_file())


class BeerCommon(Configuration):
    aspect: str = Param("appearance", description="appearance|aroma|palate or 0|1|2")
    max_length: int = Param(256, ge=1, description="truncate documents to this many words")
    balance: bool = Param(True, description="balance the training classes by dropping majority examples")
    seed: int = Param(0, ge=0, description="seed of the balancing")
    skip_malformed: bool = Param(False, description="skip (and count) malformed lines instead of failing")


class LeiBeerConfig(BeerCommon):
    data_dir: str | None = Param(None, description="directory with reviews.aspect*.{train,heldout}.txt[.gz] and annotations.json")


class LeiBeer(CorpusSource):
    """BeerAdvocate as released by Lei et al. (2016)."""

    def directory(self) -> Path:
        if not self.data_dir:
            raise ValueError("dataset.data_dir: required for dataset=beer (a directory of the Lei et al. 2016 "
                             "files: reviews.aspect{0,1,2}.{train,heldout}.txt[.gz] and annotations.json)")
        return Path(self.data_dir).expanduser()

    def load(self) -> Corpus:
        from pyhighlights.data.beer_lei import load_lei_beer

        return load_lei_beer(self.directory(), self.aspect, max_length=self.max_length, balance=self.balance,
                             seed=self.seed, skip_malformed=self.skip_malformed)


class SynthBeerConfig(BeerCommon):
    generator_seed: int = Param(0, ge=0, description="seed of the synthetic corpus generator")
    correlation: float = Param(0.0, ge=0.0, le=1.0, allow_inf_nan=False,
                               description="probability that other aspects copy the first aspect's polarity")
    n_train: int = Param(3000, ge=2)
    n_heldout: int = Param(500, ge=2)
    n_test: int = Param(500, ge=2)


class SynthBeer(CorpusSource):
    """The embedded default corpus: synthetic reviews in the Lei et al. Beer format."""

    def directory(self) -> Path:
        from pyhighlights.data.synthetic import synthetic_beer_dir

        return synthetic_beer_dir(seed=self.generator_seed, n_train=self.n_train, n_heldout=self.n_heldout,
                                  n_test=self.n_test, correlation=self.correlation)

    def load(self) -> Corpus:
        from pyhighlights.data.beer_lei import load_lei_beer

        corpus = load_lei_beer(self.directory(), self.aspect, max_length=self.max_length, balance=self.balance,
                               seed=self.seed, skip_malformed=self.skip_malformed)
        corpus.name = "synth_beer"
        return corpus
