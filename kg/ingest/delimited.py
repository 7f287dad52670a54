"""CSV and TSV with a header row: one paper per row, columns found by name.

Reads what spreadsheets and reference managers write: any of ``,`` ``;``
tab or ``|`` as the delimiter (sniffed from the header), a byte-order mark,
quoted fields with line breaks, and the column names of Zotero ("Abstract
Note"), Scopus, Web of Science ("AB"), Dimensions and kg's own; ``--column
abstract=NAME`` names any other. Quotes are checked strictly: a quote that is
never closed is an error naming the line where its row starts, instead of
swallowing every later row into one abstract.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError
from kg.ingest.records import ALIASES, Context, Record, Skip, canonical, field_key, record

__all__ = ["read", "sniff", "EXPECTED", "NAME"]

NAME = "CSV/TSV"
EXPECTED = "expected a header row and one row per paper with an abstract column"
_DELIMITERS = (",", "\t", ";", "|")
#: Most columns a header may have: exports of papers have dozens (Web of Science about 70);
#: a 50 MB line of delimiters took minutes to check, and its names made a 50 MB message.
MAX_COLUMNS = 10_000
#: Column names a message lists.
_SHOWN_COLUMNS = 20


def sniff(text: str) -> bool:
    """Whether a ``.txt`` file is a tab-delimited table (Web of Science's export)."""
    header = text.split("\n", 1)[0]
    if header.count("\t") < 2:
        return False
    names = {field_key(name) for name in header.split("\t", MAX_COLUMNS)}
    return any(alias in names for alias in ALIASES["abstract"])


def read(path: Path, text: str, context: Context) -> Iterator[Record | Skip]:
    """One record per non-empty row; a row must have as many fields as the header."""
    delimiter = _delimiter(path, text)
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1
    try:
        header = next(reader, None)
        if header is None:
            return
        _check_columns(path, header, context)
        start = reader.line_num + 1
        for row in reader:
            if any(cell.strip() for cell in row):
                if len(row) != len(header):
                    raise InputError(
                        f"{path}:{start}: row has {len(row)} fields but the header has "
                        f"{len(header)}; quote fields that contain {_named(delimiter)} or line "
                        "breaks"
                    )
                source = f"{path}:{start}"
                yield record(
                    canonical(dict(zip(header, row, strict=True)), source, context.columns),
                    source,
                    context,
                )
            start = reader.line_num + 1
    except csv.Error as exc:
        if "end of data" in str(exc):
            raise InputError(
                f"{path}:{start}: a quoted field that starts in this row is never closed; "
                'close the quote, or double a quote that belongs in the text ("")'
            ) from exc
        raise InputError(
            f"{path}:{reader.line_num}: malformed {NAME} ({exc}); quote a field that contains "
            'quotes, and double each quote inside it ("")'
        ) from exc


def _delimiter(path: Path, text: str) -> str:
    """The delimiter the header uses most (outside quotes); tab for ``.tsv``."""
    header = re.sub(r'"[^"]*"', "", text.split("\n", 1)[0])
    counts = {d: header.count(d) for d in _DELIMITERS}
    best = max(counts.values())
    if best == 0:
        return "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    if path.suffix.lower() in (".tsv", ".tab") and counts["\t"] == best:
        return "\t"
    return next(d for d in _DELIMITERS if counts[d] == best)


def _check_columns(path: Path, header: list[str], context: Context) -> None:
    if len(header) > MAX_COLUMNS:
        raise InputError(
            f"{path}:1: the header row has {len(header):,} columns, more than the "
            f"{MAX_COLUMNS:,} kg reads; a table of papers has a column per field (title, "
            "abstract, ...), so check that this file is one"
        )
    names = {field_key(name) for name in header}
    found = ", ".join(header[:_SHOWN_COLUMNS]) or "none"
    if len(header) > _SHOWN_COLUMNS:
        found += f", … ({len(header):,} columns)"
    for name, column in context.columns.items():
        if field_key(column) not in names:
            raise InputError(
                f"{path}:1: no column {column!r} for --column {name}={column} (found: {found})"
            )
    if "abstract" not in context.columns and not any(a in names for a in ALIASES["abstract"]):
        raise InputError(
            f"{path}:1: no abstract column (found: {found}); name it one of "
            f"{', '.join(ALIASES['abstract'])}, or pick it with --column abstract=NAME"
        )


def _named(delimiter: str) -> str:
    return {"\t": "tabs", ",": "commas", ";": "semicolons", "|": "'|'"}[delimiter]
