"""The ontology contract: kg/vocab.py and ontology/kg.ttl declare the same terms,
and every kg: term a build writes is declared."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import OWL, RDF, RDFS, Graph, URIRef
from rdflib.namespace import DCTERMS, PROV, SKOS

from kg.graph import Provenance, paper_labels, to_rdf
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


def test_every_term_has_a_label_a_comment_and_properties_a_domain_and_range(ontology):
    for name in declared(ontology):
        term = KG[name]
        assert ontology.value(term, RDFS.label) is not None, name
        assert ontology.value(term, RDFS.comment) is not None, name
        if (term, RDF.type, OWL.ObjectProperty) in ontology or (
            term,
            RDF.type,
            OWL.DatatypeProperty,
        ) in ontology:
            assert ontology.value(term, RDFS.domain) is not None, name
            assert ontology.value(term, RDFS.range) is not None, name


def test_alignment_with_schema_skos_and_prov(ontology):
    schema = URIRef("https://schema.org/")
    assert (KG.Paper, RDFS.subClassOf, URIRef(f"{schema}ScholarlyArticle")) in ontology
    assert (KG.mentionsConcept, RDFS.subPropertyOf, DCTERMS.subject) in ontology
    assert (KG.Build, RDFS.subClassOf, PROV.Activity) in ontology
    assert (KG.KnowledgeGraph, RDFS.subClassOf, PROV.Entity) in ontology
    assert (KG.concepts, RDF.type, SKOS.ConceptScheme) in ontology


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
    provenance = Provenance(
        "0.0", "model", "0" * 64, (("in.txt", "1" * 64),), ("tax.ttl", "2" * 64), (("a", 1),)
    )
    out = to_rdf(kg, provenance)
    used = {
        str(t)[len(KG_NS) :]
        for triple in out
        for t in triple
        if isinstance(t, URIRef) and str(t).startswith(KG_NS)
    }
    assert used, "the output uses kg: terms"
    assert used <= declared(ontology)


def test_the_areas_fields_map_to_carry_their_labels():
    taxonomy = load_taxonomy()
    kg = KnowledgeGraph((), (), (), {}, taxonomy)
    g = to_rdf(kg)
    targets = {o for r in ("closeMatch", "broadMatch") for o in g.objects(None, SKOS[r])}
    targets = {t for t in targets if (t, SKOS.inScheme, None) not in g}  # not fields
    assert len(targets) == len(taxonomy.targets) > 10
    for target in targets:
        assert str(target) in taxonomy.targets
        assert str(g.value(target, SKOS.prefLabel)) == taxonomy.targets[str(target)]
