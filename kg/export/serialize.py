"""Serialise a built graph to text; :mod:`kg.export.atomic` writes it.

Generating and writing are separate, as in networkx's readwrite: each
``*_text`` function returns a file's whole content, deterministically (sorted
nodes, edges, subjects and triples), so two builds of the same input give
identical files. The RDF files of a large build are hundreds of megabytes, so
each also comes as what a writer streams: :func:`turtle_bytes` (no decoding),
:func:`ntriples_chunks` and :func:`jsonld_chunks` (pieces of text, never the
whole as one string). Every function's output parses back with the library a user
would read it with (rdflib and Oxigraph for RDF, networkx for GraphML and
JSON): ``tests/test_serialize.py`` checks that on generated hostile text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import groupby
from typing import Any

import networkx as nx
import pyoxigraph as ox
from rdflib import Graph

from kg.errors import KGError
from kg.terms import RDF_TYPE, XSD_STRING, bound_prefixes, oxigraph_triples, sort_triples
from kg.text import printable

__all__ = [
    "RdfData",
    "turtle_text",
    "turtle_bytes",
    "ntriples_text",
    "ntriples_chunks",
    "jsonld_text",
    "jsonld_chunks",
    "graphml_text",
    "json_text",
    "graph_from_json",
]


RdfData = Graph | Sequence[ox.Triple]
#: Lines of text joined into one piece of a streamed file (about a megabyte).
_CHUNK_LINES = 5000


def _sorted(data: RdfData) -> Sequence[ox.Triple]:
    """pyoxigraph triples in kg's order (:func:`kg.terms.sort_triples`); ``data`` is an
    rdflib graph, or triples in that order already (what a build makes)."""
    return sort_triples(oxigraph_triples(data)) if isinstance(data, Graph) else data


def _prefixes(data: RdfData) -> list[tuple[str, str]]:
    if isinstance(data, Graph):
        return sorted((prefix, str(ns)) for prefix, ns in data.namespaces() if prefix)
    return list(bound_prefixes())


def turtle_text(data: RdfData) -> str:
    """Turtle with the graph's prefixes that its IRIs use, subjects in sorted order.

    rdflib's own Turtle serializer takes over a minute at a million triples;
    Oxigraph's writes the same triples in about a second.
    """
    return turtle_bytes(data).decode("utf-8")


def turtle_bytes(data: RdfData) -> bytes:
    """:func:`turtle_text` as the UTF-8 bytes Oxigraph writes."""
    triples = _sorted(data)
    iris = {
        t.value
        for tr in triples
        for t in (tr.subject, tr.predicate, tr.object)
        if isinstance(t, ox.NamedNode)
    }
    iris |= {tr.object.datatype.value for tr in triples if isinstance(tr.object, ox.Literal)}
    used = {prefix: ns for prefix, ns in _prefixes(data) if any(iri.startswith(ns) for iri in iris)}
    out = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes=used)
    assert out is not None  # no output stream given: the bytes are returned
    return out


def ntriples_text(data: RdfData) -> str:
    """N-Triples, one triple a line, sorted: the form line-oriented tools and diffs want."""
    return "".join(ntriples_chunks(data))


def ntriples_chunks(data: RdfData) -> Iterator[str]:
    """:func:`ntriples_text` in pieces of whole lines, made a subject at a time.

    The triples come sorted by subject, and a line starts with its subject's
    N-Triples form, which ends in ``>`` or is a blank node label: so all the
    lines sorted are each subject's lines sorted, subject after subject, and
    the lines of the whole graph never exist at once.
    """
    piece: list[str] = []
    for _, group in groupby(_sorted(data), key=lambda t: t.subject):
        # a pyoxigraph triple prints as N-Triples
        piece.extend(sorted(f"{t} .\n" for t in group))
        if len(piece) >= _CHUNK_LINES:
            yield "".join(piece)
            piece = []
    if piece:
        yield "".join(piece)


def _chunks(lines: list[str], sep: str = "") -> Iterator[str]:
    """``sep.join(lines)`` in pieces; the lines are dropped as they are used."""
    for start in range(0, len(lines), _CHUNK_LINES):
        piece = lines[start : start + _CHUNK_LINES]
        lines[start : start + _CHUNK_LINES] = [""] * len(piece)
        yield (sep if start else "") + sep.join(piece)


class _Compactor:
    """IRIs as ``prefix:local`` names by the graph's prefixes, remembering which were used."""

    def __init__(self, prefixes: Iterable[tuple[str, str]]) -> None:
        self.prefixes = sorted(
            ((prefix, ns) for prefix, ns in prefixes if ns[-1:] in "/#"),
            key=lambda pair: (-len(pair[1]), pair[0]),
        )
        self.used: dict[str, str] = {}
        self.done: dict[str, str] = {}

    def __call__(self, iri: str) -> str:
        found = self.done.get(iri)
        if found is None:
            found = self.done[iri] = iri
            for prefix, ns in self.prefixes:
                local = iri[len(ns) :]
                if iri.startswith(ns) and local and not local.startswith("//"):
                    self.used[prefix] = ns
                    found = self.done[iri] = f"{prefix}:{local}"
                    break
        return found


