"""Shared-concept edges between papers, computed once as data.

The RDF (``kg:sharesConceptWith``) and the NetworkX graphs both read the
:class:`~kg.model.Edge` records made here, so they always agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import networkx as nx
from networkx.algorithms import bipartite

from kg.model import Concept, Edge, How, Kind, Link, SharedConcept

__all__ = ["SHARED_KINDS", "shared_concept_edges"]

#: Kinds whose sharing makes two papers related; a shared broad field relates too much.
SHARED_KINDS = frozenset({Kind.METHOD, Kind.PROBLEM})


def shared_concept_edges(
    concepts: Sequence[Concept], links: Sequence[Link], kinds: Iterable[Kind] = SHARED_KINDS
) -> tuple[Edge, ...]:
    """Papers joined by the methods and problems they share.

    A weighted bipartite projection (networkx's ``weighted_projected_graph``)
    of the paper-concept links onto papers: an edge's weight is the number of
    concepts of ``kinds`` both papers link to.

    >>> from kg.model import Role
    >>> cs = [Concept("sgd", "SGD", Kind.METHOD)]
    >>> ls = [Link(p, "sgd", Role.USES, 0.5, "s") for p in ("b", "a")]
    >>> [(e.a, e.b, e.weight, [s.concept_key for s in e.shared])
    ...  for e in shared_concept_edges(cs, ls)]
    [('a', 'b', 1, ['sgd'])]
    """
    wanted = frozenset(kinds)
    kind = {c.key: c.kind for c in concepts}
    B = nx.Graph()
    for link in links:
        if kind[link.concept_key] in wanted:
            B.add_edge(("paper", link.paper_id), ("concept", link.concept_key))
    papers = sorted(n for n in B if n[0] == "paper")
    if not papers:
        return ()
    P = bipartite.weighted_projected_graph(B, papers)
    edges = []
    for u, v, data in P.edges(data=True):
        common = sorted(key for _, key in set(B[u]) & set(B[v]))
        a, b = sorted((u[1], v[1]))
        shared = tuple(SharedConcept(key, How.EXACT, 1, (key, key)) for key in common)
        edges.append(Edge(a, b, data["weight"], shared))
    return tuple(sorted(edges, key=lambda e: (e.a, e.b)))
