"""Serialise a built graph to text; :mod:`kg.export.atomic` writes it.

Generating and writing are separate, as in networkx's readwrite: each
``*_text`` function returns a file's whole content, deterministically (sorted
nodes and edges), so two builds of the same input give identical files.
"""

from __future__ import annotations

import json
from typing import Any

import networkx as nx
from rdflib import Graph

from kg.errors import KGError

__all__ = ["turtle_text", "graphml_text", "json_text", "graph_from_json"]


def turtle_text(g: Graph) -> str:
    """Turtle with kg's prefixes (rdflib's serializer sorts subjects, so output is stable)."""
    return g.serialize(format="turtle")


def _scalar(value: Any) -> Any:
    if isinstance(value, (list, tuple, set)):
        return "; ".join(str(v) for v in value)
    return value


def graphml_text(G: nx.Graph) -> str:
    """GraphML (lists joined with "; ", missing values left out), for Gephi, igraph, networkx."""
    H = nx.Graph()
    for n, data in sorted(G.nodes(data=True)):
        H.add_node(n, **{k: _scalar(v) for k, v in data.items() if v is not None})
    for u, v, data in sorted(G.edges(data=True)):
        H.add_edge(u, v, **{k: _scalar(x) for k, x in data.items() if x is not None})
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
