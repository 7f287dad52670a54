"""One paper as a file gives it (:class:`Record`), and reading one from a JSON object or CSV row."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kg.errors import InputError

__all__ = ["Record", "record", "ALIASES"]

# Accepted field names, most specific first; matched case-insensitively.
ALIASES = {
    "id": ("id", "paper_id", "paperid", "doc_key", "doc_id", "docid", "uid"),
    "title": ("title", "paper_title"),
    "abstract": ("abstract", "summary", "text", "abstract_text", "paper_abstract", "content"),
    "authors": ("authors", "author", "author_names", "creators"),
    "year": ("year", "pub_year", "publication_year", "published_year"),
    "venue": ("venue", "conference", "journal", "booktitle", "venue_name"),
    "keywords": ("keywords", "keyword", "tags", "key_words"),
}


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


def record(value: Any, source: str) -> Record:
    """Turn one parsed JSON object or CSV row into a record, checking its fields."""
    if not isinstance(value, dict):
        raise InputError(
            f"{source}: expected a JSON object for a paper, found {type(value).__name__}"
        )
    fields = {str(key).strip().casefold(): item for key, item in value.items()}

    def field(name: str) -> Any:
        for alias in ALIASES[name]:
            if fields.get(alias) not in (None, ""):
                return fields[alias]
        return None

    abstract = field("abstract")
    if not isinstance(abstract, str) or not abstract.strip():
        if isinstance(abstract, str) or any(alias in fields for alias in ALIASES["abstract"]):
            found = "an empty abstract"
        else:
            found = (
                "no abstract"
                if abstract is None
                else f"an abstract of type {type(abstract).__name__}"
            )
        raise InputError(
            f"{source}: record has {found}; give the abstract text in a field named one of: "
            f"{', '.join(ALIASES['abstract'])}"
        )
    raw_id = field("id")
    return Record(
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
