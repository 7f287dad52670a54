"""The hand-off record as RDF under kg's ontology: the one place that writes triples.

What a graph holds (``ontology/kg.ttl`` defines every ``kg:`` term,
``ontology/shapes.ttl`` states what each node must carry):

- **papers**: ``kg:Paper`` and ``schema:ScholarlyArticle`` with DCTERMS
  metadata; each author a ``dcterms:Agent`` node of that paper;
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

Every IRI is a function of the data, never of a counter or a clock, so the
same input gives the same triples.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from urllib.parse import quote

from rdflib import RDF, RDFS, XSD, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, SKOS

from kg.graph.provenance import Provenance
from kg.model import Concept, Edge, Kind, KnowledgeGraph, Link, Paper, Role
from kg.taxonomy import Taxonomy
from kg.vocab import DATA, KG, PREFIXES, SCHEMA

__all__ = [
    "to_rdf",
    "paper_iri",
    "concept_iri",
    "overlap_iri",
    "Provenance",
    "ROLE_PROPERTY",
]

_CLASS = {Kind.METHOD: KG.Method, Kind.PROBLEM: KG.Problem, Kind.FIELD: KG.Field}
ROLE_PROPERTY = {
    Role.PROPOSES: KG.proposes,
    Role.USES: KG.usesMethod,
    Role.ADDRESSES: KG.addressesProblem,
    Role.IN_FIELD: KG.inField,
    Role.MENTIONS: KG.mentionsConcept,
}
#: SKOS mapping properties' inverses (the others are symmetric).
_INVERSE = {"broadMatch": "narrowMatch", "narrowMatch": "broadMatch"}
#: The scheme of a taxonomy whose file declares none.
_FIELDS_FALLBACK = DATA["fields"]


def paper_iri(paper_id: str) -> URIRef:
    return DATA[f"paper/{paper_id}"]


def concept_iri(concept: Concept, field_iris: Mapping[str, str]) -> URIRef:
    if concept.kind is Kind.FIELD and concept.key in field_iris:
        return URIRef(field_iris[concept.key])
    return DATA[f"concept/{concept.key}"]


def overlap_iri(a: str, b: str) -> URIRef:
    """The overlap node of papers ``a < b``."""
    return DATA[f"overlap/{a}/{b}"]


def to_rdf(kg: KnowledgeGraph, provenance: Provenance | None = None) -> Graph:
    """The whole knowledge graph as RDF under kg's ontology.

    Every link appears twice over: as a direct triple (``paper kg:proposes
    concept``) for simple queries, and as a ``kg:ConceptLink`` node carrying
    the confidence and evidence sentence; every shared-concept edge likewise,
    as ``kg:sharesConceptWith`` and as a ``kg:ConceptOverlap`` node.
    """
    g = Graph()
    for prefix, ns in PREFIXES.items():
        g.bind(prefix, ns, override=True)
    field_iris = kg.field_iris
    concepts = {c.key: c for c in kg.concepts}
    iri = {c.key: concept_iri(c, field_iris) for c in kg.concepts}
    _add_scheme(g, kg)
    _add_taxonomy(g, kg.taxonomy)
    for p in kg.papers:
        _add_paper(g, p, kg.labels[p.id])
    for c in kg.concepts:
        _add_concept(g, c, concepts, iri)
    for link in kg.links:
        _add_link(g, link, iri[link.concept_key])
    label = {c.key: c.label for c in kg.concepts}
    for edge in kg.edges:
        _add_overlap(g, edge, label, iri)
    if provenance is not None:
        _add_provenance(g, provenance)
    return g


def _add_scheme(g: Graph, kg: KnowledgeGraph) -> None:
    g.add((KG.concepts, RDF.type, SKOS.ConceptScheme))
    g.add((KG.concepts, SKOS.prefLabel, Literal("Concepts extracted by kg", lang="en")))


def _field_scheme(taxonomy: Taxonomy) -> URIRef:
    return URIRef(taxonomy.scheme) if taxonomy.scheme else _FIELDS_FALLBACK


def _add_taxonomy(g: Graph, taxonomy: Taxonomy) -> None:
    """The whole field taxonomy as SKOS, with the labels of the concepts it maps to."""
    scheme = _field_scheme(taxonomy)
    g.add((scheme, RDF.type, SKOS.ConceptScheme))
    g.add((scheme, SKOS.prefLabel, Literal(taxonomy.scheme_label or "fields", lang="en")))
    iris = {f.key: URIRef(f.iri) for f in taxonomy.fields}
    for f in taxonomy.fields:
        node = iris[f.key]
        g.add((node, RDF.type, SKOS.Concept))
        g.add((node, SKOS.inScheme, scheme))
        g.add((node, SKOS.prefLabel, Literal(f.label, lang="en")))
        for alt in f.alt_labels:
            g.add((node, SKOS.altLabel, Literal(alt, lang="en")))
        if f.description:
            g.add((node, SKOS.definition, Literal(f.description, lang="en")))
        if f.broader:
            g.add((node, SKOS.broader, iris[f.broader]))
            g.add((iris[f.broader], SKOS.narrower, node))
        else:
            g.add((node, SKOS.topConceptOf, scheme))
            g.add((scheme, SKOS.hasTopConcept, node))
        for relation, target in f.matches:
            g.add((node, SKOS[relation], URIRef(target)))
            g.add((URIRef(target), SKOS[_INVERSE.get(relation, relation)], node))
    for target, label in taxonomy.targets.items():
        g.add((URIRef(target), RDF.type, SKOS.Concept))
        g.add((URIRef(target), SKOS.prefLabel, Literal(label, lang="en")))


def _add_paper(g: Graph, p: Paper, label: str) -> None:
    node = paper_iri(p.id)
    g.add((node, RDF.type, KG.Paper))
    g.add((node, RDF.type, SCHEMA.ScholarlyArticle))
    g.add((node, DCTERMS.identifier, Literal(p.id)))
    g.add((node, DCTERMS.title, Literal(label)))
    if not p.title:
        g.add((node, KG.derivedTitle, Literal(True)))
    g.add((node, DCTERMS.abstract, Literal(p.abstract)))
    for position, name in enumerate(p.authors, start=1):
        author = DATA[f"paper/{p.id}/author/{position}"]
        g.add((node, DCTERMS.creator, author))
        g.add((author, RDF.type, DCTERMS.Agent))
        g.add((author, RDF.type, SCHEMA.Person))
        g.add((author, SCHEMA.name, Literal(name)))
        g.add((author, KG.authorPosition, Literal(position, datatype=XSD.positiveInteger)))
    if p.year is not None:
        g.add((node, DCTERMS.issued, Literal(str(p.year), datatype=XSD.gYear)))
    if p.venue:
        g.add((node, KG.venue, Literal(p.venue)))
    for keyword in p.keywords:
        g.add((node, SCHEMA.keywords, Literal(keyword)))
    if p.source:
        g.add((node, KG.source, Literal(p.source)))


def _add_concept(
    g: Graph, c: Concept, concepts: Mapping[str, Concept], iri: Mapping[str, URIRef]
) -> None:
    """A method or problem as a SKOS concept of ``kg:concepts`` with its broader concepts.

    Fields keep the taxonomy's labels, scheme and hierarchy (written with it);
    a concept under a field says so with ``skos:broadMatch``, SKOS's link to
    a concept of another scheme ("Thompson Sampling" under bandits).
    """
    node = iri[c.key]
    g.add((node, RDF.type, _CLASS[c.kind]))
    g.add((node, RDF.type, SKOS.Concept))
    if c.kind is Kind.FIELD:
        return
    g.add((node, SKOS.prefLabel, Literal(c.label, lang="en")))
    for alt in c.alt_labels:
        g.add((node, SKOS.altLabel, Literal(alt, lang="en")))
    g.add((node, SKOS.inScheme, KG.concepts))
    top = True
    for key in c.broader:
        target = iri[key]
        if concepts[key].kind is Kind.FIELD:
            g.add((node, SKOS.broadMatch, target))
            g.add((target, SKOS.narrowMatch, node))
        else:
            top = False
            g.add((node, SKOS.broader, target))
            g.add((target, SKOS.narrower, node))
    if top:
        g.add((node, SKOS.topConceptOf, KG.concepts))
        g.add((KG.concepts, SKOS.hasTopConcept, node))


def _add_link(g: Graph, link: Link, target: URIRef) -> None:
    paper = paper_iri(link.paper_id)
    prop = ROLE_PROPERTY[link.role]
    g.add((paper, prop, target))
    node = DATA[f"link/{link.paper_id}/{link.concept_key}"]
    g.add((node, RDF.type, KG.ConceptLink))
    g.add((node, KG.paper, paper))
    g.add((node, KG.concept, target))
    g.add((node, KG.role, prop))
    g.add((node, KG.confidence, _decimal(link.score)))
    g.add((node, KG.evidence, Literal(link.sentence)))
    g.add((node, PROV.wasAttributedTo, KG.extractor))


def _add_overlap(g: Graph, edge: Edge, label: Mapping[str, str], iri: Mapping[str, URIRef]) -> None:
    from kg.graph.networks import explain  # the NetworkX edge's explanation, word for word

    a, b = paper_iri(edge.a), paper_iri(edge.b)
    g.add((a, KG.sharesConceptWith, b))
    g.add((b, KG.sharesConceptWith, a))
    node = overlap_iri(edge.a, edge.b)
    g.add((node, RDF.type, KG.ConceptOverlap))
    g.add((node, KG.firstPaper, a))
    g.add((node, KG.secondPaper, b))
    g.add((node, KG.weight, _decimal(edge.weight)))
    g.add((node, KG.explanation, Literal(explain(edge.shared, label))))
    for s in edge.shared:
        shared = DATA[f"overlap/{edge.a}/{edge.b}/{s.concept_key}"]
        g.add((node, KG.sharedConcept, shared))
        g.add((shared, RDF.type, KG.SharedConcept))
        g.add((shared, KG.concept, iri[s.concept_key]))
        g.add((shared, KG.how, Literal(s.how.value)))
        g.add((shared, KG.weight, _decimal(s.weight)))
        first, second = s.via
        g.add((shared, KG.viaFirst, iri[first or s.concept_key]))
        g.add((shared, KG.viaSecond, iri[second or s.concept_key]))


def _add_provenance(g: Graph, prov: Provenance) -> None:
    """The build as a ``prov:Activity`` that used its inputs and generated the graph."""
    build_id = prov.build_id
    build, graph = DATA[f"build/{build_id}"], DATA[f"graph/{build_id}"]
    software = DATA[f"software/kg/{quote(prov.kg_version)}"]
    g.add((graph, RDF.type, KG.KnowledgeGraph))
    g.add((graph, RDF.type, PROV.Entity))
    g.add((graph, PROV.wasGeneratedBy, build))
    g.add((graph, PROV.wasAttributedTo, software))
    if prov.title:
        g.add((graph, DCTERMS.title, Literal(prov.title)))
    g.add((build, RDF.type, KG.Build))
    g.add((build, RDF.type, PROV.Activity))
    g.add((build, RDFS.label, Literal(f"kg build {build_id}")))
    g.add((build, PROV.wasAssociatedWith, software))
    g.add((build, PROV.wasAssociatedWith, KG.extractor))
    if prov.generated_at is not None:
        at = prov.generated_at.astimezone(UTC).replace(microsecond=0)
        stamp = Literal(at.isoformat().replace("+00:00", "Z"), datatype=XSD.dateTime)
        g.add((graph, PROV.generatedAtTime, stamp))
        g.add((build, PROV.endedAtTime, stamp))
    g.add((software, RDF.type, PROV.SoftwareAgent))
    g.add((software, RDF.type, SCHEMA.SoftwareApplication))
    g.add((software, RDFS.label, Literal(f"kg {prov.kg_version}")))
    g.add((software, SCHEMA.softwareVersion, Literal(prov.kg_version)))
    g.add((KG.extractor, RDF.type, PROV.SoftwareAgent))
    g.add((KG.extractor, PROV.actedOnBehalfOf, software))
    model = DATA[f"model/{prov.model_sha256 or quote(prov.model, safe='')}"]
    g.add((build, PROV.used, model))
    g.add((model, RDF.type, PROV.Entity))
    g.add((model, RDFS.label, Literal(prov.model)))
    if prov.model_sha256:
        g.add((model, KG.sha256, Literal(prov.model_sha256)))
    used = list(prov.inputs) + ([prov.taxonomy] if prov.taxonomy else [])
    for index, (path, digest) in enumerate(used):
        entity = DATA[f"file/{digest}"]
        g.add((build, PROV.used, entity))
        g.add((entity, RDF.type, PROV.Entity))
        g.add((entity, KG.source, Literal(path)))
        g.add((entity, KG.sha256, Literal(digest)))
        kind = "input file" if index < len(prov.inputs) else "field taxonomy"
        g.add((entity, RDFS.label, Literal(kind)))
    for name, value in prov.settings:
        setting = DATA[f"build/{build_id}/setting/{quote(name, safe='')}"]
        g.add((build, KG.setting, setting))
        g.add((setting, RDF.type, KG.Setting))
        g.add((setting, RDFS.label, Literal(name)))
        g.add((setting, RDF.value, _setting_value(value)))


def _setting_value(value: bool | int | float | str) -> Literal:
    if isinstance(value, (bool, int)):
        return Literal(value)
    if isinstance(value, float):
        return Literal(repr(value), datatype=XSD.double)
    return Literal(str(value))


def _decimal(value: float) -> Literal:
    return Literal(f"{value:.4f}", datatype=XSD.decimal)
