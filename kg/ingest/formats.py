"""The one table of input formats: a suffix, and for shared suffixes a sniffed shape.

A text format's module has ``read(path, text, context)``, yielding records
and skips; a JSON-shaped format's module has ``looks_like(item)`` and
``fields(item, source)`` (kg's fields of one item), since all of them share the ``.json``/``.jsonl``
suffixes and the item-finding of :mod:`kg.ingest.json_items`. For a file,
the formats listed for its suffix are tried in table order: a text format
that lists the suffix as ``sniffed`` reads it only if its ``sniff`` accepts
the text (a ``.txt`` file may be RIS or Web of Science's tab-delimited
export), and a JSON file takes the first format whose ``looks_like`` accepts
its first object. Every module has a
``NAME`` and an ``EXPECTED`` sentence for messages. A new format is one new
module and one line here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from kg.errors import InputError
from kg.ingest import (
    arxiv,
    bibtex,
    csl_json,
    delimited,
    json_items,
    openalex,
    openreview,
    plain,
    ris,
    semantic_scholar,
    wos,
)
from kg.ingest.records import Context, Record, Skip, canonical, record

__all__ = ["Format", "FORMATS", "SUPPORTED_SUFFIXES", "read_file"]

_JSON = (".json", ".jsonl", ".ndjson")


TextReader = Callable[[Path, str, Context], Iterator[Record | Skip]]
Fields = Callable[[Any, str, Context], "dict[str, Any] | Skip"]


@dataclass(frozen=True)
class Format:
    """How to recognise and read one kind of file."""

    name: str
    suffixes: tuple[str, ...]
    expected: str  # what a file of this kind should hold, for messages
    read: TextReader | None = None  # a text format
    sniffed: tuple[str, ...] = ()  # further suffixes, read only if sniff(text) says so
    sniff: Callable[[str], bool] | None = None
    looks_like: Callable[[dict[str, Any]], bool] | None = None  # a JSON shape
    fields: Fields | None = None

    @classmethod
    def text(
        cls, module: ModuleType, suffixes: tuple[str, ...], sniffed: tuple[str, ...] = ()
    ) -> Format:
        sniff = module.sniff if sniffed else None
        return cls(
            module.NAME,
            suffixes + sniffed,
            module.EXPECTED,
            read=module.read,
            sniffed=sniffed,
            sniff=sniff,
        )

    @classmethod
    def json(cls, module: ModuleType) -> Format:
        return cls(
            module.NAME,
            _JSON,
            module.EXPECTED,
            looks_like=module.looks_like,
            fields=lambda item, source, context: module.fields(item, source),
        )


FORMATS: tuple[Format, ...] = (
    Format.text(ris, (".ris",), sniffed=(".txt",)),
    Format.text(wos, (".ciw",), sniffed=(".txt",)),
    Format.text(delimited, (".csv", ".tsv", ".tab"), sniffed=(".txt",)),
    Format.text(plain, (".txt", ".md")),
    Format.text(bibtex, (".bib", ".bibtex")),
    Format.json(openalex),
    Format.json(arxiv),
    Format.json(semantic_scholar),
    Format.json(openreview),
    Format.json(csl_json),
    Format(  # kg's own records and any other objects, by field name; the fallback
        "JSON records",
        _JSON,
        "expected JSON objects with an 'abstract' field",
        looks_like=lambda item: True,
        fields=lambda item, source, context: canonical(item, source, context.columns),
    ),
)
SUPPORTED_SUFFIXES = tuple(dict.fromkeys(s for f in FORMATS for s in f.suffixes))


def read_file(path: Path, text: str, context: Context) -> tuple[Format, list[Record | Skip]]:
    """The file's format and what it holds, in file order."""
    suffix = path.suffix.lower()
    candidates = [f for f in FORMATS if suffix in f.suffixes]
    if suffix in _JSON:
        return _read_json(path, text, context, candidates)
    for fmt in candidates:
        if fmt.read is None:
            continue
        if suffix not in fmt.sniffed or (fmt.sniff is not None and fmt.sniff(text)):
            return fmt, list(fmt.read(path, text, context))
    raise InputError(f"{path}: unsupported file type {suffix!r}")  # pragma: no cover


def _read_json(
    path: Path, text: str, context: Context, formats: list[Format]
) -> tuple[Format, list[Record | Skip]]:
    found = list(json_items.items(path, text))
    first = next((value for _, value in found if isinstance(value, dict)), None)
    if first is None:  # no object to look at: kg's own records say best what was expected
        fmt = formats[-1]
    else:
        fmt = next(f for f in formats if f.looks_like is not None and f.looks_like(first))
    assert fmt.fields is not None
    out: list[Record | Skip] = []
    for source, value in found:
        fields = fmt.fields(value, source, context)
        out.append(fields if isinstance(fields, Skip) else record(fields, source, context))
    return fmt, out
