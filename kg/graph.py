"""Concepts and links -> an rdflib graph and NetworkX graphs.

:func:`to_rdf` is the one place that turns links into RDF. The NetworkX side
has a bipartite paper-concept graph (:func:`concept_graph`) and its
projection onto papers (:func:`shared_concept_graph`), whose edges carry how
many methods and problems two papers share and which ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx
from networkx.algorithms import bipartite
from rdflib import RDF, XSD, Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, PROV, SKOS

from kg.candidates import looks_like_name
from kg.fields import Taxonomy
from kg.model import Concept, Kind, Link, Paper, Role
from kg.vocab import DATA, KG

__all__ = [
    "KnowledgeGraph",
    "paper_labels",
    "to_rdf",
    "concept_graph",
    "shared_concept_graph",
    "view_graph",
    "paper_iri",
    "concept_iri",
    "PREFIXES",
]

SCHEMA = Namespace("https://schema.org/")
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
_CLASS = {Kind.METHOD: KG.Method, Kind.PROBLEM: KG.Problem, Kind.FIELD: KG.Field}
_PROPERTY = {
    Role.PROPOSES: KG.proposes,
    Role.USES: KG.usesMethod,
    Role.ADDRESSES: KG.addressesProblem,
    Role.IN_FIELD: KG.inField,
}
# Kinds whose sharing makes two papers related; a shared broad field relates too much.
SHARED_KINDS = frozenset({Kind.METHOD, Kind.PROBLEM})


@dataclass(frozen=True)
class KnowledgeGraph:
    """Everything a build knows, before it is turned into files."""

    papers: tuple[Paper, ...]
    concepts: tuple[Concept, ...]
    links: tuple[Link, ...]
    labels: Mapping[str, str]
    taxonomy: Taxonomy
    field_iris: Mapping[str, str] = field(default_factory=dict)


def paper_iri(paper_id: str) -> URIRef:
    return DATA[f"paper/{paper_id}"]


def concept_iri(concept: Concept, field_iris: Mapping[str, str]) -> URIRef:
    if concept.kind is Kind.FIELD and concept.key in field_iris:
        return URIRef(field_iris[concept.key])
    return DATA[f"concept/{concept.key}"]


def paper_labels(
    papers: Sequence[Paper], concepts: Sequence[Concept], links: Sequence[Link]
) -> dict[str, str]:
    """A human-readable label per paper: its title, else one made from its concepts.

    An untitled paper is called by the method it proposes (a name such as
    "Dual-MTP" first, else its strongest method) and its strongest problem:
    "Dual-MTP: error accumulation".
    Duplicate labels get the paper id appended so every label is unique.
    """
    by_key = {c.key: c for c in concepts}
    methods: dict[str, set[str]] = {}
    for link in links:
        if link.role.kind is Kind.METHOD:
            methods.setdefault(link.paper_id, set()).add(by_key[link.concept_key].label.casefold())
    ranked: dict[tuple[str, Kind], list[tuple[tuple[int, int, int, float], str]]] = {}
    for link in links:
        concept = by_key[link.concept_key]
        named = " " not in concept.label and looks_like_name(concept.label)
        if concept.kind is Kind.METHOD:
            # A variant is more telling than what it varies: "Clipped-SGD" over "SGD".
            pieces = set(concept.label.casefold().split("-")) - {concept.label.casefold()}
            variant = named and bool(pieces & methods[link.paper_id])
            rank = (int(link.role is Role.PROPOSES), int(named), int(variant), link.score)
        else:  # a spelled-out problem reads better in a title than an acronym
            rank = (0, int(not named), 0, link.score)
        ranked.setdefault((link.paper_id, concept.kind), []).append((rank, concept.label))
    labels = {}
    for p in papers:
        if p.title:
            labels[p.id] = p.title
            continue
        method = _best(ranked.get((p.id, Kind.METHOD), []))
        problem = _best(ranked.get((p.id, Kind.PROBLEM), []), unlike=method)
        area = _best(ranked.get((p.id, Kind.FIELD), []))
        parts = [x for x in (method, problem or area) if x]
        labels[p.id] = ": ".join(parts) if parts else _first_words(p.text)
    counts: dict[str, int] = {}
    for label in labels.values():
        counts[label] = counts.get(label, 0) + 1
    return {pid: (f"{lab} [{pid}]" if counts[lab] > 1 else lab) for pid, lab in labels.items()}


def _best(options: list[tuple[tuple[int, int, int, float], str]], unlike: str = "") -> str:
    """The top-ranked label not already part of ``unlike`` ("MTP" in "Dual-MTP")."""
    for _, label in sorted(options, key=lambda o: (tuple(-x for x in o[0]), o[1])):
        if not unlike or label.casefold() not in unlike.casefold():
            return label
    return ""


def _first_words(text: str, n: int = 8) -> str:
    words = text.split()
    return " ".join(words[:n]) + ("…" if len(words) > n else "")


def to_rdf(kg: KnowledgeGraph, shares: nx.Graph | None = None) -> Graph:
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
    concepts = {c.key: c for c in kg.concepts}
    for c in kg.concepts:
        _add_concept(g, c, kg.field_iris)
    for link in kg.links:
        _add_link(g, link, concepts[link.concept_key], kg.field_iris)
    if shares is not None:
        for u, v in shares.edges():
            a, b = paper_iri(shares.nodes[u]["id"]), paper_iri(shares.nodes[v]["id"])
            g.add((a, KG.sharesConceptWith, b))
            g.add((b, KG.sharesConceptWith, a))
    return g


def _add_taxonomy(g: Graph, taxonomy: Taxonomy) -> None:
    relations = {
        "closeMatch": SKOS.closeMatch,
        "broadMatch": SKOS.broadMatch,
        "narrowMatch": SKOS.narrowMatch,
        "exactMatch": SKOS.exactMatch,
        "relatedMatch": SKOS.relatedMatch,
    }
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
            name = str(relation).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
            if name in relations:
                g.add((node, relations[name], URIRef(target)))


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


def _node(kind: str, key: str) -> str:
    return f"{kind}:{key}"


def concept_graph(kg: KnowledgeGraph) -> nx.Graph:
    """Bipartite graph: paper and concept nodes, one edge per link.

    Paper nodes are ``"paper:<id>"`` (``bipartite=0``), concept nodes
    ``"concept:<key>"`` (``bipartite=1``); edges carry role, score, evidence.
    """
    B = nx.Graph()
    counts: dict[str, int] = {}
    for link in kg.links:
        counts[link.concept_key] = counts.get(link.concept_key, 0) + 1
    for p in kg.papers:
        B.add_node(
            _node("paper", p.id),
            bipartite=0,
            type="paper",
            id=p.id,
            label=kg.labels[p.id],
            title=p.title or kg.labels[p.id],
            derived_title=not p.title,
            abstract=p.abstract,
            year=p.year,
            venue=p.venue,
            authors=list(p.authors),
            keywords=list(p.keywords),
            iri=str(paper_iri(p.id)),
        )
    for c in kg.concepts:
        B.add_node(
            _node("concept", c.key),
            bipartite=1,
            type="concept",
            id=c.key,
            kind=c.kind.value,
            label=c.label,
            alt_labels=list(c.alt_labels),
            papers=counts.get(c.key, 0),
            iri=str(concept_iri(c, kg.field_iris)),
        )
    for link in kg.links:
        B.add_edge(
            _node("paper", link.paper_id),
            _node("concept", link.concept_key),
            type="mentions",
            role=link.role.value,
            score=link.score,
            evidence=link.sentence,
        )
    return B


def shared_concept_graph(B: nx.Graph, kinds: Iterable[Kind] = SHARED_KINDS) -> nx.Graph:
    """Papers joined by the methods and problems they share.

    A weighted bipartite projection (networkx's
    ``generic_weighted_projected_graph``) over concepts of the given kinds:
    ``weight`` is the number of shared concepts and ``shared`` lists their
    labels, sorted.

    >>> from kg.model import Kind
    >>> B = nx.Graph()
    >>> B.add_nodes_from(["paper:a", "paper:b"], type="paper", id="x")
    >>> B.add_node("concept:sgd", type="concept", kind="method", label="SGD")
    >>> B.add_edges_from([("paper:a", "concept:sgd"), ("paper:b", "concept:sgd")])
    >>> P = shared_concept_graph(B)
    >>> P.edges["paper:a", "paper:b"]["weight"], P.edges["paper:a", "paper:b"]["shared"]
    (1, ['SGD'])
    """
    wanted = {k.value for k in kinds}
    papers = sorted(n for n, d in B.nodes(data=True) if d.get("type") == "paper")
    keep = set(papers) | {
        n for n, d in B.nodes(data=True) if d.get("type") == "concept" and d["kind"] in wanted
    }
    sub = B.subgraph(keep)

    def shared(G: nx.Graph, u: str, v: str) -> int:
        return len(set(G[u]) & set(G[v]))

    P = bipartite.generic_weighted_projected_graph(sub, papers, weight_function=shared)
    for u, v, data in P.edges(data=True):
        common = set(sub[u]) & set(sub[v])
        data["type"] = "shares"
        data["shared"] = sorted(
            (B.nodes[c]["label"] for c in common), key=lambda s: (s.casefold(), s)
        )
    return P


def view_graph(B: nx.Graph, P: nx.Graph) -> nx.Graph:
    """Papers, concepts, their links and the shared-concept edges in one graph."""
    G = B.copy()
    G.add_edges_from(P.edges(data=True))
    return G
