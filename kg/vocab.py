"""kg's RDF vocabulary as code: a typo in a term fails at import, not in the output.

Mirrors ``ontology/kg.ttl`` term for term; ``tests/test_ontology.py`` checks
that every term here is declared there and vice versa.
"""

from __future__ import annotations

import re

from rdflib import Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SH, SKOS, XSD, DefinedNamespace

__all__ = ["KG", "KG_NS", "DATA", "ONTOLOGY_IRI", "SCHEMA", "PREFIXES", "compact"]

ONTOLOGY_IRI = URIRef("https://w3id.org/kg/ns")
KG_NS = "https://w3id.org/kg/ns#"
DATA = Namespace("https://w3id.org/kg/")  # papers, concepts and links: DATA["paper/<id>"]


class KG(DefinedNamespace):
    """Terms of ``ontology/kg.ttl``."""

    _NS = Namespace(KG_NS)
    _fail = True

    # Classes
    Paper: URIRef  # a research paper, also a schema:ScholarlyArticle
    Concept: URIRef  # canonical concept, subclass of skos:Concept
    Method: URIRef  # algorithm, model, technique or framework
    Problem: URIRef  # problem, task or challenge
    Field: URIRef  # research area from a SKOS taxonomy
    ConceptLink: URIRef  # a paper-concept link with role, confidence, evidence
    ConceptOverlap: URIRef  # a shared-concept edge with its weight and reasons
    SharedConcept: URIRef  # one reason of an overlap: a concept, how, weight, via
    KnowledgeGraph: URIRef  # the graph a build wrote (prov:Entity)
    Build: URIRef  # one run of kg build (prov:Activity)
    Setting: URIRef  # a knob of a build: rdfs:label name, rdf:value value
    Venue: URIRef  # a conference, journal or preprint server papers appear in

    # Paper -> concept
    mentionsConcept: URIRef  # super-property of the four below
    proposes: URIRef
    usesMethod: URIRef
    addressesProblem: URIRef
    inField: URIRef

    # Paper -> paper
    sharesConceptWith: URIRef  # symmetric

    # Link nodes
    paper: URIRef
    concept: URIRef  # also of a SharedConcept
    role: URIRef
    confidence: URIRef
    evidence: URIRef

    # Overlap nodes
    firstPaper: URIRef
    secondPaper: URIRef
    weight: URIRef  # of an overlap and of each shared concept
    explanation: URIRef
    sharedConcept: URIRef
    how: URIRef  # "exact", "broader" or "topic"
    viaFirst: URIRef
    viaSecond: URIRef

    # Paper metadata
    venue: URIRef
    derivedTitle: URIRef
    source: URIRef
    authorPosition: URIRef
    person: URIRef  # an author node's schema:Person

    # Provenance
    sha256: URIRef
    setting: URIRef

    # Individuals
    extractor: URIRef  # prov:SoftwareAgent
    concepts: URIRef  # skos:ConceptScheme of extracted concepts


SCHEMA = Namespace("https://schema.org/")

#: Prefixes bound in every graph kg writes and predeclared in ``kg query``.
PREFIXES = {
    "kg": KG._NS,
    "skos": SKOS,
    "dcterms": DCTERMS,
    "schema": SCHEMA,
    "prov": PROV,
    "xsd": XSD,
    "paper": DATA["paper/"],
    "concept": DATA["concept/"],
    "link": DATA["link/"],
    "overlap": DATA["overlap/"],
    "field": DATA["field/"],
}

#: Prefixes for showing IRIs: kg's and the W3C vocabularies its output and shapes use.
_SHOWN = sorted(
    {
        **{k: str(v) for k, v in PREFIXES.items()},
        "rdf": str(RDF),
        "rdfs": str(RDFS),
        "owl": str(OWL),
        "sh": str(SH),
    }.items(),
    key=lambda kv: -len(kv[1]),
)
_LOCAL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?|")


def compact(iri: str) -> str:
    """``paper:p-1`` for a kg IRI, ``<iri>`` when no prefix gives a valid prefixed name.

    >>> compact("https://w3id.org/kg/ns#proposes"), compact("https://example.org/x")
    ('kg:proposes', '<https://example.org/x>')
    """
    for prefix, ns in _SHOWN:
        if iri.startswith(ns) and _LOCAL.fullmatch(iri[len(ns) :]):
            return f"{prefix}:{iri[len(ns) :]}"
    return f"<{iri}>"
