"""Every output file parses back, whatever text the input held.

Hypothesis writes arbitrary records (any Unicode, lone surrogates, control
characters, quotes, backslashes, markup) as a JSON Lines file; kg reads and
builds them with the fast fake embedder, and every file it would write is
parsed back with the library a user would use: rdflib and Oxigraph for
Turtle, N-Triples and JSON-LD, networkx for GraphML and node-link JSON. At
least 500 records go through per run (``EXAMPLES`` x ``RECORDS``).
"""

from __future__ import annotations

import io
import json

import networkx as nx
import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import Graph, Literal, URIRef
from rdflib.compare import graph_diff, isomorphic, to_isomorphic

from kg.build import BuildRequest, assemble, output_texts
from kg.export import jsonld_text, ntriples_text, turtle_text
from kg.export.serialize import _CHUNK_LINES

EXAMPLES = 52
RECORDS = 10
# Text that has broken a writer before, mixed into arbitrary characters.
TRICKY = [
    '\\"', '"""', '"', "\\", "\n", "\r\n", "\r", "\f", "\v", "\x00", "\x01", "\x08", "\x1b",
    "\x7f", "\x85", "\ud800", "\udfff", "\ufffe", "\uffff", "\u2028", "<script>", "</script>",
    "]]>", "&amp;", "@prefix", "%", "$x$", "{", "}", "\t", "'''", "#", "<>", "^^", "@en",
    "<http://xmlns.com/foaf/0.1/",  # a namespace no IRI of kg's uses, inside a literal
]  # fmt: skip
_text = st.lists(
    st.one_of(st.characters(exclude_categories=()), st.sampled_from(TRICKY)), max_size=30
).map("".join)
_record = st.fixed_dictionaries(
    {
        "id": st.one_of(st.none(), _text),
        "title": st.one_of(st.none(), _text),
        "abstract": _text,
        "authors": st.lists(_text, max_size=3),
        "keywords": st.lists(_text, max_size=3),
        "venue": st.one_of(st.none(), _text),
    }
)

RDF_FORMATS = {
    "kg.ttl": ("turtle", ox.RdfFormat.TURTLE),
    "kg.nt": ("nt", ox.RdfFormat.N_TRIPLES),
    "kg.jsonld": ("json-ld", ox.RdfFormat.JSON_LD),
}


def _records_file(tmp_path, records: list[dict]) -> str:
    lines = []
    for i, r in enumerate(records):
        # Each record says something, so that it is a paper; ids stay distinct.
        r = {**r, "abstract": f"We propose Method{i} for task {i}. {r['abstract']}"}
        if r["id"] is not None:
            r["id"] = f"{r['id']}~{i}"
        lines.append(json.dumps(r))  # ASCII escapes: lone surrogates survive as \ud800
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _assert_same_rdf(built: Graph, parsed: Graph, name: str) -> None:
    if not isomorphic(built, parsed):
        _, only_built, only_parsed = graph_diff(to_isomorphic(built), to_isomorphic(parsed))
        pytest.fail(f"{name}: lost {sorted(only_built)[:2]}, gained {sorted(only_parsed)[:2]}")


@pytest.mark.slow
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(records=st.lists(_record, min_size=RECORDS, max_size=RECORDS))
def test_any_records_give_files_that_parse_back(records, fake_embedder, tmp_path_factory):
    path = _records_file(tmp_path_factory.mktemp("records"), records)
    built = assemble(BuildRequest([path]), embedder=fake_embedder)
    assert len(built.kg.papers) + len(built.reading.skipped) == RECORDS
    texts = output_texts(built)
    assert _streamed(built, tmp_path_factory.mktemp("streamed")) == {
        n: texts[n] for n in RDF_FORMATS
    }
    for name, (rdflib_format, oxigraph_format) in RDF_FORMATS.items():
        data = texts[name].encode("utf-8")
        _assert_same_rdf(built.rdf, Graph().parse(data=data, format=rdflib_format), name)
        assert len(list(ox.parse(data, format=oxigraph_format))) == len(built.rdf), name
    graphml = nx.read_graphml(io.BytesIO(texts["graph.graphml"].encode("utf-8")))
    assert sorted(graphml.nodes) == sorted(built.graph.nodes)
    assert graphml.number_of_edges() == built.graph.number_of_edges()
    for node, data in built.graph.nodes(data=True):
        for key in ("abstract", "title", "label"):
            if isinstance(data.get(key), str):
                assert graphml.nodes[node][key] == data[key], (node, key)
    linked = nx.node_link_graph(json.loads(texts["graph.json"]), edges="edges")
    # node-link JSON keeps the node's name under "id", so the attribute "id" is the name
    assert {n: {k: v for k, v in d.items() if k != "id"} for n, d in linked.nodes(data=True)} == {
        n: {k: v for k, v in d.items() if k != "id"} for n, d in built.graph.nodes(data=True)
    }
    assert nx.utils.edges_equal(linked.edges(data=True), built.graph.edges(data=True))


@pytest.mark.parametrize(
    "value",
    [
        'ends in a backslash and a quote\\"\nafter a line break',
        'ends in a quote after a line break\n"',
        'three quotes """ and a line break\n',
        "a line break\nand a backslash at the end\\",
        "only\n",
        'escaped \\n and \\" written out',
    ],
)
@pytest.mark.parametrize("lang", [None, "en"])
def test_literals_rdflib_gets_wrong_are_written_validly(value, lang):
    g = Graph()
    g.add(
        (
            URIRef("https://example.org/a"),
            URIRef("https://example.org/p"),
            Literal(value, lang=lang),
        )
    )
    for name, text in (
        ("kg.ttl", turtle_text(g)),
        ("kg.nt", ntriples_text(g)),
        ("kg.jsonld", jsonld_text(g)),
    ):
        rdflib_format, oxigraph_format = RDF_FORMATS[name]
        _assert_same_rdf(g, Graph().parse(data=text, format=rdflib_format), name)
        (quad,) = ox.parse(text.encode(), format=oxigraph_format)
        assert quad.object.value == value, name


