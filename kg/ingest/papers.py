"""Records -> papers: stable ids, cleaned text, each paper once however many records give it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from kg.errors import InputError
from kg.ingest.dedup import is_preprint, same_papers
from kg.ingest.records import MERGED, Record, Skip
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
    """One paper per paper read, and a :data:`MERGED` note for each record merged into one.

    Records of the same paper (:func:`~kg.ingest.dedup.same_papers`) become one
    paper, made by :func:`_fused`; each but the most complete is counted as
    merged, an exact duplicate of the abstract too (its identifiers and location
    are kept on the paper like any other record's).
    ``progress`` is called with the records done and their number before each
    paper (cleaning the text is most of reading).

    Raises:
        InputError: Two different papers share an id.
    """
    out: list[Paper] = []
    merged: list[Skip] = []
    by_id: dict[str, Paper] = {}
    done = 0
    for group in same_papers(records):
        for _ in group:
            if progress:
                progress(done, len(records))
            done += 1
        members = [records[i] for i, _ in group]
        ranked = sorted(range(len(members)), key=lambda k: _completeness(members[k]), reverse=True)
        paper = _fused([members[k] for k in ranked])
        reasons = [why for _, why in group]
        for k in ranked[1:]:  # the first read has no reason: it takes the primary's
            why = reasons[k] or reasons[ranked[0]]
            merged.append(Skip(members[k].source, MERGED, f"{why} as {paper.source}"))
        if paper.id in by_id:
            first = by_id[paper.id]
            raise InputError(
                f"{paper.source}: id {paper.id!r} is also used by a different abstract at "
                f"{first.source}; give each paper its own id or remove one of them"
            )
        by_id[paper.id] = paper
        out.append(paper)
    if progress:
        progress(len(records), len(records))
    return out, merged


def _completeness(record: Record) -> tuple[bool, int, int]:
    """How complete a record is: a published venue first, then filled fields, then abstract."""
    filled = [record.title, record.authors, record.year, record.venue, record.keywords, record.url]
    return (
        bool(record.venue) and not is_preprint(record.venue),
        sum(x is not None and x != () for x in filled) + len(record.ids),
        len(record.abstract),
    )


def _fused(ranked: list[Record]) -> Paper:
    """One paper from its records, most complete first (ties in input order).

    The most complete record (:func:`_completeness`: a published venue beats a
    preprint server, then the most fields and identifiers, then the longest
    abstract; the first read on a tie) gives the id, abstract, title, authors,
    year, venue and keywords; each field it lacks comes from the next most
    complete record that has it. Every record's identifiers are kept, and every
    location: the primary's as ``source``, the others' as ``other_sources``.
    """
    first = ranked[0]

    def pick(name: str) -> Any:
        return next((v for r in ranked if (v := getattr(r, name)) not in (None, "", ())), None)

    return Paper(
        id=paper_id(first.abstract, first.id if first.id is not None else pick("id")),
        abstract=first.abstract,
        text=clean(first.abstract),
        title=pick("title"),
        authors=pick("authors") or (),
        year=pick("year"),
        venue=pick("venue"),
        keywords=pick("keywords") or (),
        source=first.source,
        ids=tuple(dict.fromkeys(i for r in ranked for i in r.ids)),
        url=pick("url"),
        other_sources=tuple(r.source for r in ranked[1:]),
    )
