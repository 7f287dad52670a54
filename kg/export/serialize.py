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

import functools
import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from itertools import groupby
from pathlib import Path
from typing import Any, BinaryIO

import networkx as nx
import pyoxigraph as ox
from rdflib import Graph

from kg.errors import KGError
from kg.export.ntriples import NTriplesFile
from kg.export.swap import fsync_path
from kg.terms import (
    RDF_TYPE,
    XSD_STRING,
    bound_prefixes,
    oxigraph_triples,
    sort_triples,
)
from kg.text import printable

__all__ = [
    "RdfData",
    "turtle_text",
    "turtle_bytes",
    "write_turtle",
    "used_prefixes",
    "ntriples_text",
    "ntriples_chunks",
    "jsonld_text",
    "jsonld_chunks",
    "graphml_text",
    "write_graphml",
    "json_text",
    "graph_from_json",
]


#: Triples to write: an rdflib graph, pyoxigraph triples in kg's order, or a sorted N-Triples file.
RdfData = Graph | Sequence[ox.Triple] | NTriplesFile
#: Lines of text joined into one piece of a streamed file (about a megabyte).
_CHUNK_LINES = 5000


def _sorted(data: RdfData) -> Iterable[ox.Triple]:
    """pyoxigraph triples in kg's order (:func:`kg.terms.sort_triples`); ``data`` is an
    rdflib graph, a sorted N-Triples file, or triples in that order already (what
    :func:`kg.graph.rdf_triples` makes)."""
    if isinstance(data, Graph):
        return sort_triples(oxigraph_triples(data))
    if isinstance(data, NTriplesFile):
        return _kg_order(data)
    return data


def _kg_order(triples: Iterable[ox.Triple]) -> Iterator[ox.Triple]:
    """The triples of a sorted N-Triples file in kg's order: each subject's types first.

    Within a subject, the file's lines are sorted by predicate, then object
    (an IRI's N-Triples form ends in ``>``, so no predicate's text is the
    start of another's), which is kg's order once the types are moved to the
    front; they keep their own order, which is by object.
    """
    types: list[ox.Triple] = []
    rest: list[ox.Triple] = []
    subject = None
    for t in triples:
        if t.subject != subject:
            yield from types
            yield from rest
            types, rest, subject = [], [], t.subject
        (types if t.predicate == _RDF_TYPE else rest).append(t)
    yield from types
    yield from rest


_RDF_TYPE = ox.NamedNode(RDF_TYPE)


def _prefixes(data: RdfData) -> list[tuple[str, str]]:
    if isinstance(data, Graph):
        return sorted((prefix, str(ns)) for prefix, ns in data.namespaces() if prefix)
    return list(bound_prefixes())


def used_prefixes(data: RdfData) -> dict[str, str]:
    """The prefixes whose namespace follows a ``<`` in ``data``'s N-Triples: those that
    start an IRI or a datatype, or a literal's text that holds one (that only declares a
    prefix more). What the Turtle declares and the JSON-LD's context holds; a build finds
    them once for both, and one rule serves the file and triples in memory alike."""
    prefixes = _prefixes(data)
    left = {ns: prefix for prefix, ns in prefixes}
    used: set[str] = set()
    if not isinstance(data, NTriplesFile):
        for chunk in ntriples_chunks(data):  # whole lines: no IRI is cut
            _find(chunk.encode("utf-8"), left, used)
    else:
        for piece in data.pieces():  # whole lines, read rather than mapped
            _find(piece, left, used)
            if not left:
                break
    return {prefix: ns for prefix, ns in prefixes if prefix in used}


def _find(text: bytes, left: dict[str, str], used: set[str]) -> None:
    """Move the namespaces of ``left`` found after a ``<`` in ``text`` to ``used``: one
    pass of a search for those not found yet, resumed where the last one was found."""
    at = 0
    while left:
        longest_first = sorted(left, key=lambda ns: (-len(ns), ns))
        names = b"|".join(re.escape(ns.encode("utf-8")) for ns in longest_first)
        found = re.compile(b"<(" + names + b")").search(text, at)
        if found is None:
            return
        used.add(left.pop(found.group(1).decode("utf-8")))
        at = found.start()  # a shorter namespace may start the same IRI


def turtle_text(data: RdfData) -> str:
    """Turtle with the graph's prefixes that its IRIs use, subjects in sorted order.

    rdflib's own Turtle serializer takes over a minute at a million triples;
    Oxigraph's writes the same triples in about a second.
    """
    return turtle_bytes(data).decode("utf-8")


