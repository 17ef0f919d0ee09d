"""What training needs from a corpus, checked before a run claims its directory.

A run on an empty validation split has nothing to select a checkpoint on, and
one on an empty or unannotated test split reports no highlight metrics; both
are refused here, naming the file the split came from and what happened to
its records.
"""
from __future__ import annotations

from pyhighlights.data.batch import Corpus
from pyhighlights.data.errors import CorpusFormatError
from pyhighlights.data.preprocess import split_file

# Counters the loaders record per split for records read but not kept.
_DROPPED = ("malformed_skipped", "middle_band_dropped", "no_rationale_skipped", "no_majority_dropped",
            "leakage_removed", "balance_dropped")


def _what_happened(counts: dict) -> str:
    dropped = ", ".join(f"{name} {counts[name]}" for name in _DROPPED if counts.get(name))
    read = counts.get("records")
    text = f"{read} record(s) read" if read is not None else "no record count"
    return text + (f"; {dropped}" if dropped else "")


def check_trainable(corpus: Corpus) -> None:
    """Raise :class:`CorpusFormatError` for an empty split or a test split without human highlights."""
    counts = corpus.info.get("splits", {})
    for split in ("train", "validation", "test"):
        if not corpus.split(split):
            raise CorpusFormatError(
                split_file(corpus.info, split), None,
                f"the {split} split of {corpus.name} has no documents ({_what_happened(counts.get(split, {}))}); "
                f"expected at least one")
    if all(document.highlights is None for document in corpus.test):
        raise CorpusFormatError(
            split_file(corpus.info, "test"), None,
            f"the test split of {corpus.name} has {len(corpus.test)} document(s) but none with human highlights; "
            "expected an annotated test set (highlight metrics need it)")


def check_shardable(corpus: Corpus, processes: int, batch_size: int) -> None:
    """Refuse more training processes than a split can feed, before the run claims its directory.

    Under DDP every process trains on its own share of the training batches
    (the batches left over are skipped, so all processes take the same number
    of steps) and evaluates its own share of the validation and test documents;
    a process left with nothing would fail mid-run.
    """
    if processes <= 1:
        return
    from pyhighlights.config.resolve import ConfigError

    how = f"trainer.devices x trainer.num_nodes = {processes} processes"
    batches = -(-len(corpus.train) // batch_size)
    if batches < processes:
        raise ConfigError(f"{how}, but the train split of {corpus.name} ({split_file(corpus.info, 'train')}) gives "
                          f"{batches} batch(es) of trainer.batch_size={batch_size}; each process needs at least one: "
                          "use fewer processes or a smaller batch size")
    for split in ("validation", "test"):
        documents = len(corpus.split(split))
        if documents < processes:
            raise ConfigError(f"{how}, but the {split} split of {corpus.name} ({split_file(corpus.info, split)}) has "
                              f"{documents} document(s); each process evaluates its own share and needs at least "
                              "one: use fewer processes")
