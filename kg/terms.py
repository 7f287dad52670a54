"""RDF terms both ways: pyoxigraph (kg's writer, its store and its queries) and rdflib (its API).

A build makes its triples as pyoxigraph terms, which cost a tenth of an
rdflib graph's memory and time (a graph of 4 million triples: about 2 GB and
half a minute against 7 GB and minutes); :func:`rdflib_graph` gives the same
triples as an rdflib ``Graph`` for Python users and pyshacl.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.term import Node

from kg.vocab import PREFIXES

__all__ = [
    "Terms",
    "to_oxigraph",
    "to_rdflib",
    "oxigraph_triples",
    "rdflib_graph",
    "sort_triples",
    "bound_prefixes",
    "XSD_STRING",
    "RDF_TYPE",
]

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


class Terms:
    """The IRIs of an rdflib namespace as pyoxigraph nodes, each made once.

    Names are checked by the namespace itself, so a typo in a term of a
    closed vocabulary (``KG``, ``SKOS``) still fails:

    >>> from rdflib.namespace import SKOS
    >>> Terms(SKOS).prefLabel.value
    'http://www.w3.org/2004/02/skos/core#prefLabel'
    """

    def __init__(self, namespace: Any) -> None:
        self._namespace = namespace
        self._made: dict[str, ox.NamedNode] = {}

    def __getattr__(self, name: str) -> ox.NamedNode:
        if name.startswith("_"):
            raise AttributeError(name)
        found = self[name]
        setattr(self, name, found)  # found as a plain attribute from now on
        return found

    def __getitem__(self, name: str) -> ox.NamedNode:
        found = self._made.get(name)
        if found is None:
            namespace = self._namespace
            iri = namespace[name] if isinstance(namespace, Namespace) else getattr(namespace, name)
            found = self._made[name] = ox.NamedNode(str(iri))
        return found


def to_oxigraph(node: Node) -> Any:
    """An rdflib term as a pyoxigraph term."""
    if isinstance(node, URIRef):
        return ox.NamedNode(str(node))
    if isinstance(node, BNode):
        return ox.BlankNode(str(node))
    if isinstance(node, Literal):
        if node.language:
            return ox.Literal(str(node), language=node.language)
        if node.datatype:
            return ox.Literal(str(node), datatype=ox.NamedNode(str(node.datatype)))
        return ox.Literal(str(node))
    raise TypeError(f"not an RDF term: {node!r}")


def to_rdflib(term: Any) -> Node:
    """A pyoxigraph term as an rdflib term (``xsd:string`` literals plain, as rdflib has them)."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if term.language:
        return Literal(term.value, lang=term.language)
    if term.datatype.value == XSD_STRING:
        return Literal(term.value)
    return Literal(term.value, datatype=URIRef(term.datatype.value))


def oxigraph_triples(g: Graph) -> Iterator[ox.Triple]:
    """An rdflib graph's triples as pyoxigraph triples."""
    named: dict[URIRef, ox.NamedNode] = {}

    def term(node: Node) -> Any:
        if isinstance(node, URIRef):
            found = named.get(node)
            if found is None:
                found = named[node] = ox.NamedNode(str(node))
            return found
        return to_oxigraph(node)

    for s, p, o in g:
        yield ox.Triple(term(s), term(p), term(o))


def rdflib_graph(triples: Iterable[ox.Triple]) -> Graph:
    """pyoxigraph triples as an rdflib graph, with kg's prefixes bound."""
    g = Graph()
    for prefix, ns in PREFIXES.items():
        g.bind(prefix, ns, override=True)
    named: dict[str, URIRef] = {}

    def term(node: Any) -> Node:
        if isinstance(node, ox.NamedNode):
            found = named.get(node.value)
            if found is None:
                found = named[node.value] = URIRef(node.value)
            return found
        return to_rdflib(node)

    for t in triples:
        g.add((term(t.subject), term(t.predicate), term(t.object)))
    return g


def sort_triples(triples: Iterable[ox.Triple]) -> list[ox.Triple]:
    """Each triple once, by subject (its types first), then predicate and object: the
    order kg writes every RDF file in, so that two builds give the same bytes."""
    # Sorted subject by subject, so each subject's and predicate's text is made once and
    # the keys of only one subject's triples exist at a time (4 M triples: a third of the
    # time and no gigabytes of key strings): the order of sorting all by the full key.
    by_subject: dict[Any, list[ox.Triple]] = {}
    for t in set(triples):
        by_subject.setdefault(t.subject, []).append(t)
    out: list[ox.Triple] = []
    for subject in sorted(by_subject, key=str):
        group = by_subject[subject]
        if len(group) > 1:
            group.sort(key=_in_subject)
        out.extend(group)
    return out


def _in_subject(t: ox.Triple) -> tuple[bool, str, str]:
    return (*_predicate_key(t.predicate), str(t.object))


@lru_cache(maxsize=4096)
def _predicate_key(p: ox.NamedNode) -> tuple[bool, str]:
    return (p.value != RDF_TYPE, str(p))


@lru_cache(maxsize=1)
def bound_prefixes() -> tuple[tuple[str, str], ...]:
    """The prefixes of a graph kg writes: rdflib's core ones and kg's, sorted."""
    g = rdflib_graph(())
    return tuple(sorted((prefix, str(ns)) for prefix, ns in g.namespaces() if prefix))
