"""The built graph as the views read it: papers, concepts and their relations, indexed once.

All three views and the index page start from one :class:`Corpus` made from
the NetworkX graph of a build (:func:`kg.graph.to_networkx`, or the
``graph.json`` it was saved as), so they agree on every count and label.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import networkx as nx

from kg.attrs import (
    BROADER,
    CONCEPT,
    KIND,
    LABEL,
    MENTIONS,
    PAPER,
    SCORE,
    SHARED,
    SHARES,
    TYPE,
    VENUE,
    WEIGHT,
    YEAR,
)
from kg.errors import KGError
from kg.model import Kind

__all__ = ["Corpus", "read_corpus", "KINDS", "default_heading", "heading", "year_of"]

#: Concept kinds in the order the views list them.
KINDS = (Kind.METHOD, Kind.PROBLEM, Kind.FIELD)


@dataclass(frozen=True)
class Corpus:
    """Indexes over one built graph; node ids are the graph's (``paper:…``, ``concept:…``).

    Attributes:
        papers: Paper node ids, sorted.
        concepts: Concept node ids, sorted.
        attrs: Every node's attributes.
        mentions: Paper -> {concept -> the ``mentions`` edge's attributes}.
        papers_of: Concept -> the papers that mention it, sorted.
        shares: ``(a, b)`` with ``a < b`` -> the ``shares`` edge's attributes.
        broader: Concept -> its broader concepts present in the graph.
    """

    papers: tuple[str, ...]
    concepts: tuple[str, ...]
    attrs: Mapping[str, Mapping[str, Any]]
    mentions: Mapping[str, Mapping[str, Mapping[str, Any]]]
    papers_of: Mapping[str, tuple[str, ...]]
    shares: Mapping[tuple[str, str], Mapping[str, Any]]
    broader: Mapping[str, tuple[str, ...]]

    def label(self, node: str) -> str:
        """A human name: the node's label, else its id without the prefix (never an IRI)."""
        text = self.attrs[node].get(LABEL)
        if isinstance(text, str) and text.strip():
            return text
        return node.split(":", 1)[-1].replace("-", " ")

    def kind(self, concept: str) -> str:
        return str(self.attrs[concept].get(KIND) or "")

    @cached_property
    def narrower(self) -> dict[str, tuple[str, ...]]:
        down: dict[str, list[str]] = defaultdict(list)
        for c in self.concepts:
            for b in self.broader[c]:
                down[b].append(c)
        return {c: tuple(sorted(down.get(c, ()))) for c in self.concepts}

    @cached_property
    def neighbours(self) -> dict[str, list[tuple[str, float]]]:
        """Paper -> its shared-concept neighbours with the edge weight, strongest first."""
        near: dict[str, list[tuple[str, float]]] = {p: [] for p in self.papers}
        for (a, b), d in self.shares.items():
            w = weight_of(d)
            near[a].append((b, w))
            near[b].append((a, w))
        for links in near.values():
            links.sort(key=lambda x: (-x[1], x[0]))
        return near

    @cached_property
    def fields(self) -> tuple[str, ...]:
        return tuple(c for c in self.concepts if self.kind(c) == Kind.FIELD)

    @cached_property
    def field_parent(self) -> dict[str, str | None]:
        """Field -> its broader field (the taxonomy tree), None for a broad area."""
        kinds = set(self.fields)
        return {f: next((b for b in self.broader[f] if b in kinds), None) for f in self.fields}

    def area(self, field: str) -> str:
        """The broad area a field belongs to (itself for an area)."""
        seen = {field}
        while (parent := self.field_parent[field]) is not None and parent not in seen:
            seen.add(parent)
            field = parent
        return field

    @cached_property
    def paper_fields(self) -> dict[str, frozenset[str]]:
        """Paper -> every field it is in, broader fields of its fields included."""
        out = {}
        for p in self.papers:
            mine: set[str] = set()
            for c in self.mentions[p]:
                if self.kind(c) == Kind.FIELD:
                    f: str | None = c
                    while f is not None and f not in mine:
                        mine.add(f)
                        f = self.field_parent[f]
            out[p] = frozenset(mine)
        return out

    @cached_property
    def main_area(self) -> dict[str, str | None]:
        """Paper -> the broad area of its most confident field link, None without fields."""
        out: dict[str, str | None] = {}
        for p in self.papers:
            best: tuple[float, str] | None = None
            for c, d in self.mentions[p].items():
                if self.kind(c) == Kind.FIELD:
                    candidate = (-float(d.get(SCORE, 0.0)), self.area(c))
                    best = candidate if best is None else min(best, candidate)
            out[p] = best[1] if best else None
        return out


def weight_of(d: Mapping[str, Any]) -> float:
    """A shared-concept edge's weight (the number of shared concepts when it has none)."""
    w = d.get(WEIGHT)
    return float(w) if w is not None else float(len(d.get(SHARED) or ()))


def read_corpus(graph: nx.Graph) -> Corpus:
    """Index ``graph``; a node or edge of an unknown type is a :class:`KGError`."""
    papers, concepts = [], []
    for n, d in graph.nodes(data=True):
        kind = d.get(TYPE)
        if kind == PAPER:
            papers.append(n)
        elif kind == CONCEPT:
            concepts.append(n)
        else:
            raise KGError(f"graph node {n!r} has type {kind!r}; expected 'paper' or 'concept'")
    papers.sort()
    concepts.sort()
    mentions: dict[str, dict[str, dict]] = {p: {} for p in papers}
    shares: dict[tuple[str, str], dict] = {}
    for u, v, d in graph.edges(data=True):
        kind = d.get(TYPE)
        if kind == MENTIONS:
            paper, concept = (u, v) if graph.nodes[u].get(TYPE) == PAPER else (v, u)
            if graph.nodes[paper].get(TYPE) != PAPER or graph.nodes[concept].get(TYPE) != CONCEPT:
                raise KGError(
                    f"graph edge {u!r} -- {v!r} mentions, but joins no paper to a concept"
                )
            mentions[paper][concept] = d
        elif kind == SHARES:
            shares[min(u, v), max(u, v)] = d
        elif kind != BROADER:  # the hierarchy is read from the concepts' own lists
            raise KGError(
                f"graph edge {u!r} -- {v!r} has type {kind!r}; expected mentions/shares/broader"
            )
    present = set(concepts)
    by_concept: dict[str, list[str]] = defaultdict(list)
    for p in papers:
        mentions[p] = dict(sorted(mentions[p].items()))
        for c in mentions[p]:
            by_concept[c].append(p)
    broader = {}
    for c in concepts:
        up = graph.nodes[c].get(BROADER) or ()
        broader[c] = tuple(dict.fromkeys(b for b in up if b in present and b != c))
    return Corpus(
        papers=tuple(papers),
        concepts=tuple(concepts),
        attrs={n: graph.nodes[n] for n in graph},
        mentions=mentions,
        papers_of={c: tuple(by_concept.get(c, ())) for c in concepts},
        shares=dict(sorted(shares.items())),
        broader=broader,
    )


def default_heading(corpus: Corpus) -> str:
    """ "kg: 37 NeurIPS 2026 papers" from one venue, "kg: 11 papers, 2024, 3 venues" from more."""
    attrs = [corpus.attrs[p] for p in corpus.papers]
    return heading(len(attrs), [(d.get(VENUE), d.get(YEAR)) for d in attrs])


def heading(n_papers: int, venues: Iterable[tuple[Any, Any]]) -> str:
    """The page heading from each paper's (venue, year).

    One venue names it with its years; papers of several venues are counted, with
    the span of their years, so a mixed build's heading stays short:

    >>> heading(37, [("NeurIPS", 2026)] * 37)
    'kg: 37 NeurIPS 2026 papers'
    >>> heading(11, [("ICML", 2024), ("arXiv", 2024), ("Proc. ICML", "2024"), (None, None)])
    'kg: 11 papers, 2024, 3 venues'
    >>> heading(3, [("ICML", 2021), ("NeurIPS", 2020), (None, None)])
    'kg: 3 papers, 2020–2021, 2 venues'
    """
    pairs = list(venues)
    names = {str(venue).strip() for venue, _ in pairs if venue and str(venue).strip()}
    if len(names) <= 1:
        named = sorted({f"{venue or ''} {year or ''}".strip() for venue, year in pairs} - {""})
        where = f" {', '.join(named)}" if 0 < len(named) <= 3 else ""
        return f"kg: {n_papers}{where} papers"
    years = sorted({y for _, year in pairs if (y := year_of(year)) is not None})
    span = "" if not years else f", {years[0]}" + (f"–{years[-1]}" if len(years) > 1 else "")
    return f"kg: {n_papers} papers{span}, {len(names)} venues"


def year_of(value: Any) -> int | None:
    """A year as a number, or None ("2024" and 2024 alike; anything else is no year)."""
    try:
        return int(str(value).strip())
    except ValueError:
        return None
