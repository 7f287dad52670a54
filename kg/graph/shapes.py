"""Check a graph against kg's SHACL shapes (``ontology/shapes.ttl``) with pyshacl.

Three ways, for three sizes (pyshacl spends about half a millisecond per
focus node and property shape, so a graph of 3,700 papers takes minutes in
full):

- ``full``: one pyshacl run over the whole graph;
- ``batch``: every focus node, ``batch_size`` at a time, each batch on its
  neighbourhood only. The shapes are local (see the head of shapes.ttl), so
  the answer is the full one, in bounded memory, from an rdflib graph or an
  Oxigraph store alike;
- ``sample``: ``sample_size`` focus nodes of every target class, picked by a
  hash of their IRI (the same every time, spread over the graph), on their
  neighbourhoods. A systematic fault in kg's writer shows in every node, so a
  sample finds it; a fault in one node may need ``full`` or ``batch``. A
  build's own triples (:class:`TripleList`) are sampled in three passes over
  them, without an rdflib graph of the whole.

:func:`validate` returns a :class:`ValidationReport` whose lines name the
focus node, the path and what was expected.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence, Set
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, Protocol, runtime_checkable

import pyoxigraph as ox
from rdflib import RDF, BNode, Graph, URIRef
from rdflib import Literal as RDFLiteral
from rdflib.namespace import SH
from rdflib.term import Node

from kg.defaults import FULL_LIMIT, SAMPLE_SIZE, VALIDATE_BATCH, Validation
from kg.taxonomy import shipped_ontology
from kg.terms import RDF_TYPE, rdflib_graph, to_oxigraph, to_rdflib
from kg.vocab import compact

__all__ = [
    "SHAPES",
    "Mode",
    "TripleSource",
    "TripleList",
    "Violation",
    "ValidationReport",
    "validate",
    "neighbourhood",
    "read_backwards",
    "shapes_graph",
    "VALIDATE_BATCH",
    "chosen_mode",
]

SHAPES = shipped_ontology("shapes.ttl")
Mode = Literal["full", "batch", "sample"]

Triple = tuple[Node, Node, Node]


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
        if s is None and p == _RDF_TYPE and o in _target_classes():
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
            for t in self._among((), (_RDF_TYPE,), _target_classes()):
                if t.predicate == _RDF_TYPE:
                    self._types.setdefault(t.object, []).append(t.subject)
        return self._types

    def instances(self, classes: Iterable[Node]) -> dict[str, list[Any]]:
        """Target class -> its instances, as pyoxigraph terms (:func:`_focus_nodes`)."""
        typed = self._typed()
        out: dict[str, list[Any]] = {}
        for cls in classes:
            out[str(cls)] = sorted(set(typed.get(to_oxigraph(cls), [])), key=_text)
        return out

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
            s = t.subject
            if s in onward or (s in inward and t.predicate == _RDF_TYPE):
                picked.append(t)
        return _Picked(picked)


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


@lru_cache(maxsize=1)
def _target_classes() -> frozenset[ox.NamedNode]:
    """The classes kg's shapes target, as pyoxigraph terms."""
    return frozenset(to_oxigraph(c) for c in shapes_graph().objects(None, SH.targetClass))


def _text(node: Any) -> str:
    """A node's IRI or blank node label, as rdflib's ``str`` gives it."""
    return str(node.value)


_RDF_TYPE = ox.NamedNode(RDF_TYPE)


@dataclass(frozen=True, order=True)
class Violation:
    """One SHACL result, in words.

    Attributes:
        severity: "Violation" (the graph is refused) or "Warning".
        focus: The node that fails, compacted with kg's prefixes.
        path: The property path checked ("kg:proposes", "^kg:paper"), or "".
        expected: What the shape expects (its ``sh:message``).
        value: The offending value, or "" (a missing value has none).
    """

    severity: str
    focus: str
    path: str
    expected: str
    value: str = ""

    def __str__(self) -> str:
        where = f"{self.focus} {self.path}".rstrip()
        found = f" (found {self.value})" if self.value else ""
        return f"{where}: {self.expected}{found}"


