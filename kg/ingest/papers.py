"""Records -> papers: stable ids, cleaned text, one paper per distinct abstract."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import replace

from kg.errors import InputError
from kg.ingest.records import DUPLICATE, Record, Skip
from kg.model import Paper
from kg.text import clean, normalise

__all__ = ["papers", "paper_id"]

# Hex digits of the abstract's hash in an id made for a record without one.
_HASH_CHARS = 12


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
        return "p-" + hashlib.sha256(given.encode()).hexdigest()[:_HASH_CHARS]
    return "p-" + hashlib.sha256(normalise(abstract).encode()).hexdigest()[:_HASH_CHARS]


def papers(
    records: list[Record], progress: Callable[[int, int], None] | None = None
) -> tuple[list[Paper], list[Skip]]:
    """One paper per distinct abstract, and a skip for each exact duplicate.

    A duplicate (same :func:`~kg.text.normalise` key) only fills metadata that
    the first copy lacks. ``progress`` is called with the records done and
    their number before each record (cleaning the text is most of reading).

    Raises:
        InputError: Two different abstracts share an id.
    """
    out: list[Paper] = []
    skipped: list[Skip] = []
    by_key: dict[str, int] = {}
    by_id: dict[str, int] = {}
    for done, record in enumerate(records):
        if progress:
            progress(done, len(records))
        key = normalise(record.abstract)
        if key in by_key:
            first = out[by_key[key]]
            out[by_key[key]] = _merged(first, record)
            skipped.append(Skip(record.source, DUPLICATE, f"same abstract as {first.source}"))
            continue
        pid = paper_id(record.abstract, record.id)
        if pid in by_id:
            first = out[by_id[pid]]
            raise InputError(
                f"{record.source}: id {pid!r} is also used by a different abstract at "
                f"{first.source}; give each paper its own id or remove one of them"
            )
        by_key[key] = by_id[pid] = len(out)
        out.append(
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
                ids=record.ids,
                url=record.url,
            )
        )
    if progress:
        progress(len(records), len(records))
    return out, skipped


def _merged(paper: Paper, record: Record) -> Paper:
    """``paper`` with the metadata it lacks taken from a duplicate record."""
    return replace(
        paper,
        title=paper.title or record.title,
        authors=paper.authors or record.authors,
        year=paper.year if paper.year is not None else record.year,
        venue=paper.venue or record.venue,
        keywords=paper.keywords or record.keywords,
        ids=tuple(dict.fromkeys(paper.ids + record.ids)),
        url=paper.url or record.url,
    )
