"""One paper as a file gives it (:class:`Record`), or why it was skipped (:class:`Skip`).

Every reader turns what it parsed into a mapping of kg's field names
(``abstract``, ``title``, ``id``, ``authors``, ``year``, ``venue``,
``keywords``; the identifiers of :mod:`kg.ingest.identifiers` and ``url``) and
hands it to :func:`record`, which checks the types, removes
characters no output can carry and decides whether the record is a paper or a
skip. Generic records (JSON objects, CSV rows) are mapped by :func:`canonical`,
which knows the column names that reference managers and databases use.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kg.errors import InputError
from kg.ingest.identifiers import SCHEMES, identifiers, source_url
from kg.text import printable

__all__ = [
    "Record",
    "Skip",
    "Context",
    "record",
    "canonical",
    "dig",
    "strings",
    "field_key",
    "ALIASES",
    "FIELDS",
    "NO_ABSTRACT",
    "MERGED",
    "NOT_FOUND",
    "MAX_RECORD_CHARS",
]

#: kg's field names, as ``--column FIELD=NAME`` accepts them.
FIELDS = (
    "id",
    "title",
    "abstract",
    "authors",
    "year",
    "venue",
    "keywords",
    "doi",
    "arxiv",
    "pmid",
    "url",
)

# Accepted column names, most specific first, compared after field_key(). They
# cover kg's own names and the exports of Zotero ("Abstract Note", "Manual
# Tags"), Scopus ("Author Keywords", "Source title", "EID"), Web of Science's
# tab-delimited files (AB, TI, AU, PY, SO, DE, UT), Dimensions and others.
ALIASES = {
    "id": (
        "id", "paper_id", "paperid", "doc_key", "doc_id", "docid", "uid", "key", "citation_key",
        "ut", "eid", "accession_number", "doi", "di", "pmid", "arxiv_id",
    ),
    "title": ("title", "paper_title", "article_title", "document_title", "ti", "primary_title"),
    "abstract": (
        "abstract", "summary", "text", "abstract_text", "paper_abstract", "content",
        "abstract_note", "ab", "description",
    ),
    "authors": (
        "authors", "author", "author_names", "creators", "author_full_names", "au", "af",
    ),
    "year": (
        "year", "pub_year", "pubyear", "publication_year", "published_year", "py", "date",
        "publication_date",
    ),
    "venue": (
        "venue", "conference", "journal", "booktitle", "venue_name", "publication_title",
        "source_title", "source", "so", "container_title", "journal_name",
    ),
    "keywords": (
        "keywords", "keyword", "tags", "key_words", "manual_tags", "author_keywords", "de",
    ),
    "doi": ("doi", "di"),
    "arxiv": ("arxiv", "arxiv_id", "eprint"),
    "pmid": ("pmid", "pubmed_id", "pm"),
    "url": ("url", "link", "landing_page_url", "source_url"),
}  # fmt: skip

#: Most characters of text one record may hold (its abstract, title, id, authors, venue and
#: keywords together). Extraction's memory grows with a paper's text: an abstract of 1 MB took
#: the real model 3.3 min and 2.0 GB, and one of 50 MB ran out of memory.
MAX_RECORD_CHARS = 1_000_000

#: Why a record was skipped; the build summary counts each.
NO_ABSTRACT = "no abstract"
#: A record of a paper another record gives too (same abstract, DOI, arXiv id, or title, year
#: and author).
MERGED = "merged"
NOT_FOUND = "null result"


@dataclass(frozen=True)
class Record:
    """One paper as found in a file, before ids and duplicates are settled."""

    abstract: str
    source: str
    id: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    keywords: tuple[str, ...] = ()
    ids: tuple[tuple[str, str], ...] = ()
    url: str | None = None


@dataclass(frozen=True)
class Skip:
    """A record that is not a paper: ``reason`` is one of the constants above."""

    source: str
    reason: str
    detail: str = ""


@dataclass
class Context:
    """What every reader of one build shares: the user's column names and a tally.

    Attributes:
        columns: ``--column`` mappings, kg field -> the user's column name.
        replaced: Characters removed or replaced by :func:`~kg.text.printable`, by kind.
    """

    columns: Mapping[str, str] = field(default_factory=dict)
    replaced: Counter[str] = field(default_factory=Counter)


def field_key(name: object) -> str:
    """A column name compared loosely: "Abstract Note" and "abstract_note" are one.

    >>> field_key(" Abstract Note "), field_key("container-title"), field_key("AB")
    ('abstract_note', 'container_title', 'ab')
    """
    return re.sub(r"[\s_.\-]+", "_", str(name).strip().casefold()).strip("_")


def canonical(value: Any, source: str, columns: Mapping[str, str]) -> dict[str, Any]:
    """kg's fields of a generic record (a JSON object or a CSV row), found by name.

    A ``--column`` mapping wins; otherwise the first alias with a non-empty
    value. A field whose only columns are empty maps to ``""``, so that
    :func:`record` can tell an empty abstract from a missing one.
    """
    if not isinstance(value, dict):
        raise InputError(f"{source}: expected a JSON object for a paper, found {_type_name(value)}")
    fields = {field_key(key): item for key, item in value.items()}
    out: dict[str, Any] = {}
    for name in FIELDS:
        if name in columns:
            out[name] = fields.get(field_key(columns[name]))
            continue
        present = [alias for alias in ALIASES[name] if alias in fields]
        filled = [a for a in present if fields[a] is not None and fields[a] != ""]
        out[name] = fields[filled[0]] if filled else ("" if present else None)
    return out


def record(fields: Mapping[str, Any], source: str, context: Context) -> Record | Skip:
    """A paper from kg's fields, or a :class:`Skip` when it has no abstract.

    Raises:
        InputError: A field has the wrong type (a number as the abstract, an
            object as the title, a year that is no year), or the record holds
            more than :data:`MAX_RECORD_CHARS` characters of text.
    """
    _check_size(fields, source)
    abstract = fields.get("abstract")
    if abstract is not None and not isinstance(abstract, str):
        raise InputError(
            f"{source}: the abstract is {_type_name(abstract)}, not text; give the abstract "
            f"as a string (or pick its column with --column abstract=NAME)"
        )
    abstract = printable(abstract or "", context.replaced).strip()
    if not abstract:
        return Skip(source, NO_ABSTRACT, "empty" if fields.get("abstract") == "" else "")
    raw_id = fields.get("id")
    return Record(
        abstract=abstract,
        source=source,
        id=None if raw_id in (None, "") else _text(raw_id, "id", source, context),
        title=_optional_text(fields.get("title"), "title", source, context),
        authors=_names(fields.get("authors"), "authors", source, context),
        year=_year(fields.get("year"), source),
        venue=_optional_text(fields.get("venue"), "venue", source, context),
        keywords=_names(fields.get("keywords"), "keywords", source, context),
        ids=identifiers({scheme: fields.get(scheme) for scheme in SCHEMES}),
        url=source_url(fields.get("url")),
    )


def _check_size(fields: Mapping[str, Any], source: str) -> None:
    size = sum(_chars(value) for value in fields.values())
    if size > MAX_RECORD_CHARS:
        raise InputError(
            f"{source}: the record holds {size:,} characters of text, more than the "
            f"{MAX_RECORD_CHARS:,} kg reads of one paper; give its abstract, not a full text "
            "(or look for a field that runs on into the next ones)"
        )


def _chars(value: Any) -> int:
    """Characters of text in a field's value: its strings, however nested."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list | tuple):
        return sum(_chars(item) for item in value)
    if isinstance(value, dict):
        return sum(_chars(item) for item in value.values())
    return 0


