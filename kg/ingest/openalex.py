"""OpenAlex works (API results or snapshot lines): the abstract is an inverted index.

OpenAlex ships no abstract text, only ``abstract_inverted_index``, a map of
each word to the positions it takes; the abstract is those words in position
order. A work whose index is null has no abstract and is skipped.
"""

from __future__ import annotations

from typing import Any

from kg.errors import InputError
from kg.ingest.records import dig, strings

__all__ = ["looks_like", "fields", "abstract", "NAME", "EXPECTED"]

NAME = "OpenAlex works"
EXPECTED = "expected OpenAlex work objects (with 'abstract_inverted_index')"


def looks_like(item: dict[str, Any]) -> bool:
    return "abstract_inverted_index" in item or str(item.get("id", "")).startswith(
        "https://openalex.org/W"
    )


def fields(item: Any, source: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise InputError(f"{source}: expected an OpenAlex work object, found {type(item).__name__}")
    work_id = item.get("id")
    if isinstance(work_id, str):
        work_id = work_id.removeprefix("https://openalex.org/")
    authors = [dig(a, "author", "display_name") for a in item.get("authorships") or []]
    keywords = [dig(k, "display_name") or dig(k, "keyword") for k in item.get("keywords") or []]
    return {
        "id": work_id,
        "title": item.get("title") or item.get("display_name"),
        "abstract": abstract(item.get("abstract_inverted_index"), source),
        "authors": strings(authors),
        "year": item.get("publication_year"),
        "venue": dig(item, "primary_location", "source", "display_name")
        or dig(item, "host_venue", "display_name"),
        "keywords": strings(keywords) if isinstance(item.get("keywords"), list) else [],
        "openalex": work_id,
        "doi": item.get("doi") or dig(item, "ids", "doi"),
        "pmid": dig(item, "ids", "pmid"),
        "url": dig(item, "primary_location", "landing_page_url"),
    }


def abstract(index: Any, source: str) -> str | None:
    """The abstract rebuilt from an inverted index; None when there is none.

    Positions are sorted rather than used as list offsets, so a gap or a huge
    position costs nothing; a word at two positions appears twice.

    >>> abstract({"learning": [1, 3], "Deep": [0], "is": [2]}, "x")
    'Deep learning is learning'
    """
    if index is None:
        return None
    if not isinstance(index, dict):
        raise InputError(
            f"{source}: abstract_inverted_index is a {type(index).__name__}, expected an "
            "object mapping each word to its positions"
        )
    placed: list[tuple[int, str]] = []
    for word, positions in index.items():
        if not isinstance(positions, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in positions
        ):
            raise InputError(
                f"{source}: abstract_inverted_index[{word!r}] must be a list of word positions "
                "(whole numbers from 0)"
            )
        placed.extend((p, word) for p in positions)
    return " ".join(word for _, word in sorted(placed))
