"""Registered corpus sources: the ``dataset`` config group.

A source knows where its files are and how to read them; ``load()`` returns a
preprocessed :class:`~pyhighlights.data.batch.Corpus`. ``files()`` lists the
files read, so the run manifest can record their checksums.
"""
from __future__ import annotations

from abc import abstractmethod
from pathlib import Path
from typing import Literal

from pyhighlights.config.resolve import ConfigError
from pyhighlights.data.batch import Corpus
from pyhighlights.registry import Configuration, Param, ParameterHolder, kind


@kind("dataset")
class CorpusSource(ParameterHolder):
    """A corpus: ``load() -> Corpus`` from the files under ``directory()``."""

    @abstractmethod
    def load(self) -> Corpus:
        """The preprocessed corpus."""

    @abstractmethod
    def directory(self) -> Path:
        """The directory its files are read from."""

    def files(self) -> list[Path]:
        return sorted(p for p in self.directory().rglob("*") if p.is_file())


class EnvironmentOptions(Configuration):
    """InvRat's environments for a corpus that has none: a random per-class partition of every split."""

    environments: int = Param(0, ge=0, description="partition every split into this many environments, each "
                                                   "class at random (seed), as InvRat's reference builds them; "
                                                   "0 = none (see pyhighlights/data/environments.py)")
    pollution: list[float] | None = Param(None, description="with environments: per environment, the rate at "
                                                            "which a label-agreeing token is prepended to a "
                                                            "training review (InvRat's IMDB: [0.7, 0.9]); null = "
                                                            "none")

    @classmethod
    def default(cls):
        config = cls()
        config.add_condition(lambda c: c.pollution is None or (len(c.pollution) == c.environments and
                                                               all(0.0 <= p <= 1.0 for p in c.pollution)),
                             name="pollution needs one rate in [0, 1] per environment")
        return config


class BeerCommon(EnvironmentOptions):
    aspect: str | int = Param("appearance", description="appearance|aroma|palate or 0|1|2")
    max_length: int = Param(256, ge=1, description="truncate documents to this many words")
    balance: bool = Param(True, description="balance the training classes by dropping majority examples")
    seed: int = Param(0, ge=0, description="seed of the balancing")
    skip_malformed: bool = Param(False, description="skip (and count) malformed lines instead of failing")
    disagreement_share: float | None = Param(
        None, gt=0.0, lt=1.0, allow_inf_nan=False,
        description="redraw the training reviews (same number, before balancing) so that those in which another "
                    "aspect's polarity is the opposite of the label make this share of them, when fewer do; "
                    "null = as read (see pyhighlights/data/disagreement.py)")
    aspect_environments: bool = Param(
        False, description="each review's environment is the bit mask of the other aspects whose polarity is the "
                           "opposite of the label (16 environments), for the aspect adversary of the rationale "
                           "(see pyhighlights/components/aspect_adversary.py)")

    @classmethod
    def default(cls):
        config = super().default()
        config.add_condition(_known_beer_aspect, name="aspect must be appearance, aroma, palate or 0, 1, 2")
        config.add_condition(lambda c: not (c.aspect_environments and c.environments),
                             name="aspect_environments and environments both set a review's environment; "
                                  "choose one")
        return config


def _with_environments(source, corpus: Corpus) -> Corpus:
    """``corpus`` with the environments a source's ``environments``/``pollution`` ask for."""
    if not source.environments:
        return corpus
    from pyhighlights.data.environments import with_environments

    return with_environments(corpus, source.environments, source.pollution, source.seed)


def _known_beer_aspect(config: BeerCommon) -> bool:
    from pyhighlights.data.beer_lei import resolve_lei_aspect

    try:
        resolve_lei_aspect(config.aspect)
    except ValueError:
        return False
    return True


class LeiBeerConfig(BeerCommon):
    data_dir: str | None = Param(None, description="directory with reviews.aspect*.{train,heldout}.txt[.gz] and annotations.json")
    variant: Literal["decorrelated", "correlated"] = Param(
        "decorrelated", description="decorrelated: reviews.aspect{k}.*; correlated: reviews.260k.* (all aspects)")
    remove_leakage: bool = Param(False, description="drop train/validation reviews whose text is also in a later split "
                                                    "(false: only count them in the manifest)")


