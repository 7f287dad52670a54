"""Where validation reads triples: an rdflib graph, a store, or a build's own triples.

The shapes are local (see the head of shapes.ttl), so a node is checked on its
:func:`neighbourhood` alone; :class:`TripleList` takes a sample's
neighbourhoods from a build's triples in whole passes.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence, Set
from typing import Any, Protocol, runtime_checkable

import pyoxigraph as ox
from rdflib import RDF, Graph
from rdflib import Literal as RDFLiteral
from rdflib.term import Node

from kg.terms import RDF_TYPE, to_oxigraph, to_rdflib
from kg.validate.shapes import read_backwards, target_classes

__all__ = ["Triple", "TripleSource", "Passes", "Selecting", "TripleList", "neighbourhood", "text"]

Triple = tuple[Node, Node, Node]
_RDF_TYPE = ox.NamedNode(RDF_TYPE)


class TripleSource(Protocol):
    """Where triples come from: an rdflib ``Graph``, or an Oxigraph store behind an adapter."""

    def triples(self, pattern: tuple[Any, Any, Any]) -> Iterable[Triple]: ...

    def __len__(self) -> int: ...


class Passes(Protocol):
    """pyoxigraph triples that can be read again and counted: a list, or a file read anew."""

    def __iter__(self) -> Iterator[ox.Triple]: ...

    def __len__(self) -> int: ...


@runtime_checkable
class Selecting(Passes, Protocol):
    """Passes that can skip what cannot match: a sorted file finds the lines asked for first
    and parses only those."""

    def select(
        self, subjects: Set[str], predicates: Set[str], objects: Set[str] | None = None
    ) -> Iterator[ox.Triple]:
        """At least the triples whose subject, as N-Triples, is among ``subjects``, or
        whose predicate is among ``predicates`` and object among ``objects`` (None: any)."""
        ...


class TripleList:
    """A build's pyoxigraph triples as a :class:`TripleSource`, read in whole passes.

    :func:`validate` takes a sample's neighbourhoods from it at once
    (:meth:`neighbourhoods`); ``full`` and ``batch`` make an rdflib graph of it.
    The triples may be a list or a file read again on each pass
    (:class:`kg.export.NTriplesFile`).
    """

    def __init__(self, triples: Passes) -> None:
        self.items = triples
        self._types: dict[Any, list[Any]] | None = None

    def __len__(self) -> int:
        return len(self.items)

    def triples(self, pattern: tuple[Any, Any, Any]) -> Iterator[Triple]:
        s, p, o = (None if t is None else to_oxigraph(t) for t in pattern)
        if s is None and p == _RDF_TYPE and o in target_classes():
            typ, cls = to_rdflib(p), to_rdflib(o)
            for subject in self._typed().get(o, []):
                yield to_rdflib(subject), typ, cls
            return
        for t in self.items:
            if s not in (None, t.subject) or p not in (None, t.predicate):
                continue
            if o is None or t.object == o:
                yield to_rdflib(t.subject), to_rdflib(t.predicate), to_rdflib(t.object)

    def _among(
        self,
        subjects: Iterable[Any],
        predicates: Iterable[Any],
        objects: Iterable[Any] | None = None,
    ) -> Iterable[ox.Triple]:
        """The triples to test for a pass: all, or what a :class:`Selecting` source keeps
        (the triples of ``subjects``, and those of ``predicates`` pointing at ``objects``,
        None: at anything)."""
        if not isinstance(self.items, Selecting):
            return self.items
        pointed = None if objects is None else {str(o) for o in objects}
        return self.items.select({str(s) for s in subjects}, {str(p) for p in predicates}, pointed)

    def _typed(self) -> dict[Any, list[Any]]:
        """Class -> the subjects typed with it (only the subjects are kept: a build has
        hundreds of thousands of typed nodes)."""
        if self._types is None:
            self._types = {}
            for t in self._among((), (_RDF_TYPE,), target_classes()):
                if t.predicate == _RDF_TYPE:
                    self._types.setdefault(t.object, []).append(t.subject)
        return self._types

    def sample(
        self, classes: Iterable[Node], size: int, key: Callable[[Any], str]
    ) -> tuple[dict[str, list[Any]], int]:
        """Target class -> the ``size`` instances ``key`` puts first, in that order, and how
        many distinct nodes the classes have: in one pass that holds only the sample, not
        every typed node (millions at 50,000 papers)."""
        wanted = {to_oxigraph(c): str(c) for c in classes}
        heaps: dict[str, list[tuple[str, Any]]] = {name: [] for name in wanted.values()}
        # A sorted file (a Selecting source) has each line once, a subject's lines in one
        # run; any other source is held in memory anyway, and may repeat a triple.
        ordered = isinstance(self.items, Selecting)
        seen: set[tuple[Any, str]] = set()
        nodes: set[Any] = set()
        total, last = 0, None
        for t in self._among((), (_RDF_TYPE,), wanted):
            name = wanted.get(t.object) if t.predicate == _RDF_TYPE else None
            if name is None:
                continue
            s = t.subject
            if ordered:
                total, last = total + (s != last), s
            elif (s, name) in seen:
                continue
            else:
                seen.add((s, name))
                nodes.add(s)
                total = len(nodes)
            heap = heaps[name]
            item = (_Reversed(key(s)), s)
            if len(heap) < size:
                heapq.heappush(heap, item)
            elif item[0] > heap[0][0]:  # its key comes before the last one kept
                heapq.heapreplace(heap, item)
        chosen = {name: [s for _, s in sorted(heap, reverse=True)] for name, heap in heaps.items()}
        return chosen, total

    def neighbourhoods(self, nodes: Iterable[Node]) -> _Picked:
        """:func:`neighbourhood` of all ``nodes`` together, in two passes over the triples."""
        seen = {to_oxigraph(n) for n in nodes}
        backward = {to_oxigraph(p) for p in read_backwards()}
        picked: list[ox.Triple] = []
        onward: set[Any] = set()
        inward: set[Any] = set()
        for t in self._among(seen, backward, seen):
            s, o = t.subject, t.object
            if s in seen:
                picked.append(t)
                if not isinstance(o, ox.Literal) and o not in seen:
                    onward.add(o)
            elif o in seen and t.predicate in backward:
                picked.append(t)
                inward.add(s)
        for t in self._among(onward | inward, ()):
            if t.predicate == _RDF_TYPE and (t.subject in onward or t.subject in inward):
                picked.append(t)
        return _Picked(picked)


class _Reversed(str):
    """A key compared the other way round: a heap of the smallest keys keeps the largest
    at its top."""

    def __lt__(self, other: str) -> bool:
        return str.__gt__(self, other)

    def __gt__(self, other: str) -> bool:
        return str.__lt__(self, other)


class _Picked:
    """The triples of a sample's neighbourhoods, indexed by subject and by object: the
    :class:`TripleSource` that :func:`neighbourhood` reads each batch from.

    Each term is made an rdflib node once, and a batch's neighbourhood is made of
    those same nodes (an rdflib graph of all the picked triples took longer to make
    than every batch's lookups in it).
    """

    def __init__(self, triples: Iterable[ox.Triple]) -> None:
        made: dict[Any, Node] = {}

        def node(term: Any) -> Node:
            found = made.get(term)
            if found is None:
                found = made[term] = to_rdflib(term)
            return found

        self.by_subject: dict[Node, list[Triple]] = {}
        self.by_object: dict[Node, list[Triple]] = {}
        for t in dict.fromkeys(triples):
            triple = (node(t.subject), node(t.predicate), node(t.object))
            self.by_subject.setdefault(triple[0], []).append(triple)
            self.by_object.setdefault(triple[2], []).append(triple)

    def __len__(self) -> int:
        return sum(len(found) for found in self.by_subject.values())

    def triples(self, pattern: tuple[Any, Any, Any]) -> Iterator[Triple]:
        s, p, o = pattern
        if s is not None:
            found = self.by_subject.get(s, [])
        elif o is not None:
            found = self.by_object.get(o, [])
        else:
            raise ValueError("a neighbourhood is read by subject or by object")
        for triple in found:  # each has the subject or object asked for
            if (p is None or triple[1] == p) and (o is None or triple[2] == o):
                yield triple


def text(node: Any) -> str:
    """A node's IRI or blank node label, as rdflib's ``str`` gives it."""
    return str(node.value)


def neighbourhood(data: TripleSource, nodes: Sequence[Node]) -> Graph:
    """What the shapes may read about ``nodes``: their triples both ways, and the types one step on.

    That is every triple of each node, every triple pointing at it by a
    property some shape reads backwards (:func:`read_backwards`), and the types
    of the nodes at the other end of those (what ``sh:class`` reads: no shape
    reads further, see the head of shapes.ttl; kg's graphs hold no
    ``rdfs:subClassOf``, which pyshacl's ``sh:class`` would follow too). A concept that 20,000
    shared-concept records point at brings only the triples a shape reads, not
    the records; a concept brings its scheme's type, not the scheme's thousands
    of ``skos:hasTopConcept``.
    """
    sub = Graph()
    seen = set(nodes)
    onward: set[Node] = set()
    inward: set[Node] = set()
    backward = read_backwards()
    for node in nodes:
        for s, p, o in data.triples((node, None, None)):
            sub.add((s, p, o))
            if not isinstance(o, RDFLiteral) and o not in seen:
                onward.add(o)
        for prop in backward:
            for s, p, o in data.triples((None, prop, node)):
                sub.add((s, p, o))
                if s not in seen:
                    inward.add(s)
    for node in onward | inward:
        for triple in data.triples((node, RDF.type, None)):
            sub.add(triple)
    return sub
