"""JSON documents: a list of paper objects, or an object with a "papers" list."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError
from kg.ingest.records import Record, record

__all__ = ["read"]

EXPECTED = "expected a list of objects with an 'abstract' field, or {\"papers\": [...]}"


def read(path: Path, text: str) -> Iterator[Record]:
    """One record per item of the papers list, each located by its line."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno}); {EXPECTED}"
        ) from exc
    items = document
    key = None
    if isinstance(document, dict):
        key = next((k for k in document if k.casefold() == "papers"), None)
        if key is None:
            keys = ", ".join(map(str, document)) or "none"
            raise InputError(f"{path}: JSON object has no 'papers' list (keys: {keys}); {EXPECTED}")
        items = document[key]
    if not isinstance(items, list):
        raise InputError(f"{path}: found JSON {type(items).__name__}; {EXPECTED}")
    lines = _item_lines(text, key, len(items))
    for index, value in enumerate(items):
        yield record(value, f"{path}:{lines[index]}")


def _item_lines(text: str, key: str | None, count: int) -> list[int]:
    """Line on which each paper of a validated JSON document starts.

    Walks the document with ``raw_decode`` so that messages can point at a
    record's line. The papers are the document itself or, with ``key``, the
    value of that top-level key (the last one if repeated, as in ``json.loads``).
    """
    decoder = json.JSONDecoder()
    pos = _skip_space(text, 0)
    if key is not None:
        papers = pos
        pos = _skip_space(text, pos + 1)  # past "{"
        while text[pos] != "}":
            name, pos = decoder.raw_decode(text, pos)
            pos = _skip_space(text, _skip_space(text, pos) + 1)  # past ":"
            if name == key:
                papers = pos
            pos = _skip_space(text, decoder.raw_decode(text, pos)[1])
            pos = _skip_space(text, pos + 1) if text[pos] == "," else pos
        pos = papers
    starts: list[int] = []
    line, counted = 1, 0
    pos = _skip_space(text, pos + 1)  # past "["
    for _ in range(count):
        line += text.count("\n", counted, pos)
        counted = pos
        starts.append(line)
        pos = _skip_space(text, decoder.raw_decode(text, pos)[1])
        pos = _skip_space(text, pos + 1)  # past "," or "]"
    return starts


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos
