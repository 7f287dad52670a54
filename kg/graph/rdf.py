"""The hand-off record as RDF under kg's ontology: the one place that writes triples.

What a graph holds (``ontology/kg.ttl`` defines every ``kg:`` term,
``ontology/shapes.ttl`` states what each node must carry):

- **papers**: ``kg:Paper`` and ``schema:ScholarlyArticle`` with DCTERMS
  metadata; kg's id and each identifier of another system (``doi:10.1145/…``)
  as ``dcterms:identifier``, the identifiers' resolvable IRIs
  (``https://doi.org/…``) as ``schema:sameAs``, the source's link as
  ``schema:url``; each person who wrote it ``schema:author``, a
  ``schema:Person`` with one IRI per name however written (each form a
  ``schema:name``); its venue a ``kg:Venue`` (``schema:isPartOf``); each
  author a ``dcterms:Agent`` node of that paper;
- **concepts**: methods and problems as SKOS concepts of the scheme
  ``kg:concepts`` (``skos:broader`` between them, ``skos:broadMatch`` to a
  field); fields as the taxonomy's own SKOS concepts, in its scheme, with their
  mappings and the labels of the concepts they map to (the ICLR areas);
- **links**: the direct triple (``paper kg:proposes concept``) and a
  ``kg:ConceptLink`` node with its confidence and evidence;
- **shared-concept edges**: ``kg:sharesConceptWith`` both ways and a
  ``kg:ConceptOverlap`` node with the weight and each shared concept, the
  same edges and weights as the NetworkX graph's ``shares`` edges;
- **provenance** (when given a :class:`Provenance`): the ``kg:Build``
  activity with its inputs, model, taxonomy and settings, and the graph it
  generated.

Every IRI is a function of the data (:mod:`kg.graph.iris`), never of a
counter or a clock, so the same input gives the same triples. They are made as
pyoxigraph terms (:func:`rdf_triples`), a tenth of an rdflib graph's memory and
time at scale; :func:`to_rdf` gives them as an rdflib ``Graph``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from typing import Any, Protocol
from urllib.parse import quote

import pyoxigraph as ox
from rdflib import RDF, RDFS, XSD, Graph, URIRef
from rdflib.namespace import DCTERMS, PROV, SKOS

from kg.graph.edges import explain  # the NetworkX edge's explanation, word for word
from kg.graph.iris import concept_iri, overlap_iri, paper_iri, person_iri, venue_iri
from kg.graph.provenance import Provenance
from kg.ingest import resolvable
from kg.model import Concept, Edge, Kind, KnowledgeGraph, Link, Paper, Role
from kg.taxonomy import Taxonomy
from kg.terms import Terms, rdflib_graph, sort_triples
from kg.vocab import DATA, KG, SCHEMA

__all__ = [
    "rdf_triples",
    "emit",
    "Sink",
    "to_rdf",
    "Provenance",
    "ROLE_PROPERTY",
]

_CLASS = {Kind.METHOD: "Method", Kind.PROBLEM: "Problem", Kind.FIELD: "Field"}
ROLE_PROPERTY = {
    Role.PROPOSES: KG.proposes,
    Role.USES: KG.usesMethod,
    Role.ADDRESSES: KG.addressesProblem,
    Role.IN_FIELD: KG.inField,
    Role.MENTIONS: KG.mentionsConcept,
}
#: SKOS mapping properties' inverses (the others are symmetric).
_INVERSE = {"broadMatch": "narrowMatch", "narrowMatch": "broadMatch"}
_KG, _SKOS, _RDF, _RDFS = Terms(KG), Terms(SKOS), Terms(RDF), Terms(RDFS)
_DC, _PROV, _SCHEMA, _XSD = Terms(DCTERMS), Terms(PROV), Terms(SCHEMA), Terms(XSD)
_ROLE = {role: ox.NamedNode(str(prop)) for role, prop in ROLE_PROPERTY.items()}
#: The scheme of a taxonomy whose file declares none.
_FIELDS_FALLBACK = ox.NamedNode(str(DATA["fields"]))


class Sink(Protocol):
    """Where :func:`emit` puts triples: a list being made, or a writer that spills them."""

    def add(self, triple: tuple[ox.NamedNode, ox.NamedNode, Any], /) -> None: ...


class _Triples(list[ox.Triple]):
    """The triples of a graph being made, added as rdflib's ``Graph.add`` takes them."""

    def add(self, triple: tuple[ox.NamedNode, ox.NamedNode, Any], /) -> None:
        self.append(ox.Triple(*triple))


def _data(path: str) -> ox.NamedNode:
    return ox.NamedNode(f"{DATA}{path}")


def _node(iri: URIRef) -> ox.NamedNode:
    return ox.NamedNode(str(iri))


def _en(text: str) -> ox.Literal:
    return ox.Literal(text, language="en")


def to_rdf(record: KnowledgeGraph, provenance: Provenance | None = None) -> Graph:
    """:func:`rdf_triples` as an rdflib ``Graph``, with kg's prefixes bound."""
    return rdflib_graph(rdf_triples(record, provenance))


def rdf_triples(record: KnowledgeGraph, provenance: Provenance | None = None) -> list[ox.Triple]:
    """The whole knowledge graph as RDF under kg's ontology: each triple once, in the
    order every file writes them (:func:`kg.terms.sort_triples`).

    Every link appears twice over: as a direct triple (``paper kg:proposes
    concept``) for simple queries, and as a ``kg:ConceptLink`` node carrying
    the confidence and evidence sentence; every shared-concept edge likewise,
    as ``kg:sharesConceptWith`` and as a ``kg:ConceptOverlap`` node.
    """
    g = _Triples()
    emit(record, provenance, g)
    return sort_triples(g)


def emit(record: KnowledgeGraph, provenance: Provenance | None, g: Sink) -> None:
    """Add every triple of :func:`rdf_triples` to ``g``, unsorted, some of them twice.

    A large build streams them into :class:`kg.export.SortedNTriples`, which
    sorts them on disk, instead of holding millions of triples in memory.
    """
    field_iris = record.field_iris
    concepts = {c.key: c for c in record.concepts}
    iri = {c.key: _node(concept_iri(c, field_iris)) for c in record.concepts}
    _add_scheme(g, record)
    _add_taxonomy(g, record.taxonomy)
    for p in record.papers:
        _add_paper(g, p, record.labels[p.id])
    for c in record.concepts:
        _add_concept(g, c, concepts, iri)
    for link in record.links:
        _add_link(g, link, iri[link.concept_key])
    label = {c.key: c.label for c in record.concepts}
    for edge in record.edges:
        _add_overlap(g, edge, label, iri)
    if provenance is not None:
        _add_provenance(g, provenance)


def _add_scheme(g: Sink, record: KnowledgeGraph) -> None:
    g.add((_KG.concepts, _RDF.type, _SKOS.ConceptScheme))
    g.add((_KG.concepts, _SKOS.prefLabel, _en("Concepts extracted by kg")))


def _field_scheme(taxonomy: Taxonomy) -> ox.NamedNode:
    return ox.NamedNode(taxonomy.scheme) if taxonomy.scheme else _FIELDS_FALLBACK


def _add_taxonomy(g: Sink, taxonomy: Taxonomy) -> None:
    """The whole field taxonomy as SKOS, with the labels of the concepts it maps to."""
    scheme = _field_scheme(taxonomy)
    g.add((scheme, _RDF.type, _SKOS.ConceptScheme))
    g.add((scheme, _SKOS.prefLabel, _en(taxonomy.scheme_label or "fields")))
    iris = {f.key: ox.NamedNode(f.iri) for f in taxonomy.fields}
    for f in taxonomy.fields:
        node = iris[f.key]
        g.add((node, _RDF.type, _SKOS.Concept))
        g.add((node, _SKOS.inScheme, scheme))
        g.add((node, _SKOS.prefLabel, _en(f.label)))
        for alt in f.alt_labels:
            g.add((node, _SKOS.altLabel, _en(alt)))
        if f.description:
            g.add((node, _SKOS.definition, _en(f.description)))
        if f.broader:
            g.add((node, _SKOS.broader, iris[f.broader]))
            g.add((iris[f.broader], _SKOS.narrower, node))
        else:
            g.add((node, _SKOS.topConceptOf, scheme))
            g.add((scheme, _SKOS.hasTopConcept, node))
        for relation, target in f.matches:
            g.add((node, _SKOS[relation], ox.NamedNode(target)))
            g.add((ox.NamedNode(target), _SKOS[_INVERSE.get(relation, relation)], node))
    for target, label in taxonomy.targets.items():
        g.add((ox.NamedNode(target), _RDF.type, _SKOS.Concept))
        g.add((ox.NamedNode(target), _SKOS.prefLabel, _en(label)))


def _add_paper(g: Sink, p: Paper, label: str) -> None:
    node = _node(paper_iri(p.id))
    g.add((node, _RDF.type, _KG.Paper))
    g.add((node, _RDF.type, _SCHEMA.ScholarlyArticle))
    g.add((node, _DC.identifier, ox.Literal(p.id)))
    for scheme, value in p.ids:
        g.add((node, _DC.identifier, ox.Literal(f"{scheme}:{value}")))
        g.add((node, _SCHEMA.sameAs, ox.NamedNode(resolvable(scheme, value))))
    if p.url:
        g.add((node, _SCHEMA.url, ox.NamedNode(p.url)))
    g.add((node, _DC.title, ox.Literal(label)))
    if not p.title:
        g.add((node, _KG.derivedTitle, ox.Literal("true", datatype=_XSD.boolean)))
    g.add((node, _DC.abstract, ox.Literal(p.abstract)))
    for position, name in enumerate(p.authors, start=1):
        author = _data(f"paper/{p.id}/author/{position}")
        g.add((node, _DC.creator, author))
        g.add((author, _RDF.type, _DC.Agent))
        g.add((author, _SCHEMA.name, ox.Literal(name)))
        g.add((author, _KG.authorPosition, ox.Literal(str(position), datatype=_XSD.integer)))
        person = person_iri(name)
        if person is not None:
            g.add((author, _KG.person, _node(person)))
            g.add((node, _SCHEMA.author, _node(person)))
            g.add((_node(person), _RDF.type, _SCHEMA.Person))
            g.add((_node(person), _SCHEMA.name, ox.Literal(name)))
    if p.year is not None:
        g.add((node, _DC.issued, ox.Literal(str(p.year), datatype=_XSD.gYear)))
    if p.venue:
        g.add((node, _KG.venue, ox.Literal(p.venue)))
        venue = venue_iri(p.venue)
        if venue is not None:
            g.add((node, _SCHEMA.isPartOf, _node(venue)))
            g.add((_node(venue), _RDF.type, _KG.Venue))
            g.add((_node(venue), _SCHEMA.name, ox.Literal(p.venue)))
    for keyword in p.keywords:
        g.add((node, _SCHEMA.keywords, ox.Literal(keyword)))
    for source in (p.source, *p.other_sources):
        if source:
            g.add((node, _KG.source, ox.Literal(source)))


def _add_concept(
    g: Sink, c: Concept, concepts: Mapping[str, Concept], iri: Mapping[str, ox.NamedNode]
) -> None:
    """A method or problem as a SKOS concept of ``kg:concepts`` with its broader concepts.

    Fields keep the taxonomy's labels, scheme and hierarchy (written with it);
    a concept under a field says so with ``skos:broadMatch``, SKOS's link to
    a concept of another scheme ("Thompson Sampling" under bandits).
    """
    node = iri[c.key]
    g.add((node, _RDF.type, _KG[_CLASS[c.kind]]))
    g.add((node, _RDF.type, _SKOS.Concept))
    if c.kind is Kind.FIELD:
        return
    g.add((node, _SKOS.prefLabel, _en(c.label)))
    for alt in c.alt_labels:
        g.add((node, _SKOS.altLabel, _en(alt)))
    g.add((node, _SKOS.inScheme, _KG.concepts))
    top = True
    for key in c.broader:
        target = iri[key]
        if concepts[key].kind is Kind.FIELD:
            g.add((node, _SKOS.broadMatch, target))
            g.add((target, _SKOS.narrowMatch, node))
        else:
            top = False
            g.add((node, _SKOS.broader, target))
            g.add((target, _SKOS.narrower, node))
    if top:
        g.add((node, _SKOS.topConceptOf, _KG.concepts))
        g.add((_KG.concepts, _SKOS.hasTopConcept, node))


def _add_link(g: Sink, link: Link, target: ox.NamedNode) -> None:
    paper = _node(paper_iri(link.paper_id))
    prop = _ROLE[link.role]
    g.add((paper, prop, target))
    node = _data(f"link/{link.paper_id}/{link.concept_key}")
    g.add((node, _RDF.type, _KG.ConceptLink))
    g.add((node, _KG.paper, paper))
    g.add((node, _KG.concept, target))
    g.add((node, _KG.role, prop))
    g.add((node, _KG.confidence, _decimal(link.score)))
    g.add((node, _KG.evidence, ox.Literal(link.sentence)))
    g.add((node, _PROV.wasAttributedTo, _KG.extractor))


