"""CSV files with a header row: one paper per row, columns named as in JSON records."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError
from kg.ingest.records import ALIASES, Record, record

__all__ = ["read"]

EXPECTED = "expected a header row and one row per paper with an 'abstract' column"


def read(path: Path, text: str) -> Iterator[Record]:
    """One record per non-empty row; a row must have as many fields as the header."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            return
        columns = {name.strip().casefold(): index for index, name in enumerate(header)}
        if not any(name in columns for name in ALIASES["abstract"]):
            raise InputError(
                f"{path}:1: no abstract column (found: {', '.join(header) or 'none'}); "
                f"name the column one of: {', '.join(ALIASES['abstract'])}"
            )
        line = reader.line_num + 1
        for row in reader:
            if any(cell.strip() for cell in row):
                if len(row) != len(header):
                    raise InputError(
                        f"{path}:{line}: row has {len(row)} fields but the header has "
                        f"{len(header)}; quote fields that contain commas or line breaks"
                    )
                yield record(dict(zip(header, row, strict=True)), f"{path}:{line}")
            line = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}: malformed CSV ({exc})") from exc
