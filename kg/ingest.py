"""Read paper abstracts from files into :class:`~kg.model.Paper` records.

Supported inputs are plain-text lists (``.txt``/``.md``: one abstract per
paragraph, optionally headed by a collection title such as "NeurIPS 2026
Papers"), JSON Lines, JSON and CSV records. Every problem is an
:class:`~kg.errors.InputError` that names the file and line; nothing is
skipped silently.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kg.errors import InputError
from kg.model import Paper
from kg.text import clean, normalise

__all__ = ["read_papers", "paper_id", "SUPPORTED_SUFFIXES"]

SUPPORTED_SUFFIXES = (".txt", ".md", ".jsonl", ".json", ".csv")

# Accepted field names, most specific first; matched case-insensitively.
_FIELDS = {
    "id": ("id", "paper_id", "paperid", "doc_key", "doc_id", "docid", "uid"),
    "title": ("title", "paper_title"),
    "abstract": ("abstract", "summary", "text", "abstract_text", "paper_abstract", "content"),
    "authors": ("authors", "author", "author_names", "creators"),
    "year": ("year", "pub_year", "publication_year", "published_year"),
    "venue": ("venue", "conference", "journal", "booktitle", "venue_name"),
    "keywords": ("keywords", "keyword", "tags", "key_words"),
}
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


@dataclass(frozen=True)
class _Record:
    """One paper as found in a file, before ids and duplicates are settled."""

    abstract: str
    source: str
    id: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    keywords: tuple[str, ...] = ()


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
    records = [record for path in _input_files(paths) for record in _file_records(path)]
    return _papers(records)


def paper_id(abstract: str, given: str | None = None) -> str:
    """Return the IRI-safe id of a paper.

    The record's own id with every run of characters outside ``[A-Za-z0-9._-]``
    replaced by ``-``; without one, ``p-`` and a hash of the normalised abstract,
    so re-wrapped copies of an abstract get the same id.

    Examples:
        >>> paper_id("ignored", "10.1145/3292500 v2")
        '10.1145-3292500-v2'
        >>> paper_id("Deep  learning.") == paper_id("deep learning")
        True
    """
    if given is not None:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "-", given).strip("-")
        if safe.strip("."):
            return safe
        return "p-" + hashlib.sha256(given.encode()).hexdigest()[:12]
    return "p-" + hashlib.sha256(normalise(abstract).encode()).hexdigest()[:12]


# --- files -----------------------------------------------------------------


def _input_files(paths: Sequence[str | Path]) -> Iterator[Path]:
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(
                child
                for child in path.iterdir()
                if child.is_file()
                and not child.name.startswith(".")
                and not child.stem.casefold().startswith("readme")
                and child.suffix.lower() in SUPPORTED_SUFFIXES
            )
            if not files:
                raise InputError(
                    f"{path}: directory has no input files; expected files ending in "
                    f"{', '.join(SUPPORTED_SUFFIXES)}"
                )
            yield from files
        elif path.exists():
            if path.suffix.lower() not in SUPPORTED_SUFFIXES:
                raise InputError(
                    f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; "
                    f"use one of {', '.join(SUPPORTED_SUFFIXES)}"
                )
            yield path
        else:
            raise InputError(f"{path}: no such file or directory; check the path")


def _file_records(path: Path) -> list[_Record]:
    text = _file_text(path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        records = list(_jsonl_records(path, text))
    elif suffix == ".json":
        records = list(_json_records(path, text))
    elif suffix == ".csv":
        records = list(_csv_records(path, text))
    else:
        records = list(_plain_records(path, text))
    if not records:
        raise InputError(f"{path}: no papers found; {_EXPECTED[suffix]}")
    return records


_EXPECTED = {
    ".txt": "expected abstracts as paragraphs separated by blank lines",
    ".md": "expected abstracts as paragraphs separated by blank lines",
    ".jsonl": "expected one JSON object with an 'abstract' field per line",
    ".json": "expected a list of objects with an 'abstract' field, or {\"papers\": [...]}",
    ".csv": "expected a header row and one row per paper with an 'abstract' column",
}


def _file_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read file ({exc.strerror}); check permissions") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{path}:{line}: not valid UTF-8 (byte {data[exc.start]:#04x}); kg reads UTF-8, "
            "so re-save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)"
        ) from exc


# --- plain-text lists ------------------------------------------------------


def _plain_records(path: Path, text: str) -> Iterator[_Record]:
    venue: str | None = None
    year: int | None = None
    is_markdown = path.suffix.lower() == ".md"
    for index, (line, lines) in enumerate(_paragraphs(text)):
        heading = (
            _collection(lines) if index == 0 or (is_markdown and lines[0].startswith("#")) else None
        )
        if heading is not None:
            venue, year = heading
            continue
        yield _Record(abstract=" ".join(lines), source=f"{path}:{line}", venue=venue, year=year)


def _paragraphs(text: str) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(first line number, stripped lines)`` of each blank-line-separated paragraph."""
    lines: list[str] = []
    start = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        if raw.strip():
            if not lines:
                start = number
            lines.append(raw.strip())
        elif lines:
            yield start, lines
            lines = []
    if lines:
        yield start, lines


