"""kg's SHACL shapes (``ontology/shapes.ttl``), parsed once, and what validation reads of them."""

from __future__ import annotations

from functools import lru_cache

import pyoxigraph as ox
from rdflib import Graph, URIRef
from rdflib.namespace import SH

from kg.taxonomy import shipped_ontology
from kg.terms import to_oxigraph

__all__ = ["SHAPES_FILE", "shapes_graph", "read_backwards", "target_classes"]

SHAPES_FILE = shipped_ontology("shapes.ttl")


@lru_cache(maxsize=1)
def shapes_graph() -> Graph:
    """kg's shapes, parsed once."""
    return Graph().parse(SHAPES_FILE, format="turtle")


@lru_cache(maxsize=1)
def read_backwards() -> tuple[URIRef, ...]:
    """The properties kg's shapes follow backwards (``sh:inversePath``), sorted.

    The shapes read a focus node's in-triples of these properties only, so
    only those are part of its neighbourhood.
    """
    paths = set(shapes_graph().objects(None, SH.inversePath))
    properties = {p for p in paths if isinstance(p, URIRef)}
    if properties != paths:  # a path of paths would read triples the neighbourhoods leave out
        raise ValueError(f"{SHAPES_FILE.name}: an sh:inversePath that is not one property")
    return tuple(sorted(properties))


@lru_cache(maxsize=1)
def target_classes() -> frozenset[ox.NamedNode]:
    """The classes kg's shapes target, as pyoxigraph terms."""
    return frozenset(to_oxigraph(c) for c in shapes_graph().objects(None, SH.targetClass))