@dataclass(frozen=True)
class ValidationReport:
    """What :func:`validate` found.

    Attributes:
        mode: How the graph was checked.
        checked: Focus nodes checked.
        total: Focus nodes in the graph (``checked < total`` for a sample).
        results: Violations first, then warnings, sorted.
    """

    mode: str
    checked: int
    total: int
    results: tuple[Violation, ...]

    @property
    def violations(self) -> tuple[Violation, ...]:
        return tuple(r for r in self.results if r.severity == "Violation")

    @property
    def warnings(self) -> tuple[Violation, ...]:
        return tuple(r for r in self.results if r.severity != "Violation")

    @property
    def conforms(self) -> bool:
        """No violation (warnings are accepted)."""
        return not self.violations

    def summary(self) -> str:
        """ "conforms (full: 1,234 of 1,234 focus nodes; 2 warnings)"."""
        verdict = "conforms" if self.conforms else f"{len(self.violations):,} violations"
        notes = f"; {len(self.warnings):,} warnings" if self.warnings else ""
        return (
            f"{verdict} ({self.mode}: {self.checked:,} of {self.total:,} focus nodes"
            f" checked against {SHAPES.name}{notes})"
        )


@lru_cache(maxsize=1)
def shapes_graph() -> Graph:
    """kg's shapes, parsed once."""
    return Graph().parse(SHAPES, format="turtle")


@lru_cache(maxsize=1)
def read_backwards() -> tuple[URIRef, ...]:
    """The properties kg's shapes follow backwards (``sh:inversePath``), sorted.

    The shapes read a focus node's in-triples of these properties only, so
    only those are part of its neighbourhood.
    """
    paths = set(shapes_graph().objects(None, SH.inversePath))
    properties = {p for p in paths if isinstance(p, URIRef)}
    if properties != paths:  # a path of paths would read triples the neighbourhoods leave out
        raise ValueError(f"{SHAPES.name}: an sh:inversePath that is not one property")
    return tuple(sorted(properties))


def chosen_mode(mode: Validation, triples: int) -> Mode:
    """The mode that checks a graph of ``triples`` triples: ``auto`` is ``full`` up to
    :data:`FULL_LIMIT`, else ``sample``."""
    if mode == "auto":
        return "full" if triples <= FULL_LIMIT else "sample"
    return mode


