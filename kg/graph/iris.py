"""The names of a graph's nodes: IRIs in the RDF, node ids in the NetworkX graphs.

Each is a function of the data, never of a counter or a clock, so the same
input gives the same names; :mod:`kg.graph.rdf` and :mod:`kg.graph.networks`
both read them here.
"""

from __future__ import annotations

from collections.abc import Mapping

from rdflib import URIRef

from kg.model import Concept, Kind
from kg.vocab import DATA

__all__ = ["paper_iri", "concept_iri", "overlap_iri", "paper_node", "concept_node"]


def paper_iri(paper_id: str) -> URIRef:
    return DATA[f"paper/{paper_id}"]


def concept_iri(concept: Concept, field_iris: Mapping[str, str]) -> URIRef:
    if concept.kind is Kind.FIELD and concept.key in field_iris:
        return URIRef(field_iris[concept.key])
    return DATA[f"concept/{concept.key}"]


def overlap_iri(a: str, b: str) -> URIRef:
    """The overlap node of papers ``a < b``."""
    return DATA[f"overlap/{a}/{b}"]


def paper_node(paper_id: str) -> str:
    return f"paper:{paper_id}"


def concept_node(key: str) -> str:
    return f"concept:{key}"
