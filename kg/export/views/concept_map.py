"""The concept map: concepts joined when papers share them, with the concept hierarchy.

Two concepts are joined by the number of papers that mention both; each
concept keeps its strongest such links (by that count, then by how much more
often they meet than chance would have them), so a field that every paper of
an area names does not tie itself to everything. Hierarchy edges point from a
concept to its broader one (``Clipped-SGD`` -> ``SGD``, a topic to its area).
On large inputs the map draws the concepts found in the most papers.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import networkx as nx

from kg.attrs import BROADER
from kg.export.views.bounds import MAX_CONCEPTS, MAX_EDGES, top_by_count, weight_control
from kg.export.views.corpus import KINDS, Corpus
from kg.export.views.layout import community_layout
from kg.export.views.page import (
    COOCCURS,
    EDGE_COLORS,
    Drawn,
    broader_edges,
    node,
    percentile_widths,
)
from kg.words import plural

__all__ = ["concept_map", "LINKS_PER_CONCEPT"]

#: Each concept keeps at most this many of its strongest co-occurrence links.
LINKS_PER_CONCEPT = 8


def concept_map(corpus: Corpus) -> Drawn:
    count = {c: len(corpus.papers_of[c]) for c in corpus.concepts}
    with_papers = [c for c in corpus.concepts if count[c] > 0]
    top, least = top_by_count(with_papers, count.__getitem__, MAX_CONCEPTS)
    shown = _with_broader(corpus, top)
    drawn = [c for c in corpus.concepts if c in shown]

    together: Counter[tuple[str, str]] = Counter()
    for p in corpus.papers:
        mine = [c for c in corpus.mentions[p] if c in shown]
        together.update(combinations(mine, 2))  # mentions are sorted, so pairs are (a < b)
    kept = _strongest(together, count, len(corpus.papers))
    hierarchy = sorted((c, b) for c in drawn for b in corpus.broader[c] if b in shown)

    G = nx.Graph()
    G.add_nodes_from(drawn)
    G.add_weighted_edges_from((a, b, together[a, b]) for a, b in kept)
    G.add_weighted_edges_from((c, b, 1.0) for c, b in hierarchy if not G.has_edge(c, b))
    layout = community_layout(G)

    nodes = [
        node(
            c,
            corpus.kind(c),
            layout.positions[c],
            6 + 3.2 * math.sqrt(count[c]),
            count[c] + G.degree(c) / 1000,
        )
        for c in drawn
    ]
    widths = percentile_widths([float(together[e]) for e in kept], hi=4.5)
    edges = [
        {
            "id": f"c{i}",
            "from": a,
            "to": b,
            "width": widths[i],
            "color": {"color": EDGE_COLORS[COOCCURS], "opacity": 0.4},
            "kind": COOCCURS,
            "w": together[a, b],
        }
        for i, (a, b) in enumerate(kept)
    ]
    edges += broader_edges(hierarchy)
    bounds = _bounds(len(top), len(drawn), len(with_papers), least, len(kept), len(together))
    present = [k for k in KINDS if any(corpus.kind(c) == k for c in drawn)]
    return Drawn(
        view="concept-map",
        nodes=nodes,
        edges=edges,
        settings={
            "types": present,
            "weight": weight_control(
                "papers sharing both", COOCCURS, [float(together[e]) for e in kept]
            ),
            "edge_kinds": [COOCCURS, BROADER],
        },
        bounds=bounds,
    )


def _with_broader(corpus: Corpus, top: list[str]) -> set[str]:
    """``top`` and every broader concept above them, even those without papers of their own."""
    shown = set(top)
    stack = list(top)
    while stack:
        for b in corpus.broader[stack.pop()]:
            if b not in shown:
                shown.add(b)
                stack.append(b)
    return shown


def _bounds(top: int, drawn: int, with_papers: int, least: int, kept: int, links: int) -> list[str]:
    """What the bounded map leaves out, in sentences."""
    bounds = []
    if top < with_papers:
        extra = drawn - top
        bounds.append(
            f"This map draws the {top:,} concepts found in at least "
            f"{plural(least, 'paper')}, of {with_papers:,}"
            + (f", and {plural(extra, 'broader concept')} of theirs" if extra else "")
            + "; search and the panel reach every concept."
        )
    if kept < links:
        bounds.append(
            f"Each concept keeps its {LINKS_PER_CONCEPT} strongest co-occurrence links: "
            f"{kept:,} of {links:,} are in this page."
        )
    return bounds


def _strongest(
    together: Counter[tuple[str, str]], count: dict[str, int], n_papers: int
) -> list[tuple[str, str]]:
    """Each concept's strongest links: most papers together, then the highest lift."""

    def strength(pair: tuple[str, str]) -> tuple[int, float]:
        a, b = pair
        return together[pair], together[pair] * n_papers / (count[a] * count[b])

    by_concept: dict[str, list[tuple[int, float, str, tuple[str, str]]]] = {}
    for pair in together:
        k, lift = strength(pair)
        for end, other in (pair, pair[::-1]):
            by_concept.setdefault(end, []).append((-k, -lift, other, pair))
    kept: set[tuple[str, str]] = set()
    for links in by_concept.values():
        kept.update(pair for *_, pair in sorted(links)[:LINKS_PER_CONCEPT])
    ranked = sorted(kept, key=lambda e: (-together[e], -strength(e)[1], e))
    return sorted(ranked[:MAX_EDGES])