def _collection(lines: list[str]) -> tuple[str | None, int | None] | None:
    """Venue and year named by a title line such as "NeurIPS 2026 Papers", else None.

    A title is one short line without a sentence-ending period; an abstract
    never looks like that.
    """
    line = lines[0].lstrip("#").strip()
    if len(lines) > 1 or len(line) > 120 or len(line.split()) >= 12 or line.endswith((".", "。")):
        return None
    match = _YEAR.search(line)
    if match is None:
        return None, None
    venue = line[: match.start()].strip(" -–—,:;|()[]")
    return venue or None, int(match.group(1))


# --- structured records ----------------------------------------------------


def _jsonl_records(path: Path, text: str) -> Iterator[_Record]:
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
        yield _record(value, f"{path}:{number}")


def _json_records(path: Path, text: str) -> Iterator[_Record]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno}); "
            f"{_EXPECTED['.json']}"
        ) from exc
    items = document
    key = None
    if isinstance(document, dict):
        key = next((k for k in document if k.casefold() == "papers"), None)
        if key is None:
            keys = ", ".join(map(str, document)) or "none"
            raise InputError(
                f"{path}: JSON object has no 'papers' list (keys: {keys}); {_EXPECTED['.json']}"
            )
        items = document[key]
    if not isinstance(items, list):
        raise InputError(f"{path}: found JSON {type(items).__name__}; {_EXPECTED['.json']}")
    lines = _item_lines(text, key, len(items))
    for index, value in enumerate(items):
        yield _record(value, f"{path}:{lines[index]}")


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


def _csv_records(path: Path, text: str) -> Iterator[_Record]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            return
        columns = {name.strip().casefold(): index for index, name in enumerate(header)}
        if not any(name in columns for name in _FIELDS["abstract"]):
            raise InputError(
                f"{path}:1: no abstract column (found: {', '.join(header) or 'none'}); "
                f"name the column one of: {', '.join(_FIELDS['abstract'])}"
            )
        line = reader.line_num + 1
        for row in reader:
            if any(cell.strip() for cell in row):
                if len(row) != len(header):
                    raise InputError(
                        f"{path}:{line}: row has {len(row)} fields but the header has "
                        f"{len(header)}; quote fields that contain commas or line breaks"
                    )
                yield _record(dict(zip(header, row, strict=True)), f"{path}:{line}")
            line = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}: malformed CSV ({exc})") from exc