def jsonld_text(data: RdfData) -> str:
    """JSON-LD: one node object per subject, with kg's prefixes as its ``@context``.

    The text of :func:`jsonld_chunks`.
    """
    return "".join(jsonld_chunks(data))


def jsonld_chunks(data: RdfData) -> Iterator[str]:
    """JSON-LD (:func:`jsonld_text`) in pieces: the context, then a few thousand node objects each.

    Written by kg rather than by rdflib's JSON-LD serializer, whose order
    follows the store's and so changes between runs; here subjects,
    properties and values are sorted, and each node object is one line. Every
    value is an array of value objects, so the document reads back to exactly
    the same triples.
    """
    triples = _sorted(data)
    compact = _Compactor(_prefixes(data))

    def ref(node: Any) -> str:
        return f"_:{node.value}" if isinstance(node, ox.BlankNode) else compact(node.value)

    def term(node: Any) -> dict[str, Any]:
        if isinstance(node, ox.Literal):
            value: dict[str, Any] = {"@value": node.value}
            if node.language:
                value["@language"] = node.language
            elif node.datatype.value != XSD_STRING:
                value["@type"] = compact(node.datatype.value)
            return value
        return {"@id": ref(node)}

    rdf_type = RDF_TYPE
    lines = []
    node_object: dict[str, Any] = {}
    for tr in triples:  # sorted by subject, then predicate and object
        subject = ref(tr.subject)
        if node_object.get("@id") != subject:
            if node_object:
                lines.append(json.dumps(node_object, ensure_ascii=False))
            node_object = {"@id": subject}
        if tr.predicate.value == rdf_type and isinstance(tr.object, ox.NamedNode):
            node_object.setdefault("@type", []).append(compact(tr.object.value))
        else:
            node_object.setdefault(compact(tr.predicate.value), []).append(term(tr.object))
    if node_object:
        lines.append(json.dumps(node_object, ensure_ascii=False))
    context = json.dumps(dict(sorted(compact.used.items())), ensure_ascii=False, indent=1)
    yield f'{{\n"@context": {context},\n"@graph": [\n'
    yield from _chunks(lines, ",\n")
    yield "\n]\n}\n"


def _scalar(value: Any) -> Any:
    if isinstance(value, (list, tuple, set)):
        return "; ".join(printable(str(v)) for v in value)
    return printable(value) if isinstance(value, str) else value


def _xml_safe(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _scalar(v) for k, v in data.items() if v is not None}


def graphml_text(G: nx.Graph) -> str:
    """GraphML (lists joined with "; ", missing values left out), for Gephi, igraph, networkx.

    Text that XML cannot carry (control characters, which kg's input reading
    already removes) is made printable here too, so the file is always
    well-formed.
    """
    H = nx.Graph()
    for n, data in sorted(G.nodes(data=True)):
        H.add_node(printable(n), **_xml_safe(data))
    for u, v, data in sorted(G.edges(data=True)):
        H.add_edge(printable(u), printable(v), **_xml_safe(data))
    return "\n".join(nx.generate_graphml(H, prettyprint=True)) + "\n"


def json_text(G: nx.Graph) -> str:
    """networkx node-link JSON with every attribute (lists stay lists)."""
    H = nx.Graph()
    H.add_nodes_from(sorted(G.nodes(data=True)))
    H.add_edges_from(sorted((min(u, v), max(u, v), d) for u, v, d in G.edges(data=True)))
    data = nx.node_link_data(H, edges="edges")
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def graph_from_json(text: str, source: str = "graph.json") -> nx.Graph:
    """The graph :func:`json_text` wrote, read back (``kg view`` regenerates the views from it).

    Raises:
        KGError: ``text`` is not node-link JSON of a kg graph.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise KGError(
            f"{source}:{exc.lineno}: not valid JSON ({exc.msg}); rebuild it with kg build"
        ) from exc
    if not isinstance(data, dict) or not {"nodes", "edges"} <= data.keys():
        raise KGError(
            f"{source}: not a kg graph (node-link JSON with 'nodes' and 'edges'); "
            "rebuild it with kg build"
        )
    try:
        return nx.node_link_graph(data, edges="edges")
    except (KeyError, TypeError, nx.NetworkXError) as exc:
        raise KGError(f"{source}: not a kg graph ({exc}); rebuild it with kg build") from exc
