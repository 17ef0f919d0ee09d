"""Finding a corpus's files on disk, plain or gzip-compressed."""
from __future__ import annotations

from pathlib import Path

from pyhighlights.data.errors import CorpusNotFoundError


def find_plain_or_gz(data_dir: Path, name: str) -> Path | None:
    """``data_dir/name`` if it exists, else ``data_dir/name.gz``, else None.

    The plain file wins when both exist: it is what a user who unpacked the
    archive is looking at.
    """
    for candidate in (data_dir / name, data_dir / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    return None


def require_files(
    data_dir: str | Path, names: dict[str, list[str]], publication: str
) -> dict[str, Path]:
    """Locate every file a loader needs, or fail listing all that are missing.

    ``names`` maps a role (e.g. ``"train"``) to the relative names accepted for
    it, in order of preference; each may also be gzip-compressed. Checking all
    files before reading any means one error tells the user everything to fix.
    """
    data_dir = Path(data_dir)
    found: dict[str, Path] = {}
    missing: list[str] = []
    for role, alternatives in names.items():
        path = None
        if data_dir.is_dir():
            path = next(
                (p for p in (find_plain_or_gz(data_dir, n) for n in alternatives) if p), None
            )
        if path is None:
            missing.append(" or ".join(f"{n} (or {n}.gz)" for n in alternatives))
        else:
            found[role] = path
    if missing:
        if not data_dir.is_dir():
            missing.insert(0, f"(the directory {data_dir} itself does not exist)")
        raise CorpusNotFoundError(data_dir, missing, publication)
    return found