class LeiBeer(CorpusSource):
    """BeerAdvocate as released by Lei et al. (2016)."""

    def directory(self) -> Path:
        if not self.data_dir:
            raise ConfigError("dataset.data_dir: required for dataset=beer (a directory of the Lei et al. 2016 "
                              "files: reviews.aspect{0,1,2}.{train,heldout}.txt[.gz] and annotations.json, or "
                              "reviews.260k.{train,heldout}.txt[.gz] with dataset.variant=correlated)")
        return Path(self.data_dir).expanduser()

    def load(self) -> Corpus:
        from pyhighlights.data.beer_lei import load_lei_beer

        return _with_environments(self, load_lei_beer(
            self.directory(), self.aspect, max_length=self.max_length, balance=self.balance, seed=self.seed,
            skip_malformed=self.skip_malformed, remove_leakage=self.remove_leakage, variant=self.variant,
            disagreement_share=self.disagreement_share, aspect_environments=self.aspect_environments))


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
        from pyhighlights.data.beer_lei import load_lei_beer, resolve_lei_aspect
        from pyhighlights.data.synthetic import validation_annotations_name

        # the validation reviews with their highlights (the generator writes them beside the heldout file)
        corpus = load_lei_beer(self.directory(), self.aspect, max_length=self.max_length, balance=self.balance,
                               seed=self.seed, skip_malformed=self.skip_malformed,
                               validation_annotations=validation_annotations_name(resolve_lei_aspect(self.aspect)),
                               disagreement_share=self.disagreement_share,
                               aspect_environments=self.aspect_environments)
        corpus.name = "synth_beer"
        return _with_environments(self, corpus)


# --- corpora read from files the user points to ----------------------------------------------------------


class FileCorpusCommon(Configuration):
    data_dir: str | None = Param(None, description="directory with the corpus files as distributed")
    max_length: int = Param(256, ge=1, description="truncate documents to this many words")
    balance: bool = Param(False, description="balance the training classes by dropping majority examples")
    seed: int = Param(0, ge=0, description="seed of the balancing")
    skip_malformed: bool = Param(False, description="skip (and count) malformed records instead of failing")
    remove_leakage: bool = Param(True, description="drop train/validation documents whose text is also in a "
                                                   "later split (test > validation > train); false: only count them")


class FileCorpus(CorpusSource):
    """A corpus in ``data_dir``; ``files()`` lists only the files read (for the manifest checksums)."""

    corpus_key = ""
    layout = ""

    def directory(self) -> Path:
        if not self.data_dir:
            raise ConfigError(f"dataset.data_dir: required for dataset={self.corpus_key} (a directory with "
                              f"{self.layout}); see data/README.md")
        return Path(self.data_dir).expanduser()

    def files(self) -> list[Path]:
        from pyhighlights.data.corpus_files import require_files

        return sorted(require_files(self.directory(), self.file_names(), "").values())

    def file_names(self) -> dict[str, list[str]]:
        raise NotImplementedError

    def options(self) -> dict:
        return {"max_length": self.max_length, "balance": self.balance, "seed": self.seed,
                "skip_malformed": self.skip_malformed, "remove_leakage": self.remove_leakage}


class HotelConfig(FileCorpusCommon, EnvironmentOptions):
    aspect: str | int = Param("location", description="location|service|cleanliness or 0|1|2")
    truncate_test: bool = Param(True, description="truncate the annotated test reviews to max_length too "
                                                  "(false: score them whole, as the G-RAT reference)")


