"""What validation found, in words: pyshacl's results as :class:`Violation` lines."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rdflib import BNode, Graph, URIRef
from rdflib import Literal as RDFLiteral
from rdflib.namespace import SH
from rdflib.term import Node

from kg.validate.shapes import SHAPES_FILE
from kg.vocab import compact
from kg.words import plural

__all__ = ["Violation", "ValidationReport", "run_pyshacl"]


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
        verdict = "conforms" if self.conforms else plural(len(self.violations), "violation")
        notes = f"; {plural(len(self.warnings), 'warning')}" if self.warnings else ""
        return (
            f"{verdict} ({self.mode}: {self.checked:,} of {self.total:,} focus nodes"
            f" checked against {SHAPES_FILE.name}{notes})"
        )


def run_pyshacl(data: Graph, shapes: Graph, focus: Sequence[Node] | None) -> Iterator[Violation]:
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
    # pyshacl takes no blank node as a focus node, and checks every node of the data when
    # given none: a batch of blank nodes is checked that way, and only its results kept
    # (a neighbourhood's other nodes are not whole there).
    batch = None if focus is None else set(focus)
    for result in report.objects(None, SH.result):  # not the sh:detail of nested shapes
        if batch is None or report.value(result, SH.focusNode) in batch:
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
