"""Concepts and links -> the hand-off record, its RDF and its NetworkX graphs.

:func:`knowledge_graph` adds what only the whole corpus knows (paper labels,
shared-concept edges) and returns the :class:`~kg.model.KnowledgeGraph` that
:func:`to_rdf` and :func:`to_networkx` both read (:mod:`kg.validate` checks
the RDF against kg's SHACL shapes).
"""

from __future__ import annotations

from collections.abc import Sequence

from kg.graph.edges import EdgeRule, shared_concept_edges
from kg.graph.iris import concept_iri, concept_node, overlap_iri, paper_iri, paper_node
from kg.graph.labels import paper_labels
from kg.graph.networks import concept_graph, shares_graph, to_networkx
from kg.graph.provenance import Provenance, make_provenance
from kg.graph.rdf import (
    ROLE_PROPERTY,
    Sink,
    emit,
    rdf_triples,
    to_rdf,
)
from kg.model import Concept, KnowledgeGraph, Link, Paper
from kg.taxonomy import Taxonomy

__all__ = [
    "knowledge_graph",
    "paper_labels",
    "shared_concept_edges",
    "EdgeRule",
    "to_rdf",
    "rdf_triples",
    "emit",
    "Sink",
    "Provenance",
    "make_provenance",
    "ROLE_PROPERTY",
    "overlap_iri",
    "to_networkx",
    "concept_graph",
    "shares_graph",
    "paper_iri",
    "concept_iri",
    "paper_node",
    "concept_node",
]


def knowledge_graph(
    papers: Sequence[Paper],
    concepts: Sequence[Concept],
    links: Sequence[Link],
    taxonomy: Taxonomy,
    rule: EdgeRule | None = None,
) -> KnowledgeGraph:
    """The hand-off record: the corpus with its paper labels and shared-concept edges."""
    ids = [p.id for p in papers]
    return KnowledgeGraph(
        papers=tuple(papers),
        concepts=tuple(concepts),
        links=tuple(links),
        labels=paper_labels(papers, concepts, links),
        taxonomy=taxonomy,
        edges=shared_concept_edges(ids, concepts, links, taxonomy, rule or EdgeRule()),
    )
