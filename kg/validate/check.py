"""The three ways to check a graph: ``full``, ``batch`` and ``sample`` (see :mod:`kg.validate`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, Literal

from rdflib import RDF, Graph
from rdflib.namespace import SH
from rdflib.term import Node

from kg.defaults import FULL_LIMIT, SAMPLE_SIZE, VALIDATE_BATCH, Validation
from kg.terms import rdflib_graph, to_rdflib
from kg.validate.report import ValidationReport, Violation, run_pyshacl
from kg.validate.shapes import shapes_graph
from kg.validate.sources import TripleList, TripleSource, neighbourhood, text

__all__ = ["Mode", "validate", "chosen_mode"]

Mode = Literal["full", "batch", "sample"]


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
    if isinstance(data, TripleList) and mode == "sample":
        # Drawn in one pass that keeps only the sample (every typed node, at 50,000 papers,
        # is millions of them).
        chosen, total = data.sample(_target_classes(shapes), sample_size, _spread)
        return _checked(data, shapes, mode, chosen, total, batch_size, progress)
    if isinstance(data, TripleList):
        data = rdflib_graph(data.items)  # every node is read
    targets = _focus_nodes(data, shapes)
    total = len({n for nodes in targets.values() for n in nodes})
    if mode == "full":
        if not isinstance(data, Graph):
            raise TypeError("full validation needs an rdflib Graph; use mode='batch'")
        results = run_pyshacl(data, shapes, None)
        if progress:
            progress(total, total)
        return ValidationReport("full", total, total, tuple(sorted(set(results))))
    if mode == "sample":
        chosen = {c: sorted(nodes, key=_spread)[:sample_size] for c, nodes in targets.items()}
    elif mode == "batch":
        chosen = targets
    else:
        raise ValueError(f"unknown validation mode {mode!r}")
    return _checked(data, shapes, mode, chosen, total, batch_size, progress)


def _checked(
    data: TripleSource,
    shapes: Graph,
    mode: Mode,
    chosen: dict[str, list[Any]],
    total: int,
    batch_size: int,
    progress: Callable[[int, int], None] | None,
) -> ValidationReport:
    """Check the ``chosen`` focus nodes of each target class, batch by batch, on their
    neighbourhoods; ``total`` is how many focus nodes the graph has."""
    nodes = list(dict.fromkeys(n for c in sorted(chosen) for n in chosen[c]))
    nodes = [n if isinstance(n, Node) else to_rdflib(n) for n in nodes]
    source = data.neighbourhoods(nodes) if isinstance(data, TripleList) else data
    found: set[Violation] = set()
    for start in range(0, len(nodes), batch_size):
        batch = nodes[start : start + batch_size]
        found.update(run_pyshacl(neighbourhood(source, batch), shapes, batch))
        if progress:
            progress(min(start + batch_size, len(nodes)), len(nodes))
    return ValidationReport(mode, len(nodes), total, tuple(sorted(found)))


def _focus_nodes(data: TripleSource, shapes: Graph) -> dict[str, list[Any]]:
    """Target class -> its instances in ``data`` (kg's shapes use sh:targetClass only; a
    build's :class:`TripleList` draws its sample with :meth:`TripleList.sample`)."""
    out: dict[str, list[Node]] = {}
    for cls in _target_classes(shapes):
        out[str(cls)] = sorted({s for s, _, _ in data.triples((None, RDF.type, cls))}, key=str)
    return out


def _target_classes(shapes: Graph) -> list[Node]:
    return sorted(set(shapes.objects(None, SH.targetClass)), key=str)


def _spread(node: Any) -> str:
    """A node's place in a sample: the hash of its IRI (rdflib node or pyoxigraph term)."""
    shown = str(node) if isinstance(node, Node) else text(node)
    return hashlib.sha1(shown.encode()).hexdigest()
