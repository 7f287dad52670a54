"""kg's RDF vocabulary as code: a typo in a term fails at import, not in the output.

Mirrors ``ontology/kg.ttl`` term for term; ``tests/test_ontology.py`` checks
that every term here is declared there and vice versa.
"""

from __future__ import annotations

from rdflib import Namespace, URIRef
from rdflib.namespace import DCTERMS, PROV, SKOS, XSD, DefinedNamespace

__all__ = ["KG", "KG_NS", "DATA", "ONTOLOGY_IRI", "SCHEMA", "PREFIXES"]

ONTOLOGY_IRI = URIRef("https://w3id.org/kg/ns")
KG_NS = "https://w3id.org/kg/ns#"
DATA = Namespace("https://w3id.org/kg/")  # papers, concepts and links: DATA["paper/<id>"]


class KG(DefinedNamespace):
    """Terms of ``ontology/kg.ttl``."""

    _NS = Namespace(KG_NS)
    _fail = True

    # Classes
    Paper: URIRef  # a research paper
    Concept: URIRef  # canonical concept, subclass of skos:Concept
    Method: URIRef  # algorithm, model, technique or framework
    Problem: URIRef  # problem, task or challenge
    Field: URIRef  # research area from a SKOS taxonomy
    ConceptLink: URIRef  # a paper-concept link with role, confidence, evidence

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
    concept: URIRef
    role: URIRef
    confidence: URIRef
    evidence: URIRef

    # Paper metadata
    venue: URIRef
    derivedTitle: URIRef
    source: URIRef

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
    "field": DATA["field/"],
}