def _type_name(value: Any) -> str:
    names = {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "an object",
        str: "text",
        type(None): "null",
    }
    return f"{names.get(type(value), type(value).__name__)} ({type(value).__name__})"


def _text(value: Any, name: str, source: str, context: Context) -> str:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return printable(" ".join(str(value).split()), context.replaced)
    raise InputError(f"{source}: field '{name}' must be text, found {_type_name(value)}")


def _optional_text(value: Any, name: str, source: str, context: Context) -> str | None:
    return None if value is None else (_text(value, name, source, context) or None)


def _names(value: Any, name: str, source: str, context: Context) -> tuple[str, ...]:
    """Authors or keywords from a list, or from a string split on ";", " and " or ","."""
    if value is None:
        return ()
    parts: list[Any]
    if isinstance(value, str):
        if ";" in value:
            parts = value.split(";")
        elif name == "authors" and _one_inverted_name(value):
            parts = [value]
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
            f"found {_type_name(value)}"
        )
    cleaned = (printable(" ".join(part.split()), context.replaced) for part in parts)
    return tuple(dict.fromkeys(part for part in cleaned if part))


def _one_inverted_name(value: str) -> bool:
    """Whether ``value`` is one "Last, First" name ("Lee, A."), not "Ann Lee, Bo Li".

    >>> _one_inverted_name("Lee, A."), _one_inverted_name("Ann Lee, Bo Li")
    (True, False)
    """
    last, comma, _ = value.partition(",")
    return (
        comma == "," and value.count(",") == 1 and " and " not in value and len(last.split()) == 1
    )


_YEAR = re.compile(r"(?<!\d)((?:1[5-9]|20)\d\d)(?!\d)")


def _year(value: Any, source: str) -> int | None:
    """A year from ``2024``, ``"2024"``, ``2024.0`` or a date such as ``"2024-05-01"``.

    >>> _year("May 2020", "x"), _year(2024.0, "x"), _year("2019///", "x")
    (2020, 2024, 2019)
    """
    if value is None or value == "":
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
    elif isinstance(value, str):
        text = value.strip().removesuffix(".0")
    else:
        text = ""
    match = _YEAR.search(text) if len(text) <= 64 else None
    if match is None:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
        raise InputError(
            f"{source}: year {shown} is not a 4-digit year such as 2024 (or a date "
            "such as 2024-05-01)"
        )
    return int(match.group(1))


def dig(value: Any, *path: str | int) -> Any:
    """``value[path[0]][path[1]]...``, or None where the structure is not as expected.

    Foreign formats hold optional metadata in nested objects; a missing or
    oddly shaped one means "not given", never a crash.

    >>> dig({"a": [{"b": 1}]}, "a", 0, "b"), dig({"a": None}, "a", "b"), dig([], 3)
    (1, None, None)
    """
    for step in path:
        if isinstance(step, int):
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                return None
        elif not isinstance(value, dict):
            return None
        value = value[step] if isinstance(step, int) else value.get(step)
    return value


def strings(values: Any) -> list[str]:
    """The strings of a list (others left out); a lone string is a list of one."""
    if isinstance(values, str):
        return [values]
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