class Hotel(FileCorpus):
    """Hotel reviews, R2A release (Bao et al. 2018): see :mod:`pyhighlights.data.hotel`."""

    corpus_key = "hotel"
    layout = "hotel_{Aspect}.{train,dev} and annotations/hotel_{Aspect}.train (R2A TSV layout)"

    def aspect_name(self) -> str:
        from pyhighlights.data.hotel import resolve_hotel_aspect

        try:
            return resolve_hotel_aspect(self.aspect)
        except ValueError as error:
            raise ConfigError(f"dataset.aspect: {error}") from None

    def file_names(self):
        from pyhighlights.data.r2a import r2a_file_names

        return r2a_file_names("hotel", self.aspect_name())

    def load(self) -> Corpus:
        from pyhighlights.data.hotel import load_hotel

        return _with_environments(self, load_hotel(self.directory(), self.aspect_name(),
                                                   truncate_test=self.truncate_test, **self.options()))


class BeerR2AConfig(FileCorpusCommon, EnvironmentOptions):
    aspect: str | int = Param("look", description="look|aroma|palate or 0|1|2 (R2A file names)")
    balance: bool = Param(True, description="balance the training classes by dropping majority examples")


class BeerR2A(FileCorpus):
    """BeerAdvocate in the R2A TSV layout (Bao et al. 2018): beer_{Look,Aroma,Palate}.{train,dev}, annotations/."""

    corpus_key = "beer_r2a"
    layout = "beer_{Aspect}.{train,dev} and annotations/beer_{Aspect}.train (R2A TSV layout)"

    def aspect_name(self) -> str:
        from pyhighlights.data.r2a import R2A_ASPECTS, resolve_r2a_aspect

        try:
            name = resolve_r2a_aspect("beer", self.aspect)
        except ValueError as error:
            raise ConfigError(f"dataset.aspect: {error}") from None
        if name not in R2A_ASPECTS["beer"]:
            raise ConfigError(f"dataset.aspect: unknown R2A beer aspect {self.aspect!r}; expected one of "
                              f"{', '.join(a.lower() for a in R2A_ASPECTS['beer'])} or 0-2")
        return name

    def file_names(self):
        from pyhighlights.data.r2a import r2a_file_names

        return r2a_file_names("beer", self.aspect_name())

    def load(self) -> Corpus:
        from pyhighlights.data.r2a import load_r2a

        corpus = load_r2a(self.directory(), "beer", self.aspect_name(), **self.options())
        corpus.name = f"beer_r2a/{self.aspect_name()}"
        return _with_environments(self, corpus)


class MoviesConfig(FileCorpusCommon):
    max_length: int = Param(1024, ge=1, description="truncate reviews to this many words (reported in the log)")
    remove_leakage: bool = Param(False, description="drop train/validation documents whose text is also in a "
                                                    "later split; false: only count them")
    check_evidence_text: bool = Param(True, description="check that each evidence's text matches its token span")


class Movies(FileCorpus):
    """ERASER movie reviews (DeYoung et al. 2020): see :mod:`pyhighlights.data.movies`."""

    corpus_key = "movies"
    layout = "docs/ and {train,val,test}.jsonl (ERASER movies)"

    def file_names(self):
        from pyhighlights.data.movies import MOVIES_SPLIT_FILES

        return {split: [name] for split, name in MOVIES_SPLIT_FILES.items()}

    def files(self) -> list[Path]:
        docs = self.directory() / "docs"
        return super().files() + (sorted(p for p in docs.iterdir() if p.is_file()) if docs.is_dir() else [])

    def load(self) -> Corpus:
        from pyhighlights.data.movies import load_movies

        return load_movies(self.directory(), check_evidence_text=self.check_evidence_text, **self.options())


class HateXplainConfig(FileCorpusCommon):
    pass


class HateXplain(FileCorpus):
    """HateXplain (Mathew et al. 2021), three classes: see :mod:`pyhighlights.data.hatexplain`."""

    corpus_key = "hatexplain"
    layout = "dataset.json and post_id_divisions.json (HateXplain release)"

    def file_names(self):
        return {"dataset": ["dataset.json"], "divisions": ["post_id_divisions.json"]}

    def load(self) -> Corpus:
        from pyhighlights.data.hatexplain import load_hatexplain

        return load_hatexplain(self.directory(), **self.options())