def test_serialisations_are_byte_identical_across_runs(fake_embedder, tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": f"p{i}", "abstract": text})
            for i, text in enumerate(
                [
                    "We propose FastPlan for Markov decision processes (MDPs).",
                    "Planning in Markov decision processes is hard; we propose DeepPlan.",
                ]
            )
        )
    )
    first = output_texts(assemble(BuildRequest([path]), embedder=fake_embedder))
    second = output_texts(assemble(BuildRequest([path]), embedder=fake_embedder))
    assert first == second


def _streamed(built, work) -> dict[str, str]:
    """The RDF files as a build writes them: sorted on disk, then made from kg.nt."""
    from kg.export import NTriplesFile, SortedNTriples, jsonld_chunks, write_turtle
    from kg.graph import emit

    sink = SortedNTriples(work, run_lines=97)  # many runs, so the merge is exercised
    emit(built.kg, built.provenance, sink)
    rdf = NTriplesFile(work / "kg.nt", sink.write(work / "kg.nt"))
    write_turtle(rdf, work / "kg.ttl")
    (work / "kg.jsonld").write_text("".join(jsonld_chunks(rdf)), encoding="utf-8")
    assert sorted(p.name for p in work.iterdir()) == ["kg.jsonld", "kg.nt", "kg.ttl"]  # no runs
    return {n: (work / n).read_bytes().decode("utf-8") for n in ("kg.ttl", "kg.nt", "kg.jsonld")}


@pytest.mark.parametrize(
    "n", [0, 1, _CHUNK_LINES - 1, _CHUNK_LINES, _CHUNK_LINES + 1, 3 * _CHUNK_LINES + 7]
)
def test_a_streamed_jsonld_file_is_its_whole_text_in_pieces(n):
    """Node objects go out a few thousand at a time, each piece joined to the last by a comma."""
    from kg.export import jsonld_chunks
    from kg.terms import sort_triples

    name = ox.NamedNode("https://schema.org/name")
    triples = sort_triples(
        ox.Triple(ox.NamedNode(f"https://example.org/s{i}"), name, ox.Literal(f"v{i}"))
        for i in range(n)
    )
    pieces = list(jsonld_chunks(triples))
    assert len(pieces) == 2 + -(-n // _CHUNK_LINES)  # the context, the node objects, the end
    document = json.loads("".join(pieces))
    assert [node["@id"] for node in document["@graph"]] == [str(t.subject.value) for t in triples]
    assert Graph().parse(data="".join(pieces), format="json-ld").__len__() == n


def test_triples_are_sorted_by_subject_types_first_then_predicate_and_object(fake_build):
    """sort_triples, which sorts subject by subject, gives the order of one sort by the key."""
    import random

    from kg.terms import RDF_TYPE, sort_triples

    triples = list(fake_build.triples)
    shuffled = triples + triples[:50]  # duplicates are dropped
    random.Random(7).shuffle(shuffled)
    expected = sorted(
        set(triples),
        key=lambda t: (
            str(t.subject),
            t.predicate.value != RDF_TYPE,
            str(t.predicate),
            str(t.object),
        ),
    )
    assert sort_triples(shuffled) == expected
    assert sort_triples(shuffled) == triples  # a build's triples are in that order


def test_ntriples_lines_are_the_sorted_lines_of_every_triple(fake_build):
    """Made a subject at a time, the file is still all its lines in sorted order."""
    from kg.export import ntriples_chunks
    from kg.terms import sort_triples

    triples = list(fake_build.triples)
    assert "".join(ntriples_chunks(triples)) == "".join(sorted(f"{t} .\n" for t in triples))
    blank = ox.BlankNode("b1"), ox.BlankNode("b10")  # one label the prefix of another
    name = ox.NamedNode("https://example.org/name")
    mixed = sort_triples([ox.Triple(b, name, ox.Literal(b.value)) for b in blank] + triples[:20])
    assert "".join(ntriples_chunks(mixed)) == "".join(sorted(f"{t} .\n" for t in mixed))


def test_triples_in_memory_and_in_kg_nt_declare_the_same_prefixes(tmp_path):
    """One rule for both paths: a namespace quoted in a literal counts, and a plain
    literal does not make xsd: used (N-Triples writes no ^^xsd:string)."""
    from kg.export import NTriplesFile, SortedNTriples, used_prefixes

    s = ox.NamedNode("https://w3id.org/kg/ns#s")
    p = ox.NamedNode("http://purl.org/dc/terms/title")
    triples = [
        ox.Triple(s, p, ox.Literal("see <http://xmlns.com/foaf/0.1/name")),
        ox.Triple(s, p, ox.Literal("plain")),
        ox.Triple(s, p, ox.Literal("tagged", language="en")),
    ]
    sink = SortedNTriples(tmp_path)
    for t in triples:
        sink.add((t.subject, t.predicate, t.object))
    on_disk = NTriplesFile(tmp_path / "kg.nt", sink.write(tmp_path / "kg.nt"))
    in_memory = used_prefixes(sorted(triples, key=str))
    assert in_memory == used_prefixes(on_disk)
    assert {"kg", "dcterms", "foaf"} <= set(in_memory) and "xsd" not in in_memory
