"""The hand-off record as NetworkX graphs, for analytics scripts and the views.

Node ids are ``"paper:<id>"`` and ``"concept:<key>"``. :func:`concept_graph`
is the paper-concept graph (``mentions`` edges, and ``broader`` edges from a
concept to its broader concepts), :func:`shares_graph` the papers joined by
``shares`` edges, and :func:`to_networkx` both in one graph, as the exports
write it.
"""

from __future__ import annotations

import networkx as nx
from rdflib import URIRef

from kg.attrs import (
    AUTHOR_IDS,
    BROADER,
    CONCEPT,
    IDENTIFIERS,
    LINK,
    MENTIONS,
    PAPER,
    SHARES,
    SOURCES,
    URL,
    VENUE_ID,
)
from kg.graph.edges import explain
from kg.graph.iris import concept_iri, concept_node, paper_iri, paper_node, person_iri, venue_iri
from kg.ingest import resolvable
from kg.model import KnowledgeGraph, Paper

__all__ = ["concept_graph", "shares_graph", "to_networkx"]


def concept_graph(record: KnowledgeGraph) -> nx.Graph:
    """Bipartite graph: paper and concept nodes, one edge per link.

    Paper nodes have ``bipartite=0``, concept nodes ``bipartite=1``; edges
    carry role, score, evidence. A paper's authors and venue are attributes beside
    their names as written: their ids are the IRIs of the RDF's schema:Person and
    kg:Venue (:mod:`kg.graph.iris`), so an author's papers share an id.
    """
    B = nx.Graph()
    counts: dict[str, int] = {}
    for link in record.links:
        counts[link.concept_key] = counts.get(link.concept_key, 0) + 1
    for p in record.papers:
        B.add_node(
            paper_node(p.id),
            bipartite=0,
            type=PAPER,
            key=p.id,
            label=record.labels[p.id],
            title=p.title or record.labels[p.id],
            derived_title=not p.title,
            abstract=p.abstract,
            year=p.year,
            venue=p.venue,
            authors=list(p.authors),
            keywords=list(p.keywords),
            iri=str(paper_iri(p.id)),
            **{
                AUTHOR_IDS: [_str(person_iri(name)) for name in p.authors],
                VENUE_ID: _str(venue_iri(p.venue)) if p.venue else None,
                IDENTIFIERS: [f"{scheme}:{value}" for scheme, value in p.ids],
                URL: p.url,
                LINK: _link(p),
                SOURCES: [s for s in (p.source, *p.other_sources) if s],
            },
        )
    field_iris = record.field_iris
    for c in record.concepts:
        B.add_node(
            concept_node(c.key),
            bipartite=1,
            type=CONCEPT,
            key=c.key,
            kind=c.kind.value,
            label=c.label,
            alt_labels=list(c.alt_labels),
            papers=counts.get(c.key, 0),
            broader=[concept_node(b) for b in c.broader],
            iri=str(concept_iri(c, field_iris)),
        )
    for link in record.links:
        B.add_edge(
            paper_node(link.paper_id),
            concept_node(link.concept_key),
            type=MENTIONS,
            role=link.role.value,
            score=link.score,
            evidence=link.sentence,
        )
    for c in record.concepts:
        for b in c.broader:
            B.add_edge(
                concept_node(c.key),
                concept_node(b),
                type=BROADER,
                narrower=concept_node(c.key),
                broader=concept_node(b),
            )
    return B


def _str(iri: URIRef | None) -> str | None:
    return None if iri is None else str(iri)


def _link(p: Paper) -> str | None:
    """The source's link, else where the first identifier resolves, else None."""
    if p.url:
        return p.url
    return resolvable(*p.ids[0]) if p.ids else None


def shares_graph(record: KnowledgeGraph) -> nx.Graph:
    """Papers joined by shared-concept edges.

    Each edge has ``weight``, and, strongest first, the ``shared`` concepts'
    labels, ``how`` each is shared (exact, broader, topic), its
    ``contribution`` to the weight, and a one-line ``explanation``.
    """
    label = {c.key: c.label for c in record.concepts}
    P = nx.Graph()
    P.add_nodes_from(paper_node(p.id) for p in record.papers)
    for e in record.edges:
        P.add_edge(
            paper_node(e.a),
            paper_node(e.b),
            weight=e.weight,
            type=SHARES,
            shared=[label[s.concept_key] for s in e.shared],
            how=[s.how.value for s in e.shared],
            contribution=[s.weight for s in e.shared],
            explanation=explain(e.shared, label),
        )
    return P


def to_networkx(record: KnowledgeGraph) -> nx.Graph:
    """Papers, concepts, their links and the shared-concept edges in one graph."""
    G = concept_graph(record)
    G.add_edges_from(shares_graph(record).edges(data=True))
    return G
