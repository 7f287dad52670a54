"""JSON Lines: one JSON object per line, one paper per object."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError
from kg.ingest.records import Record, record

__all__ = ["read"]

EXPECTED = "expected one JSON object with an 'abstract' field per line"


def read(path: Path, text: str) -> Iterator[Record]:
    """One record per non-blank line."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno}); "
                "each line of a .jsonl file must be one JSON object"
            ) from exc
        yield record(value, f"{path}:{number}")
