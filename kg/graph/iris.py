"""The names of a graph's nodes: IRIs in the RDF, node ids in the NetworkX graphs.

Each is a function of the data, never of a counter or a clock, so the same
input gives the same names; :mod:`kg.graph.rdf` and :mod:`kg.graph.networks`
both read them here.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from rdflib import URIRef

from kg.ingest import person_key, title_key
from kg.model import Concept, Kind
from kg.vocab import DATA

__all__ = [
    "paper_iri",
    "concept_iri",
    "overlap_iri",
    "person_iri",
    "venue_iri",
    "paper_node",
    "concept_node",
]


def paper_iri(paper_id: str) -> URIRef:
    return DATA[f"paper/{paper_id}"]


def concept_iri(concept: Concept, field_iris: Mapping[str, str]) -> URIRef:
    if concept.kind is Kind.FIELD and concept.key in field_iris:
        return URIRef(field_iris[concept.key])
    return DATA[f"concept/{concept.key}"]


def person_iri(name: str) -> URIRef | None:
    """The person an author name stands for, one IRI per name however it is written.

    "Hayou, Soufiane" and "Soufiane Hayou" give the same IRI (:func:`kg.ingest.person_key`);
    None for a name without a letter or digit.

    >>> str(person_iri("Hayou, Soufiane")), person_iri("Soufiane HAYOU") == person_iri("Hayou, S.")
    ('https://w3id.org/kg/person/soufiane-hayou', False)
    """
    return _entity("person", person_key(name))


def venue_iri(venue: str) -> URIRef | None:
    """The venue a name stands for, compared as titles are (case, LaTeX, punctuation ignored).

    >>> str(venue_iri("ICML")), venue_iri("Proc. ICML") == venue_iri("proc ICML"), venue_iri("--")
    ('https://w3id.org/kg/venue/icml', True, None)
    """
    return _entity("venue", title_key(venue))


def _entity(kind: str, key: str | None) -> URIRef | None:
    """``DATA/kind/the-key``: a compared name's words joined by hyphens (None: no key)."""
    return DATA[f"{kind}/" + quote("-".join(key.split()), safe="-")] if key else None


def overlap_iri(a: str, b: str) -> URIRef:
    """The overlap node of papers ``a < b``."""
    return DATA[f"overlap/{a}/{b}"]


def paper_node(paper_id: str) -> str:
    return f"paper:{paper_id}"


def concept_node(key: str) -> str:
    return f"concept:{key}"