def validate(
    data: TripleSource,
    mode: Mode = "full",
    *,
    sample_size: int = SAMPLE_SIZE,
    batch_size: int = VALIDATE_BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> ValidationReport:
    """Check ``data`` against ``ontology/shapes.ttl``.

    Args:
        data: The graph: an rdflib ``Graph`` or a build's :class:`TripleList`
            (any mode), or any triple source (``batch`` and ``sample``: only
            neighbourhoods are read).
        mode: ``full``, ``batch`` or ``sample`` (see the module docstring).
        sample_size: Focus nodes per target class for ``sample``.
        batch_size: Focus nodes per pyshacl run for ``batch`` and ``sample``.
        progress: Called as ``progress(checked, to_check)`` after each batch.
    """
    shapes = shapes_graph()
    if isinstance(data, TripleList) and mode != "sample":
        data = rdflib_graph(data.items)  # every node is read
    targets = _focus_nodes(data, shapes)
    total = len({n for nodes in targets.values() for n in nodes})
    if mode == "full":
        if not isinstance(data, Graph):
            raise TypeError("full validation needs an rdflib Graph; use mode='batch'")
        results = _run(data, shapes, None)
        if progress:
            progress(total, total)
        return ValidationReport("full", total, total, tuple(sorted(set(results))))
    if mode == "sample":
        chosen = {c: sorted(nodes, key=_spread)[:sample_size] for c, nodes in targets.items()}
    elif mode == "batch":
        chosen = targets
    else:
        raise ValueError(f"unknown validation mode {mode!r}")
    nodes = list(dict.fromkeys(n for c in sorted(chosen) for n in chosen[c]))
    nodes = [n if isinstance(n, Node) else to_rdflib(n) for n in nodes]
    source = data.neighbourhoods(nodes) if isinstance(data, TripleList) else data
    found: set[Violation] = set()
    for start in range(0, len(nodes), batch_size):
        batch = nodes[start : start + batch_size]
        found.update(_run(neighbourhood(source, batch), shapes, batch))
        if progress:
            progress(min(start + batch_size, len(nodes)), len(nodes))
    return ValidationReport(mode, len(nodes), total, tuple(sorted(found)))


def neighbourhood(data: TripleSource, nodes: Sequence[Node]) -> Graph:
    """What the shapes may read about ``nodes``: their triples both ways, and one step on.

    That is every triple of each node, every triple pointing at it by a
    property some shape reads backwards (:func:`read_backwards`), every triple
    of the nodes it points to, and the types of the nodes pointing at it. A
    concept that 20,000 shared-concept records point at brings only the
    triples a shape reads, not the records.
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
    for node in onward:
        for triple in data.triples((node, None, None)):
            sub.add(triple)
    for node in inward - onward:
        for triple in data.triples((node, RDF.type, None)):
            sub.add(triple)
    return sub


def _focus_nodes(data: TripleSource, shapes: Graph) -> dict[str, list[Any]]:
    """Target class -> its instances in ``data`` (kg's shapes use sh:targetClass only):
    rdflib nodes, or pyoxigraph terms for a :class:`TripleList` (hundreds of thousands of
    them, of which a sample converts only those it picks)."""
    classes = sorted(set(shapes.objects(None, SH.targetClass)), key=str)
    if isinstance(data, TripleList):
        return data.instances(classes)
    out: dict[str, list[Node]] = {}
    for cls in classes:
        out[str(cls)] = sorted({s for s, _, _ in data.triples((None, RDF.type, cls))}, key=str)
    return out


def _spread(node: Any) -> str:
    """A node's place in a sample: the hash of its IRI (rdflib node or pyoxigraph term)."""
    text = str(node) if isinstance(node, Node) else _text(node)
    return hashlib.sha1(text.encode()).hexdigest()


def _run(data: Graph, shapes: Graph, focus: Sequence[Node] | None) -> Iterator[Violation]:
    import pyshacl

    _, report, _ = pyshacl.validate(
        data,
        shacl_graph=shapes,
        inference="none",
        inplace=True,  # nothing is inferred, so nothing is added to the data
        allow_warnings=True,
        focus_nodes=[n for n in focus if isinstance(n, URIRef)] if focus is not None else None,
    )
    assert isinstance(report, Graph)
    for result in report.objects(None, SH.result):  # not the sh:detail of nested shapes
        yield _violation(report, shapes, result)


def _violation(report: Graph, shapes: Graph, result: Node) -> Violation:
    severity = report.value(result, SH.resultSeverity)
    path = report.value(result, SH.resultPath)
    shape = report.value(result, SH.sourceShape)
    message = report.value(result, SH.resultMessage) or (
        shapes.value(shape, SH.message) if shape is not None else None
    )
    value = report.value(result, SH.value)
    return Violation(
        severity=str(severity).rsplit("#", 1)[-1] if severity else "Violation",
        focus=_term(report.value(result, SH.focusNode)),
        path=_path(report, path) if path is not None else "",
        expected=str(message or "to conform to " + _term(shape)),
        value=_term(value) if value is not None else "",
    )


def _path(g: Graph, path: Node) -> str:
    """A SHACL property path in SPARQL syntax ("^kg:paper", "(kg:a|kg:b)")."""
    if isinstance(path, URIRef):
        return compact(str(path))
    inverse = g.value(path, SH.inversePath)
    if inverse is not None:
        return "^" + _path(g, inverse)
    alternatives = g.value(path, SH.alternativePath)
    if alternatives is not None:
        return "(" + "|".join(_path(g, p) for p in g.items(alternatives)) + ")"
    items = list(g.items(path))
    if items:
        return "/".join(_path(g, p) for p in items)
    return "?"


def _term(node: Node | None) -> str:
    if node is None:
        return ""
    if isinstance(node, URIRef):
        return compact(str(node))
    if isinstance(node, BNode):
        return "a blank node"
    if isinstance(node, RDFLiteral):
        text = str(node)
        shown = text if len(text) <= 80 else text[:77] + "..."
        if node.language:
            return f'"{shown}"@{node.language}'
        if node.datatype:
            return f'"{shown}"^^{compact(str(node.datatype))}'
        return f'"{shown}"'
    return str(node)
