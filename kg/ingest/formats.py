"""The one table of input formats: file suffix -> reader module.

A reader module has ``read(path, text) -> Iterator[Record]`` and an
``EXPECTED`` sentence for messages; a new format is one new module and one
line here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from kg.ingest import delimited, json_doc, jsonl, plain
from kg.ingest.records import Record

__all__ = ["Format", "FORMATS", "SUPPORTED_SUFFIXES"]


@dataclass(frozen=True)
class Format:
    """How to read one kind of file."""

    read: Callable[[Path, str], Iterator[Record]]
    expected: str  # what a file of this kind should hold, for messages

    @classmethod
    def of(cls, module: ModuleType) -> Format:
        return cls(module.read, module.EXPECTED)


FORMATS: dict[str, Format] = {
    ".txt": Format.of(plain),
    ".md": Format.of(plain),
    ".jsonl": Format.of(jsonl),
    ".json": Format.of(json_doc),
    ".csv": Format.of(delimited),
}
SUPPORTED_SUFFIXES = tuple(FORMATS)
