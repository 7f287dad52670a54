"""The graph -> a verdict: kg's SHACL shapes (``ontology/shapes.ttl``), checked with pyshacl.

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

Modules: ``shapes`` (the shapes file and what is read of it), ``sources``
(where triples come from, and a node's neighbourhood), ``check`` (the three
modes) and ``report`` (pyshacl's results in words).
"""

from kg.validate.check import Mode, chosen_mode, validate
from kg.validate.report import ValidationReport, Violation
from kg.validate.shapes import SHAPES_FILE, read_backwards, shapes_graph
from kg.validate.sources import TripleList, TripleSource, neighbourhood

__all__ = [
    "validate",
    "chosen_mode",
    "Mode",
    "ValidationReport",
    "Violation",
    "TripleSource",
    "TripleList",
    "neighbourhood",
    "read_backwards",
    "shapes_graph",
    "SHAPES_FILE",
]