def turtle_bytes(data: RdfData) -> bytes:
    """:func:`turtle_text` as the UTF-8 bytes Oxigraph writes."""
    out = ox.serialize(_sorted(data), format=ox.RdfFormat.TURTLE, prefixes=used_prefixes(data))
    assert out is not None  # no output stream given: the bytes are returned
    return out


def write_turtle(data: RdfData, path: Path, prefixes: Mapping[str, str] | None = None) -> None:
    """:func:`turtle_bytes` written to ``path`` as Oxigraph makes it, never whole in memory."""
    used = dict(prefixes) if prefixes is not None else used_prefixes(data)
    ox.serialize(_sorted(data), str(path), format=ox.RdfFormat.TURTLE, prefixes=used)
    fsync_path(path)  # on disk before the output is swapped in, as every file of a build


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


class _Compactor:
    """IRIs as ``prefix:local`` names by the graph's prefixes."""

    def __init__(self, prefixes: Iterable[tuple[str, str]]) -> None:
        self.prefixes = sorted(
            ((prefix, ns) for prefix, ns in prefixes if ns[-1:] in "/#"),
            key=lambda pair: (-len(pair[1]), pair[0]),
        )
        self.done: dict[str, str] = {}

    def __call__(self, iri: str) -> str:
        found = self.done.get(iri)
        if found is None:
            found = self.done[iri] = iri
            for prefix, ns in self.prefixes:
                local = iri[len(ns) :]
                if iri.startswith(ns) and local and not local.startswith("//"):
                    found = self.done[iri] = f"{prefix}:{local}"
                    break
        return found


def jsonld_text(data: RdfData) -> str:
    """JSON-LD: one node object per subject, with kg's prefixes as its ``@context``.

    The text of :func:`jsonld_chunks`.
    """
    return "".join(jsonld_chunks(data))


def jsonld_chunks(data: RdfData, prefixes: Mapping[str, str] | None = None) -> Iterator[str]:
    """JSON-LD (:func:`jsonld_text`) in pieces: the context, then a few thousand node objects each.

    Written by kg rather than by rdflib's JSON-LD serializer, whose order
    follows the store's and so changes between runs; here subjects,
    properties and values are sorted, and each node object is one line. Every
    value is an array of value objects, so the document reads back to exactly
    the same triples. The context holds the prefixes the data uses
    (:func:`turtle_text`'s), so it is written first and the node objects as
    they are made.
    """
    used = prefixes if prefixes is not None else used_prefixes(data)
    compact = _Compactor(used.items())
    dumps = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps's text, without its checks
    # A node object is ``{"@id": ..., key: [value, ...], ...}`` as json.dumps writes a dict,
    # made here from the text of each key and value: the keys and classes (kg's vocabulary)
    # written once, the values met often (concepts, numbers) kept for a while.
    keys: dict[Any, str] = {}
    types: dict[Any, str] = {}

    def ref(node: Any) -> str:
        return f"_:{node.value}" if isinstance(node, ox.BlankNode) else compact(node.value)

    @functools.lru_cache(maxsize=1 << 16)
    def value(node: Any) -> str:
        if not isinstance(node, ox.Literal):
            return '{"@id": ' + dumps(ref(node)) + "}"
        text = '{"@value": ' + dumps(node.value)
        if node.language:
            text += ', "@language": ' + dumps(node.language)
        elif node.datatype.value != XSD_STRING:
            text += ', "@type": ' + dumps(compact(node.datatype.value))
        return text + "}"

    def node_object(subject: Any, triples: Iterable[ox.Triple]) -> str:
        fields: dict[str, list[str]] = {}
        for tr in triples:
            predicate, obj = tr.predicate, tr.object
            if predicate == _RDF_TYPE and isinstance(obj, ox.NamedNode):
                kind = types.get(obj)
                if kind is None:
                    kind = types[obj] = dumps(compact(obj.value))
                fields.setdefault('"@type"', []).append(kind)
                continue
            key = keys.get(predicate)
            if key is None:
                key = keys[predicate] = dumps(compact(predicate.value))
            fields.setdefault(key, []).append(value(obj))
        text = '{"@id": ' + dumps(ref(subject))
        for key, items in fields.items():
            text += ", " + key + ": [" + ", ".join(items) + "]"
        return text + "}"

    context = {prefix: ns for prefix, ns in sorted(compact.prefixes)}
    yield f'{{\n"@context": {json.dumps(context, ensure_ascii=False, indent=1)},\n"@graph": [\n'
    piece: list[str] = []
    first = True
    # sorted by subject, then predicate and object, each subject's types first
    for subject, triples in groupby(_sorted(data), key=lambda tr: tr.subject):
        piece.append(node_object(subject, triples))
        if len(piece) >= _CHUNK_LINES:
            yield ("" if first else ",\n") + ",\n".join(piece)
            piece, first = [], False
    if piece:
        yield ("" if first else ",\n") + ",\n".join(piece)
    yield "\n]\n}\n"


