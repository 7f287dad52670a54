"""Read paper abstracts from files into :class:`~kg.model.Paper` records.

Supported inputs (one reader module each, listed in :mod:`kg.ingest.formats`)
are plain-text lists (``.txt``/``.md``: one abstract per paragraph, optionally
headed by a collection title such as "NeurIPS 2026 Papers"), JSON Lines, JSON
and CSV records. Every problem is an :class:`~kg.errors.InputError` that names
the file and line; nothing is skipped silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kg.errors import InputError
from kg.ingest.files import file_text, input_files
from kg.ingest.formats import FORMATS, SUPPORTED_SUFFIXES
from kg.ingest.papers import paper_id, papers
from kg.ingest.records import Record
from kg.model import Paper

__all__ = ["read_papers", "paper_id", "SUPPORTED_SUFFIXES"]


def read_papers(paths: Sequence[str | Path]) -> list[Paper]:
    """Read every paper in ``paths``, in input order, without duplicates.

    Args:
        paths: Files, or directories whose supported files are read in name
            order (hidden files, READMEs and other suffixes are ignored).

    Returns:
        One :class:`Paper` per distinct abstract (same :func:`~kg.text.normalise`
        key); a later copy only fills metadata the first one lacks.

    Raises:
        InputError: A path is missing, unreadable or malformed, a record has
            no abstract, or two different abstracts share an id.
    """
    if not paths:
        raise InputError("no input given; pass one or more files or directories of abstracts")
    records = [r for path in input_files(paths, SUPPORTED_SUFFIXES) for r in _file_records(path)]
    return papers(records)


def _file_records(path: Path) -> list[Record]:
    fmt = FORMATS[path.suffix.lower()]
    records = list(fmt.read(path, file_text(path)))
    if not records:
        raise InputError(f"{path}: no papers found; {fmt.expected}")
    return records