def _record(value: Any, source: str) -> _Record:
    """Turn one parsed JSON object or CSV row into a record, checking its fields."""
    if not isinstance(value, dict):
        raise InputError(
            f"{source}: expected a JSON object for a paper, found {type(value).__name__}"
        )
    fields = {str(key).strip().casefold(): item for key, item in value.items()}

    def field(name: str) -> Any:
        for alias in _FIELDS[name]:
            if fields.get(alias) not in (None, ""):
                return fields[alias]
        return None

    abstract = field("abstract")
    if not isinstance(abstract, str) or not abstract.strip():
        if isinstance(abstract, str) or any(alias in fields for alias in _FIELDS["abstract"]):
            found = "an empty abstract"
        else:
            found = (
                "no abstract"
                if abstract is None
                else f"an abstract of type {type(abstract).__name__}"
            )
        raise InputError(
            f"{source}: record has {found}; give the abstract text in a field named one of: "
            f"{', '.join(_FIELDS['abstract'])}"
        )
    raw_id = field("id")
    return _Record(
        abstract=abstract.strip(),
        source=source,
        id=None if raw_id is None else _scalar(raw_id, "id", source),
        title=_optional_scalar(field("title"), "title", source),
        authors=_names(field("authors"), "authors", source),
        year=_year(field("year"), source),
        venue=_optional_scalar(field("venue"), "venue", source),
        keywords=_names(field("keywords"), "keywords", source),
    )


def _scalar(value: Any, name: str, source: str) -> str:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value).strip()
    raise InputError(f"{source}: field '{name}' must be text, found {type(value).__name__}")


def _optional_scalar(value: Any, name: str, source: str) -> str | None:
    return None if value is None else (_scalar(value, name, source) or None)


def _names(value: Any, name: str, source: str) -> tuple[str, ...]:
    """Authors or keywords from a list, or from a string split on ";", " and " or ","."""
    if value is None:
        return ()
    parts: list[Any]
    if isinstance(value, str):
        if ";" in value:
            parts = value.split(";")
        elif name == "authors":
            parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", value)
        else:
            parts = value.split(",")
    elif isinstance(value, list):
        parts = [item.get("name") if isinstance(item, dict) else item for item in value]
        if not all(isinstance(part, str) for part in parts):
            raise InputError(f"{source}: field '{name}' must be a list of strings")
    else:
        raise InputError(
            f"{source}: field '{name}' must be a list or a ';'-separated string, "
            f"found {type(value).__name__}"
        )
    return tuple(part.strip() for part in parts if part.strip())


def _year(value: Any, source: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
    elif isinstance(value, str):
        text = value.strip().removesuffix(".0")
    else:
        text = ""
    if not re.fullmatch(r"\d{4}", text):
        raise InputError(f"{source}: year {value!r} is not a 4-digit year such as 2024")
    return int(text)


# --- ids and duplicates ----------------------------------------------------


def _papers(records: list[_Record]) -> list[Paper]:
    papers: list[Paper] = []
    by_key: dict[str, int] = {}
    by_id: dict[str, int] = {}
    for record in records:
        key = normalise(record.abstract)
        if key in by_key:
            papers[by_key[key]] = _merged(papers[by_key[key]], record)
            continue
        pid = paper_id(record.abstract, record.id)
        if pid in by_id:
            first = papers[by_id[pid]]
            raise InputError(
                f"{record.source}: id {pid!r} is also used by a different abstract at "
                f"{first.source}; give each paper its own id or remove one of them"
            )
        by_key[key] = by_id[pid] = len(papers)
        papers.append(
            Paper(
                id=pid,
                abstract=record.abstract,
                text=clean(record.abstract),
                title=record.title,
                authors=record.authors,
                year=record.year,
                venue=record.venue,
                keywords=record.keywords,
                source=record.source,
            )
        )
    return papers


def _merged(paper: Paper, record: _Record) -> Paper:
    """``paper`` with the metadata it lacks taken from a duplicate record."""
    return replace(
        paper,
        title=paper.title or record.title,
        authors=paper.authors or record.authors,
        year=paper.year if paper.year is not None else record.year,
        venue=paper.venue or record.venue,
        keywords=paper.keywords or record.keywords,
    )