def _scalar(value: Any) -> Any:
    if isinstance(value, (list, tuple, set)):
        return "; ".join("" if v is None else printable(str(v)) for v in value)  # keeps places
    return printable(value) if isinstance(value, str) else value


def _xml_safe(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _scalar(v) for k, v in data.items() if v is not None}


def graphml_text(G: nx.Graph) -> str:
    """GraphML (lists joined with "; ", a missing item empty, missing values left out).

    For Gephi, igraph, networkx.

    The text of :func:`write_graphml`.
    """
    buffer = io.BytesIO()
    write_graphml(G, buffer)
    return buffer.getvalue().decode("utf-8")


def write_graphml(G: nx.Graph, target: Path | BinaryIO) -> None:
    """:func:`graphml_text` written to a file or binary stream as it is made.

    By networkx's incremental writer on lxml, which writes each element as it
    goes (3,676 papers: 11 s and 0.1 GB, where its ElementTree writer built the
    whole document, 27 s and 1.2 GB). Text that XML cannot carry (control
    characters, which kg's input reading already removes) is made printable
    here too, so the file is always well-formed.
    """
    H = nx.Graph()
    for n, data in sorted(G.nodes(data=True)):
        H.add_node(printable(n), **_xml_safe(data))
    for u, v, data in sorted(G.edges(data=True)):
        H.add_edge(printable(u), printable(v), **_xml_safe(data))
    with open(target, "wb") if isinstance(target, Path) else nullcontext(target) as out:
        nx.write_graphml_lxml(H, out, prettyprint=True)
        out.write(b"\n")
    if isinstance(target, Path):
        fsync_path(target)  # on disk before the output is swapped in, as every file of a build


def json_text(G: nx.Graph) -> str:
    """networkx node-link JSON with every attribute (lists stay lists)."""
    return "".join(json_chunks(G))


#: Nodes or edges of graph.json made into text at a time (:func:`json_chunks`).
JSON_ITEMS = 2_000


def json_chunks(G: nx.Graph) -> Iterator[str]:
    """:func:`json_text` in pieces of :data:`JSON_ITEMS` nodes or edges: byte for byte
    ``json.dumps(nx.node_link_data(H, edges="edges"), indent=1, sort_keys=True)``, where
    ``H`` is ``G`` with its nodes, then its edges as sorted pairs, added in sorted order
    (so the text does not depend on the order ``G`` was built in), without that whole
    structure and string in memory at once (graph.json of 10,000 papers is 410 MB; made
    as one string, it took 2.5 GB)."""
    if G.is_directed() or G.is_multigraph():
        raise TypeError("graph.json is written from kg's undirected simple graph (nx.Graph)")
    # H's order without making H: the nodes sorted, then each edge once, by its sorted pair.
    nodes = sorted(G)
    pairs = sorted((min(u, v), max(u, v)) for u, v in G.edges())

    def dump(value: Any, depth: int) -> str:
        text = json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)
        return text.replace("\n", "\n" + " " * depth)  # JSON strings hold no raw newline

    def listed(name: str, items: Iterator[dict[str, Any]], last: bool) -> Iterator[str]:
        yield f' "{name}": ['
        first, piece = True, []
        for item in items:
            piece.append(("\n  " if first else ",\n  ") + dump(item, 2))
            first = False
            if len(piece) == JSON_ITEMS:
                yield "".join(piece)
                piece = []
        yield "".join(piece) + ("]" if first else "\n ]") + ("\n" if last else ",\n")

    yield "{\n"
    yield ' "directed": false,\n'
    yield from listed(
        "edges", ({**G.edges[u, v], "source": u, "target": v} for u, v in pairs), False
    )
    yield ' "graph": {},\n'
    yield ' "multigraph": false,\n'
    yield from listed("nodes", ({**G.nodes[n], "id": n} for n in nodes), True)
    yield "}\n"


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
