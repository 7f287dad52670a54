"""Serialise a built graph to text; :mod:`kg.export.atomic` writes it.

Generating and writing are separate, as in networkx's readwrite: each
``*_text`` function returns a file's whole content, deterministically (sorted
nodes, edges, subjects and triples), so two builds of the same input give
identical files. Every function's output parses back with the library a user
would read it with (rdflib and Oxigraph for RDF, networkx for GraphML and
JSON): ``tests/test_serialize.py`` checks that on generated hostile text.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import Any

import networkx as nx
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.plugins.serializers.turtle import TurtleSerializer
from rdflib.term import Node

from kg.errors import KGError
from kg.text import printable

__all__ = [
    "turtle_text",
    "ntriples_text",
    "jsonld_text",
    "graphml_text",
    "json_text",
    "graph_from_json",
]


class _Turtle(TurtleSerializer):
    """rdflib's Turtle, with long literals escaped so that every parser accepts them.

    rdflib writes a literal with a line break as ``\"\"\"...\"\"\"`` but leaves
    a final quote unescaped after a backslash (``...\\\\"\"\"\"``), which
    Oxigraph rightly rejects; here every quote inside a long literal is escaped.
    """

    def label(self, node: Node, position: int) -> str:
        if isinstance(node, Literal) and "\n" in node:
            body = str(node).replace("\\", "\\\\").replace('"', '\\"').replace("\r", "\\r")
            if node.language:
                suffix = f"@{node.language}"
            elif node.datatype:
                suffix = f"^^{node.datatype.n3()}"
            else:
                suffix = ""
            return f'"""{body}"""{suffix}'
        return str(super().label(node, position))


def turtle_text(g: Graph) -> str:
    """Turtle with kg's prefixes (rdflib's serializer sorts subjects, so output is stable)."""
    stream = io.BytesIO()
    _Turtle(g).serialize(stream, encoding="utf-8")
    return stream.getvalue().decode("utf-8")


def ntriples_text(g: Graph) -> str:
    """N-Triples, one triple a line, sorted: the form line-oriented tools and diffs want."""
    lines = g.serialize(format="nt", encoding="utf-8").decode("utf-8").split("\n")
    return "".join(f"{line}\n" for line in sorted(set(lines)) if line.strip())


def jsonld_text(g: Graph) -> str:
    """JSON-LD: one node object per subject, with kg's prefixes as its ``@context``.

    Written by kg rather than by rdflib's JSON-LD serializer, whose order
    follows the store's and so changes between runs; here subjects,
    properties and values are sorted. Every value is an array of value
    objects, so the document reads back to exactly the same triples.
    """
    prefixes = sorted(
        ((prefix, str(ns)) for prefix, ns in g.namespaces() if str(ns)[-1:] in "/#"),
        key=lambda pair: (-len(pair[1]), pair[0]),
    )

    used: dict[str, str] = {}

    def compact(iri: str) -> str:
        for prefix, ns in prefixes:
            if iri.startswith(ns) and len(iri) > len(ns) and not iri[len(ns) :].startswith("//"):
                used[prefix] = ns
                return f"{prefix}:{iri[len(ns) :]}"
        return iri

    def term(node: Node) -> Any:
        if isinstance(node, Literal):
            value: dict[str, Any] = {"@value": str(node)}
            if node.language:
                value["@language"] = node.language
            elif node.datatype:
                value["@type"] = compact(str(node.datatype))
            return value
        if isinstance(node, BNode):
            return {"@id": f"_:{node}"}
        return {"@id": compact(str(node))}

    def key(node: Node) -> str:
        return f"_:{node}" if isinstance(node, BNode) else compact(str(node))

    subjects: dict[str, dict[str, list[Any]]] = {}
    for s, p, o in g:
        node = subjects.setdefault(key(s), {})
        if p == _RDF_TYPE and isinstance(o, URIRef):
            node.setdefault("@type", []).append(compact(str(o)))
        else:
            node.setdefault(compact(str(p)), []).append(term(o))
    graph = []
    for subject in sorted(subjects):
        node_object: dict[str, Any] = {"@id": subject}
        for prop in sorted(subjects[subject]):
            values = subjects[subject][prop]
            node_object[prop] = sorted(
                values, key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False)
            )
        graph.append(node_object)
    context = dict(sorted(used.items()))
    document = {"@context": context, "@graph": graph}
    return json.dumps(document, ensure_ascii=False, indent=1, sort_keys=False) + "\n"


_RDF_TYPE = URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


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