def _add_overlap(
    g: Sink, edge: Edge, label: Mapping[str, str], iri: Mapping[str, ox.NamedNode]
) -> None:
    a, b = _node(paper_iri(edge.a)), _node(paper_iri(edge.b))
    g.add((a, _KG.sharesConceptWith, b))
    g.add((b, _KG.sharesConceptWith, a))
    node = _node(overlap_iri(edge.a, edge.b))
    g.add((node, _RDF.type, _KG.ConceptOverlap))
    g.add((node, _KG.firstPaper, a))
    g.add((node, _KG.secondPaper, b))
    g.add((node, _KG.weight, _decimal(edge.weight)))
    g.add((node, _KG.explanation, ox.Literal(explain(edge.shared, label))))
    for s in edge.shared:
        # The most numerous records of a graph, so written short: a paper's concept is
        # named only where it is not the shared concept itself (graph-model.md).
        shared = _data(f"overlap/{edge.a}/{edge.b}/{s.concept_key}")
        g.add((node, _KG.sharedConcept, shared))
        g.add((shared, _RDF.type, _KG.SharedConcept))
        g.add((shared, _KG.concept, iri[s.concept_key]))
        g.add((shared, _KG.how, ox.Literal(s.how.value)))
        g.add((shared, _KG.weight, _decimal(s.weight)))
        for prop, via in zip((_KG.viaFirst, _KG.viaSecond), s.via, strict=True):
            if via and via != s.concept_key:
                g.add((shared, prop, iri[via]))


def _add_provenance(g: Sink, prov: Provenance) -> None:
    """The build as a ``prov:Activity`` that used its inputs and generated the graph."""
    build_id = prov.build_id
    build, graph = _data(f"build/{build_id}"), _data(f"graph/{build_id}")
    software = _data(f"software/kg/{quote(prov.kg_version)}")
    g.add((graph, _RDF.type, _KG.KnowledgeGraph))
    g.add((graph, _RDF.type, _PROV.Entity))
    g.add((graph, _PROV.wasGeneratedBy, build))
    g.add((graph, _PROV.wasAttributedTo, software))
    if prov.title:
        g.add((graph, _DC.title, ox.Literal(prov.title)))
    g.add((build, _RDF.type, _KG.Build))
    g.add((build, _RDF.type, _PROV.Activity))
    g.add((build, _RDFS.label, ox.Literal(f"kg build {build_id}")))
    g.add((build, _PROV.wasAssociatedWith, software))
    g.add((build, _PROV.wasAssociatedWith, _KG.extractor))
    if prov.generated_at is not None:
        at = prov.generated_at.astimezone(UTC).replace(microsecond=0)
        stamp = ox.Literal(at.isoformat().replace("+00:00", "Z"), datatype=_XSD.dateTime)
        g.add((graph, _PROV.generatedAtTime, stamp))
        g.add((build, _PROV.endedAtTime, stamp))
    g.add((software, _RDF.type, _PROV.SoftwareAgent))
    g.add((software, _RDF.type, _SCHEMA.SoftwareApplication))
    g.add((software, _RDFS.label, ox.Literal(f"kg {prov.kg_version}")))
    g.add((software, _SCHEMA.softwareVersion, ox.Literal(prov.kg_version)))
    g.add((_KG.extractor, _RDF.type, _PROV.SoftwareAgent))
    g.add((_KG.extractor, _PROV.actedOnBehalfOf, software))
    model = _data(f"model/{prov.model_sha256 or quote(prov.model, safe='')}")
    g.add((build, _PROV.used, model))
    g.add((model, _RDF.type, _PROV.Entity))
    g.add((model, _RDFS.label, ox.Literal(prov.model)))
    if prov.model_sha256:
        g.add((model, _KG.sha256, ox.Literal(prov.model_sha256)))
    used = list(prov.inputs) + ([prov.taxonomy] if prov.taxonomy else [])
    for index, (path, digest) in enumerate(used):
        entity = _data(f"file/{digest}")
        g.add((build, _PROV.used, entity))
        g.add((entity, _RDF.type, _PROV.Entity))
        g.add((entity, _KG.source, ox.Literal(path)))
        g.add((entity, _KG.sha256, ox.Literal(digest)))
        kind = "input file" if index < len(prov.inputs) else "field taxonomy"
        g.add((entity, _RDFS.label, ox.Literal(kind)))
    for name, value in prov.settings:
        setting = _data(f"build/{build_id}/setting/{quote(name, safe='')}")
        g.add((build, _KG.setting, setting))
        g.add((setting, _RDF.type, _KG.Setting))
        g.add((setting, _RDFS.label, ox.Literal(name)))
        g.add((setting, _RDF.value, _setting_value(value)))


def _setting_value(value: bool | int | float | str) -> ox.Literal:
    if isinstance(value, bool):
        return ox.Literal(str(value).lower(), datatype=_XSD.boolean)
    if isinstance(value, int):
        return ox.Literal(str(value), datatype=_XSD.integer)
    if isinstance(value, float):
        return ox.Literal(repr(value), datatype=_XSD.double)
    return ox.Literal(str(value))


def _decimal(value: float) -> ox.Literal:
    return ox.Literal(f"{value:.4f}", datatype=_XSD.decimal)
