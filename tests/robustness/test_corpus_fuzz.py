"""Property: a damaged corpus file loads correctly or fails naming the file, never anything else.

Random corruptions of valid fixtures, one format per test: truncation, lines
deleted or duplicated, fields deleted, quotes and stray bytes inserted,
numbers replaced by NaN/inf/out-of-range values, invalid UTF-8, empty files,
gzip compression with and without damage. A load that succeeds must account
for every record of the damaged file: each one read is either kept or counted
under a reason (malformed, middle band, no rationale, no majority, leakage,
balancing). Derandomized with a fixed number of examples, so CI runs the same
cases every time.
"""
from __future__ import annotations

import gzip
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyhighlights.data.beer_lei import load_lei_beer
from pyhighlights.data.errors import CorpusFormatError, CorpusNotFoundError
from pyhighlights.data.hatexplain import load_hatexplain
from pyhighlights.data.hotel import load_hotel
from pyhighlights.data.movies import load_movies
from pyhighlights.data.synthetic import write_synthetic_beer

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DROPPED = ("malformed_skipped", "middle_band_dropped", "no_rationale_skipped", "no_majority_dropped",
           "leakage_removed", "balance_dropped")
FUZZ = settings(max_examples=30, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

INSERTS = [b'"', b"'", b"\t", b"\n", b" ", b"\xff\xfe", b"\xc3", b"\x00", b"nan", b"inf", b"-1", b"1e309", b"{",
           b"]", b",", b"99999", b'"x": [0, 99999]']
NUMBERS = [b"nan", b"NaN", b"inf", b"-inf", b"-1", b"1e309", b"99999", b"0", b"1.5", b'"x"', b"null", b""]
NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")

position = st.integers(min_value=0, max_value=10**6)
mutation = st.one_of(
    st.tuples(st.just("truncate"), position),
    st.tuples(st.just("delete_line"), position),
    st.tuples(st.just("duplicate_line"), position),
    st.tuples(st.just("delete_field"), position, position),
    st.tuples(st.just("insert"), position, st.sampled_from(INSERTS)),
    st.tuples(st.just("quote_field"), position, position),
    st.tuples(st.just("replace_number"), position, st.sampled_from(NUMBERS)),
    st.tuples(st.just("empty")),
)
damage = st.one_of(st.none(), st.tuples(st.sampled_from(["plain", "truncate", "flip"]), position))


def mutate(data: bytes, step: tuple) -> bytes:
    kind, *args = step
    lines = data.split(b"\n")
    if kind == "truncate":
        return data[: args[0] % (len(data) + 1)]
    if kind == "delete_line":
        del lines[args[0] % len(lines)]
        return b"\n".join(lines)
    if kind == "duplicate_line":
        i = args[0] % len(lines)
        return b"\n".join(lines[: i + 1] + lines[i:])
    if kind in ("delete_field", "quote_field"):
        i = args[0] % len(lines)
        sep = b"\t" if b"\t" in lines[i] else b" "
        fields = lines[i].split(sep)
        j = args[1] % len(fields)
        if kind == "delete_field":
            del fields[j]
        else:  # a field that starts with a quote (a tokenised review often does)
            fields[j] = b'"' + fields[j]
        lines[i] = sep.join(fields)
        return b"\n".join(lines)
    if kind == "insert":
        at = args[0] % (len(data) + 1)
        return data[:at] + args[1] + data[at:]
    if kind == "replace_number":
        found = list(NUMBER.finditer(data))
        if not found:
            return data
        match = found[args[0] % len(found)]
        return data[: match.start()] + args[1] + data[match.end():]
    return b""  # empty


def compress(data: bytes, how: tuple) -> bytes:
    packed = gzip.compress(data, mtime=0)
    kind, at = how
    if kind == "truncate":
        return packed[: at % len(packed)]
    if kind == "flip":
        at %= len(packed)
        return packed[:at] + bytes([packed[at] ^ 0x5A]) + packed[at + 1:]
    return packed


def line_count(data: bytes, skip_blank: bool) -> int:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if skip_blank:
        lines = [line for line in lines if line.decode("utf-8").strip()]
    return len(lines)


def check(load, root: Path, target: str, split: str | None, steps, gz, *, header: int = 0,
          skip_blank: bool = False) -> None:
    """Damage ``root/target`` with ``steps`` (then gzip it per ``gz``), load, and check the property."""
    path = root / target
    data = path.read_bytes()
    for step in steps:
        data = mutate(data, step)
    if gz is not None:
        path.unlink()
        path = path.with_name(path.name + ".gz")
        path.write_bytes(compress(data, gz))
    else:
        path.write_bytes(data)
    try:
        corpus = load(root)
    except (CorpusFormatError, CorpusNotFoundError) as error:
        message = str(error)
        assert path.name in message or (isinstance(error, CorpusFormatError) and error.path.parent == root), message
        assert "\n" not in message or isinstance(error, CorpusNotFoundError)
        return
    for name, counts in corpus.info["splits"].items():
        kept = len(corpus.split(name))
        assert counts["kept"] == kept
        assert counts["records"] == kept + sum(counts.get(reason, 0) for reason in DROPPED), (name, counts)
    if split is not None:  # every line of the damaged file was read as a record
        assert corpus.info["splits"][split]["records"] == line_count(data, skip_blank) - header


@pytest.fixture(scope="module")
def small_beer(tmp_path_factory):
    return write_synthetic_beer(tmp_path_factory.mktemp("fuzz_beer"), seed=1, n_train=40, n_heldout=12, n_test=12,
                                min_length=20, max_length=30)


def copy(source: Path) -> Path:
    root = Path(tempfile.mkdtemp(prefix="fuzz-"))
    shutil.copytree(source, root / "data")
    return root / "data"


@pytest.mark.parametrize("target, split", [("reviews.aspect0.train.txt", "train"), ("annotations.json", "test")])
@FUZZ
@given(steps=st.lists(mutation, min_size=1, max_size=3), gz=damage, skip=st.booleans())
def test_lei_beer(small_beer, target, split, steps, gz, skip):
    root = copy(small_beer)
    try:
        check(lambda r: load_lei_beer(r, 0, skip_malformed=skip), root, target, split, steps, gz)
    finally:
        shutil.rmtree(root.parent)


@pytest.mark.parametrize("target, split", [("hotel_Location.train", "train"),
                                           ("annotations/hotel_Location.train", "test")])
@FUZZ
@given(steps=st.lists(mutation, min_size=1, max_size=3), gz=damage, skip=st.booleans())
def test_r2a_tsv(target, split, steps, gz, skip):
    root = copy(FIXTURES / "hotel")
    try:
        check(lambda r: load_hotel(r, "location", skip_malformed=skip), root, target, split, steps, gz, header=1)
    finally:
        shutil.rmtree(root.parent)


@pytest.mark.parametrize("target, split", [("train.jsonl", "train"), ("test.jsonl", "test")])
@FUZZ
@given(steps=st.lists(mutation, min_size=1, max_size=3), gz=damage, skip=st.booleans())
def test_eraser_movies(target, split, steps, gz, skip):
    root = copy(FIXTURES / "movies")
    try:
        check(lambda r: load_movies(r, skip_malformed=skip), root, target, split, steps, gz, skip_blank=True)
    finally:
        shutil.rmtree(root.parent)


@pytest.mark.parametrize("target", ["dataset.json", "post_id_divisions.json"])
@FUZZ
@given(steps=st.lists(mutation, min_size=1, max_size=3), gz=damage, skip=st.booleans())
def test_hatexplain(target, steps, gz, skip):
    root = copy(FIXTURES / "hatexplain")
    try:
        check(lambda r: load_hatexplain(r, skip_malformed=skip), root, target, None, steps, gz)
    finally:
        shutil.rmtree(root.parent)

