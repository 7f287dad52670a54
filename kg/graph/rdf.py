"""The hand-off record as RDF under kg's ontology: the one place that writes triples."""

from __future__ import annotations

from collections.abc import Mapping

from rdflib import RDF, XSD, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, SKOS

from kg.model import Concept, Kind, KnowledgeGraph, Link, Paper, Role
from kg.taxonomy import Taxonomy
from kg.vocab import DATA, KG, PREFIXES, SCHEMA

__all__ = ["to_rdf", "paper_iri", "concept_iri"]

_CLASS = {Kind.METHOD: KG.Method, Kind.PROBLEM: KG.Problem, Kind.FIELD: KG.Field}
_PROPERTY = {
    Role.PROPOSES: KG.proposes,
    Role.USES: KG.usesMethod,
    Role.ADDRESSES: KG.addressesProblem,
    Role.IN_FIELD: KG.inField,
    Role.MENTIONS: KG.mentionsConcept,
}


def paper_iri(paper_id: str) -> URIRef:
    return DATA[f"paper/{paper_id}"]


def concept_iri(concept: Concept, field_iris: Mapping[str, str]) -> URIRef:
    if concept.kind is Kind.FIELD and concept.key in field_iris:
        return URIRef(field_iris[concept.key])
    return DATA[f"concept/{concept.key}"]


def to_rdf(kg: KnowledgeGraph) -> Graph:
    """The whole knowledge graph as RDF under kg's ontology.

    Every link appears twice over: as a direct triple (``paper kg:proposes
    concept``) for simple queries, and as a ``kg:ConceptLink`` node carrying
    the confidence and evidence sentence.
    """
    g = Graph()
    for prefix, ns in PREFIXES.items():
        g.bind(prefix, ns, override=True)
    g.add((KG.concepts, RDF.type, SKOS.ConceptScheme))
    _add_taxonomy(g, kg.taxonomy)
    for p in kg.papers:
        _add_paper(g, p, kg.labels[p.id])
    field_iris = kg.field_iris
    concepts = {c.key: c for c in kg.concepts}
    for c in kg.concepts:
        _add_concept(g, c, field_iris)
        _add_broader(g, c, concepts, field_iris)
    for link in kg.links:
        _add_link(g, link, concepts[link.concept_key], field_iris)
    for edge in kg.edges:
        a, b = paper_iri(edge.a), paper_iri(edge.b)
        g.add((a, KG.sharesConceptWith, b))
        g.add((b, KG.sharesConceptWith, a))
    return g


def _add_taxonomy(g: Graph, taxonomy: Taxonomy) -> None:
    iris = {f.key: URIRef(f.iri) for f in taxonomy.fields}
    for f in taxonomy.fields:
        node = iris[f.key]
        g.add((node, RDF.type, SKOS.Concept))
        g.add((node, SKOS.prefLabel, Literal(f.label, lang="en")))
        for alt in f.alt_labels:
            g.add((node, SKOS.altLabel, Literal(alt, lang="en")))
        if f.description:
            g.add((node, SKOS.definition, Literal(f.description, lang="en")))
        if f.broader:
            g.add((node, SKOS.broader, iris[f.broader]))
            g.add((iris[f.broader], SKOS.narrower, node))
        for relation, target in f.matches:
            g.add((node, SKOS[relation], URIRef(target)))


def _add_paper(g: Graph, p: Paper, label: str) -> None:
    node = paper_iri(p.id)
    g.add((node, RDF.type, KG.Paper))
    g.add((node, DCTERMS.identifier, Literal(p.id)))
    g.add((node, DCTERMS.title, Literal(label)))
    if not p.title:
        g.add((node, KG.derivedTitle, Literal(True)))
    g.add((node, DCTERMS.abstract, Literal(p.abstract)))
    for name in p.authors:
        g.add((node, DCTERMS.creator, Literal(name)))
    if p.year is not None:
        g.add((node, DCTERMS.issued, Literal(str(p.year), datatype=XSD.gYear)))
    if p.venue:
        g.add((node, KG.venue, Literal(p.venue)))
    for keyword in p.keywords:
        g.add((node, SCHEMA.keywords, Literal(keyword)))
    if p.source:
        g.add((node, KG.source, Literal(p.source)))


def _add_concept(g: Graph, c: Concept, field_iris: Mapping[str, str]) -> None:
    node = concept_iri(c, field_iris)
    g.add((node, RDF.type, _CLASS[c.kind]))
    g.add((node, RDF.type, SKOS.Concept))
    if c.kind is Kind.FIELD:
        return  # label, hierarchy and mappings come from the taxonomy
    g.add((node, SKOS.prefLabel, Literal(c.label, lang="en")))
    for alt in c.alt_labels:
        g.add((node, SKOS.altLabel, Literal(alt, lang="en")))
    g.add((node, SKOS.inScheme, KG.concepts))


def _add_broader(
    g: Graph, c: Concept, concepts: Mapping[str, Concept], field_iris: Mapping[str, str]
) -> None:
    """``skos:broader`` within kg's concepts; ``skos:broadMatch`` to a field of the taxonomy.

    Fields are another concept scheme, so SKOS's mapping property says that a
    concept lies under one ("Thompson Sampling" under bandits).
    """
    if c.kind is Kind.FIELD:
        return  # the taxonomy's own hierarchy is written with it
    node = concept_iri(c, field_iris)
    for key in c.broader:
        target = concepts[key]
        if target.kind is Kind.FIELD:
            g.add((node, SKOS.broadMatch, concept_iri(target, field_iris)))
        else:
            g.add((node, SKOS.broader, concept_iri(target, field_iris)))
            g.add((concept_iri(target, field_iris), SKOS.narrower, node))


def _add_link(g: Graph, link: Link, concept: Concept, field_iris: Mapping[str, str]) -> None:
    paper, target = paper_iri(link.paper_id), concept_iri(concept, field_iris)
    prop = _PROPERTY[link.role]
    g.add((paper, prop, target))
    node = DATA[f"link/{link.paper_id}/{concept.key}"]
    g.add((node, RDF.type, KG.ConceptLink))
    g.add((node, KG.paper, paper))
    g.add((node, KG.concept, target))
    g.add((node, KG.role, prop))
    g.add((node, KG.confidence, Literal(f"{link.score:.4f}", datatype=XSD.decimal)))
    g.add((node, KG.evidence, Literal(link.sentence)))
    g.add((node, PROV.wasAttributedTo, KG.extractor))
