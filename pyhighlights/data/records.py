"""Reading a corpus file record by record, with line numbers for errors.

Every loader goes through :func:`parse_lines`, so the rules for bad input are
the same everywhere: a malformed record raises a :class:`CorpusFormatError`
naming the file and 1-based line, or, with ``skip_malformed=True``, is
skipped, counted in ``counts["malformed_skipped"]`` and logged.
"""
from __future__ import annotations

import gzip
import logging
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from pyhighlights.data.errors import CorpusFormatError, MalformedRecord

logger = logging.getLogger(__name__)

Raw = TypeVar("Raw")
Record = TypeVar("Record")


def read_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line of a plain or ``.gz`` file.

    Lines are decoded one at a time so a bad byte is reported with its line.
    The line terminator (``\\n`` or ``\\r\\n``) is removed; nothing else is.
    A damaged ``.gz`` (truncated, bad CRC, not gzip) names the file and the
    last line read intact.
    """
    compressed = path.suffix == ".gz"
    opener = gzip.open if compressed else open
    number = 0
    with opener(path, "rb") as handle:
        lines = iter(handle)
        while True:
            try:
                raw = next(lines)
            except StopIteration:
                return
            except (EOFError, zlib.error, gzip.BadGzipFile) as error:
                raise CorpusFormatError(
                    path, number + 1, f"the gzip file is damaged after line {number} ({error}); "
                    "expected a complete .gz file (download or compress it again)") from None
            number += 1
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise CorpusFormatError(path, number, f"expected UTF-8 text ({error})") from None
            yield number, text.rstrip("\r\n")


def parse_lines(
    path: Path,
    parse: Callable[[Raw], Record],
    counts: dict,
    *,
    skip_malformed: bool,
    raw_records: Iterator[tuple[int, Raw]] | None = None,
) -> Iterator[tuple[int, Record]]:
    """Parse each line of ``path`` with ``parse``; yield ``(line_number, record)``.

    ``parse`` raises :class:`MalformedRecord` with what it expected; this adds
    the file and line. ``counts["records"]`` counts records read,
    ``counts["malformed_skipped"]`` those skipped. ``raw_records`` replaces the
    file's text lines by other numbered raw records (e.g. TSV rows after the
    header), so every format shares one policy for bad input.
    """
    counts.setdefault("records", 0)
    counts.setdefault("malformed_skipped", 0)
    source = raw_records if raw_records is not None else read_lines(path)
    for number, raw in source:
        counts["records"] += 1
        try:
            record = parse(raw)
        except MalformedRecord as problem:
            error = CorpusFormatError(path, number, str(problem))
            if not skip_malformed:
                raise error from None
            counts["malformed_skipped"] += 1
            logger.debug("skipping malformed record: %s", error)
            continue
        yield number, record


def log_skipped(path: Path, counts: dict) -> None:
    """Say once per file how many malformed records were skipped."""
    if counts.get("malformed_skipped"):
        logger.warning(
            "%s: skipped %d malformed record(s) of %d (skip_malformed=True)",
            path, counts["malformed_skipped"], counts["records"],
        )
