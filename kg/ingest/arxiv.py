"""The arXiv metadata snapshot (Kaggle's ``arxiv-metadata-oai-snapshot.json``): one paper a line.

Titles, abstracts and author names are wrapped across lines and hold LaTeX
(``Bal\\'azs``); both are rendered, formulas kept for extraction. The year is
that of the first version; the categories become keywords.
"""

from __future__ import annotations

import re
from typing import Any

from kg.errors import InputError
from kg.ingest.records import dig, strings
from kg.text import latex_decoded

__all__ = ["looks_like", "fields", "NAME", "EXPECTED"]

NAME = "arXiv metadata snapshot"
EXPECTED = "expected arXiv snapshot records (with 'id', 'abstract', 'versions', 'authors_parsed')"


def looks_like(item: dict[str, Any]) -> bool:
    return "authors_parsed" in item or ("submitter" in item and "versions" in item)


def fields(item: Any, source: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise InputError(f"{source}: expected an arXiv record object, found {type(item).__name__}")
    parsed = item.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        authors = [
            " ".join(p for p in (strings(name)[1:2] + strings(name)[:1] + strings(name)[2:3]) if p)
            for name in parsed
            if isinstance(name, list)
        ]
    else:
        authors = re.split(r",\s*(?:and\s+)?|\s+and\s+", item.get("authors") or "")
    created = dig(item, "versions", 0, "created")
    year = re.search(r"\b(?:19|20)\d\d\b", created) if isinstance(created, str) else None
    categories = item.get("categories")
    return {
        "id": item.get("id"),
        "title": _decoded(item.get("title")),
        "abstract": _decoded(item.get("abstract")),
        "authors": [latex_decoded(a) for a in authors if isinstance(a, str) and a.strip()],
        "year": year.group() if year else item.get("update_date"),
        "venue": "arXiv",
        "keywords": categories.split() if isinstance(categories, str) else [],
        "arxiv": item.get("id"),
        "doi": item.get("doi"),
    }


def _decoded(value: Any) -> Any:
    return latex_decoded(" ".join(value.split())) if isinstance(value, str) else value
