"""CSL-JSON, as Zotero, Mendeley, Better BibTeX and citation.js export it.

Names are ``{"family", "given"}`` or ``{"literal"}`` objects, the year is the
first of ``issued.date-parts``, keywords one comma-separated string. Crossref
abstracts come with JATS tags (``<jats:p>``), which are removed.
"""

from __future__ import annotations

import re
from typing import Any

from kg.errors import InputError
from kg.ingest.records import dig, strings

__all__ = ["looks_like", "fields", "NAME", "EXPECTED"]

NAME = "CSL-JSON"
EXPECTED = "expected CSL-JSON items (objects with 'type', 'title', 'abstract', 'author', 'issued')"
_CSL_KEYS = ("issued", "container-title", "citation-key", "author", "DOI", "URL")


def looks_like(item: dict[str, Any]) -> bool:
    return isinstance(item.get("type"), str) and any(key in item for key in _CSL_KEYS)


def fields(item: Any, source: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise InputError(f"{source}: expected a CSL-JSON item object, found {type(item).__name__}")
    abstract = item.get("abstract")
    if isinstance(abstract, str):
        abstract = re.sub(r"</?jats:[^>]*>", " ", abstract)
    year = dig(item, "issued", "date-parts", 0, 0)
    if year is None:
        year = dig(item, "issued", "raw") or dig(item, "issued", "literal")
    venue = item.get("container-title")
    keywords = item.get("keyword")
    return {
        "id": item.get("citation-key") or item.get("DOI") or item.get("id"),
        "title": item.get("title"),
        "abstract": abstract,
        "authors": [_name(a) for a in item.get("author") or [] if _name(a)],
        "year": year,
        "venue": strings(venue)[0] if strings(venue) else None,
        "keywords": re.split(r"\s*[,;]\s*", keywords) if isinstance(keywords, str) else keywords,
        "doi": item.get("DOI"),
        "pmid": item.get("PMID"),
        "url": item.get("URL"),
    }


def _name(author: Any) -> str:
    if not isinstance(author, dict):
        return ""
    literal = author.get("literal")
    if isinstance(literal, str):
        return literal
    parts = [author.get(k) for k in ("given", "non-dropping-particle", "family", "suffix")]
    return " ".join(p for p in parts if isinstance(p, str) and p)
