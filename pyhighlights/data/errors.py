"""Errors raised when a corpus on disk is missing or does not match its format.

Both carry enough context (file, line, what was expected) for a user to fix
the file or the path without reading our code.
"""
from __future__ import annotations

from pathlib import Path


class CorpusFormatError(ValueError):
    """A record of a corpus file does not have the documented format."""

    def __init__(self, path: str | Path, line: int | None, expected: str) -> None:
        self.path = Path(path)
        self.line = line
        self.expected = expected
        where = f"{self.path}, line {line}" if line is not None else str(self.path)
        super().__init__(f"{where}: {expected}")


class CorpusNotFoundError(FileNotFoundError):
    """The files a loader needs are not where the user said the corpus is."""

    def __init__(self, data_dir: str | Path, missing: list[str], publication: str) -> None:
        self.data_dir = Path(data_dir)
        self.missing = list(missing)
        self.publication = publication
        listed = "\n".join(f"  - {name}" for name in self.missing)
        super().__init__(
            f"corpus files not found in {self.data_dir}:\n{listed}\n"
            f"{publication} This code does not download corpora: obtain the files "
            f"and place them in {self.data_dir} under the names listed above."
        )


class MalformedRecord(ValueError):
    """Raised by a record parser that only sees the record's text.

    The line reader turns it into a :class:`CorpusFormatError` with the file
    and line number, so parsers stay free of bookkeeping.
    """
