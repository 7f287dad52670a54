"""Semantic Scholar Graph API results: search, bulk search, batch and single papers.

The API returns ``{"data": [...]}`` for searches, a list with ``null`` for
each unknown id of a batch request, and ``{"citingPaper": {...}}`` items for
citation lists; all are read. A null is skipped as "null result", a paper
whose abstract the publisher withholds (``"abstract": null``) as "no abstract".
"""

from __future__ import annotations

from typing import Any

from kg.errors import InputError
from kg.ingest.records import NOT_FOUND, Skip, dig, strings

__all__ = ["looks_like", "fields", "NAME", "EXPECTED"]

NAME = "Semantic Scholar results"
EXPECTED = "expected Semantic Scholar paper objects (with 'paperId', 'abstract')"
_NESTED = ("citingPaper", "citedPaper", "paper")


def looks_like(item: dict[str, Any]) -> bool:
    inner = next((item[k] for k in _NESTED if isinstance(item.get(k), dict)), item)
    return "paperId" in inner or "corpusId" in inner


def fields(item: Any, source: str) -> dict[str, Any] | Skip:
    if item is None:
        return Skip(source, NOT_FOUND, "an unknown paper id in a batch request")
    if not isinstance(item, dict):
        raise InputError(
            f"{source}: expected a Semantic Scholar paper object, found {type(item).__name__}"
        )
    item = next((item[k] for k in _NESTED if isinstance(item.get(k), dict)), item)
    paper_id = item.get("paperId") or item.get("corpusId")
    return {
        "id": paper_id,
        "title": item.get("title"),
        "abstract": item.get("abstract"),
        "authors": strings([dig(a, "name") for a in item.get("authors") or []]),
        "year": item.get("year") or item.get("publicationDate"),
        "venue": item.get("venue")
        or dig(item, "publicationVenue", "name")
        or dig(item, "journal", "name"),
        "keywords": [],
        "s2": item.get("paperId"),
        "doi": dig(item, "externalIds", "DOI"),
        "arxiv": dig(item, "externalIds", "ArXiv"),
        "pmid": dig(item, "externalIds", "PubMed"),
        "url": item.get("url"),
    }
