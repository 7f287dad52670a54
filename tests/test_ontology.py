"""The ontology contract: kg/vocab.py and ontology/kg.ttl declare the same terms,
and every kg: term a build writes is declared."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import OWL, RDF, RDFS, Graph, URIRef
from rdflib.namespace import SKOS

from kg.graph import paper_labels, to_rdf
from kg.model import Concept, Kind, KnowledgeGraph, Link, Paper, Role
from kg.taxonomy import load_taxonomy
from kg.vocab import KG, KG_NS

ONTOLOGY = Path(__file__).resolve().parents[1] / "ontology" / "kg.ttl"
REQUIRED = {
    "Paper",
    "Concept",
    "Method",
    "Problem",
    "Field",
    "proposes",
    "usesMethod",
    "addressesProblem",
    "inField",
    "sharesConceptWith",
}


@pytest.fixture(scope="module")
def ontology() -> Graph:
    return Graph().parse(ONTOLOGY)


def declared(g: Graph) -> set[str]:
    return {str(s)[len(KG_NS) :] for s in g.subjects() if str(s).startswith(KG_NS)}


def test_code_and_ontology_declare_the_same_terms(ontology):
    in_code = {name for name in KG.__annotations__}
    assert in_code == declared(ontology)


def test_required_terms_and_their_axioms(ontology):
    assert declared(ontology) >= REQUIRED
    for cls in ("Method", "Problem", "Field"):
        assert (KG[cls], RDFS.subClassOf, KG.Concept) in ontology
    assert (KG.Concept, RDFS.subClassOf, SKOS.Concept) in ontology
    assert (KG.sharesConceptWith, RDF.type, OWL.SymmetricProperty) in ontology


def test_unknown_term_fails_loudly():
    with pytest.raises(AttributeError):
        KG.proposess  # noqa: B018


def test_every_kg_term_in_output_is_declared(ontology):
    taxonomy = load_taxonomy()
    field = taxonomy.top_level()[0]
    papers = (Paper("p1", "An abstract.", "An abstract.", venue="V", year=2026),)
    concepts = (
        Concept("m", "M", Kind.METHOD, ("em",)),
        Concept("q", "Q", Kind.PROBLEM),
        Concept(field.key, field.label, Kind.FIELD),
    )
    links = (
        Link("p1", "m", Role.PROPOSES, 0.9, "s"),
        Link("p1", "q", Role.ADDRESSES, 0.8, "s"),
        Link("p1", field.key, Role.IN_FIELD, 0.7, "s"),
    )
    kg = KnowledgeGraph(
        papers,
        concepts,
        links,
        paper_labels(papers, concepts, links),
        taxonomy,
    )
    out = to_rdf(kg)
    used = {
        str(t)[len(KG_NS) :]
        for triple in out
        for t in triple
        if isinstance(t, URIRef) and str(t).startswith(KG_NS)
    }
    assert used, "the output uses kg: terms"
    assert used <= declared(ontology)
