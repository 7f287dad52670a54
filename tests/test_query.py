"""kg query on the real Oxigraph store: forms, formats, refusals, time limit, stale stores.

The graph is the seeds built with the fake embedder (fast); tests/test_queries.py
runs the shipped queries on the real seed build.
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from rdflib import Graph, URIRef
from rdflib.compare import isomorphic

from kg.cli import cli
from kg.errors import QueryError
from kg.query import (
    STORE_NAME,
    check_query,
    format_result,
    open_store,
    parse_term,
    run_query,
    store_from_rdflib,
)
from kg.vocab import KG

ROOT = Path(__file__).resolve().parents[1]


def run(*argv: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(argv))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "query, refused",
    [
        ("INSERT DATA { <urn:a> <urn:b> <urn:c> }", "read-only"),
        ("DELETE WHERE { ?s ?p ?o }", "read-only"),
        ("PREFIX x: <urn:x#>\nclear all", "read-only"),
        ("LOAD <http://127.0.0.1:9/graph.ttl>", "LOAD is refused"),
        ("SELECT * WHERE { service <http://127.0.0.1:9/> { ?s ?p ?o } }", "SERVICE is refused"),
        ("SELECT * FROM <urn:g> WHERE { ?s ?p ?o }", "FROM and FROM NAMED"),
        ("SELECT * FROM NAMED <urn:g> WHERE { GRAPH ?g { ?s ?p ?o } }", "FROM and FROM NAMED"),
    ],
)
def test_what_kg_query_refuses(query, refused):
    with pytest.raises(QueryError, match=refused):
        check_query(query)


@pytest.mark.parametrize(
    "query",
    [
        'SELECT ?service WHERE { ?service <urn:p> "SERVICE <http://x/> { }" }',
        "SELECT * WHERE { ?s <http://example.org/INSERT> ?o } # LOAD <http://x/>",
        "PREFIX from: <urn:from#>\nSELECT * WHERE { ?s from:service ?o ; <urn:delete> ?x }",
        "SELECT * WHERE { ?s ?p '''a\nFROM <urn:g>''' }",
    ],
)
def test_keywords_in_strings_iris_comments_and_names_are_not_keywords(query):
    check_query(query)


def _listener() -> tuple[socket.socket, list[bytes]]:
    """A local TCP port that records whatever connects to it (closed by the caller)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(10)
    seen: list[bytes] = []

    def accept() -> None:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            try:
                seen.append(conn.recv(4096))
            except OSError:
                seen.append(b"")
            conn.sendall(b"HTTP/1.1 500 no\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=accept, daemon=True).start()
    return server, seen


def test_service_sends_nothing_unless_allowed(fake_build):
    server, seen = _listener()
    port = server.getsockname()[1]
    query = f"SELECT * WHERE {{ SERVICE <http://127.0.0.1:{port}/sparql> {{ ?s ?p ?o }} }}"
    try:
        code, _, err = run("query", query, "--graph", str(fake_build.out))
        assert code == 1 and "SERVICE is refused" in err and "--allow-service" in err
        time.sleep(0.5)
        assert seen == []
        code, _, err = run("query", query, "--graph", str(fake_build.out), "--allow-service")
        assert code == 1 and "the query failed" in err  # the endpoint answered 500
        for _ in range(50):
            if seen:
                break
            time.sleep(0.1)
        assert seen and b"sparql" in seen[0]
    finally:
        server.close()


def test_select_in_every_format(fake_build):
    query = "SELECT ?p ?title WHERE { ?p a kg:Paper ; dcterms:title ?title } ORDER BY ?title"
    result = run_query(fake_build.out, query)
    expected = sorted(fake_build.kg.labels.values())
    assert result.columns == ("p", "title")
    assert [row[1].value for row in result.rows] == expected
    table = format_result(result, "table")
    assert table.splitlines()[2].startswith("paper:") and f"({len(expected)} rows)" in table
    rows = json.loads(format_result(result, "json"))
    assert rows[0]["p"].startswith("https://w3id.org/kg/paper/")
    assert [r["title"] for r in rows] == expected
    csv_lines = format_result(result, "csv").splitlines()
    assert csv_lines[0] == "p,title" and len(csv_lines) == len(expected) + 1
    assert format_result(result, "tsv").splitlines()[1].split("\t")[0] == rows[0]["p"]


def test_the_table_wraps_long_values_and_cuts_none(fake_build):
    result = run_query(fake_build.out, "SELECT ?a WHERE { ?p dcterms:abstract ?a } LIMIT 3")
    table = format_result(result, "table", width=40)
    assert all(len(line) <= 40 for line in table.splitlines())
    words = table.split()
    for row in result.rows:
        for word in row[0].value.split():
            assert word in words or any(word.startswith(w) for w in words)
    shown = " ".join(line.strip() for line in table.splitlines()[2:-1])
    for row in result.rows:
        assert " ".join(row[0].value.split()) in " ".join(shown.split())


def test_ask_construct_and_describe(fake_build):
    assert run_query(fake_build.out, "ASK { ?p a kg:Paper }").boolean is True
    assert run_query(fake_build.out, "ASK { ?p a kg:Nothing }").boolean is False
    paper = sorted(str(p) for p in fake_build.rdf.subjects(None, KG.Paper))[0]
    construct = run_query(
        fake_build.out, f"CONSTRUCT {{ <{paper}> ?p ?o }} WHERE {{ <{paper}> ?p ?o }}"
    )
    expected = Graph()
    for triple in fake_build.rdf.triples((URIRef(paper), None, None)):
        expected.add(triple)
    for fmt, parser in (("turtle", "turtle"), ("ntriples", "nt"), ("table", "turtle")):
        again = Graph().parse(data=format_result(construct, fmt), format=parser)
        assert isomorphic(again, expected), fmt
    rows = json.loads(format_result(construct, "json"))
    assert len(rows) == len(expected) and set(rows[0]) == {"subject", "predicate", "object"}
    describe = run_query(fake_build.out, f"DESCRIBE <{paper}>")
    assert {t[0].value for t in describe.triples} >= {paper}
    code, out, _ = run("query", f"DESCRIBE <{paper}>", "--graph", str(fake_build.out))
    assert code == 0 and isomorphic(Graph().parse(data=out, format="turtle"), expected)


def test_bind_gives_a_variable_a_value(fake_build):
    paper = sorted(fake_build.kg.papers, key=lambda p: p.id)[0]
    query = "SELECT ?title WHERE { ?p dcterms:title ?title }"
    code, out, err = run(
        "query",
        query,
        "--graph",
        str(fake_build.out),
        "--bind",
        f"p=paper:{paper.id}",
        "--format",
        "json",
    )
    assert code == 0, err
    assert json.loads(out) == [{"title": fake_build.kg.labels[paper.id]}]
    code, _, err = run("query", query, "--graph", str(fake_build.out), "--bind", "q=paper:x")
    assert code == 1 and "has no variable ?q" in err
    code, _, err = run("query", query, "--graph", str(fake_build.out), "--bind", "p=nope:x")
    assert code == 1 and "cannot read 'nope:x' as an RDF term" in err
    assert parse_term('"a \\"b\\""@en') == ("literal", 'a "b"', "en", None)


def test_a_missing_query_file_is_reported_as_such(fake_build):
    code, _, err = run("query", "queries/no-such-query.rq", "--graph", str(fake_build.out))
    assert code == 1
    assert "no such query file" in err and "syntax" not in err


def test_syntax_errors_point_at_the_place(fake_build):
    code, _, err = run("query", "SELECT ?x WHERE {\n  ?x ?p\n}", "--graph", str(fake_build.out))
    assert code == 1 and "SPARQL syntax error at line 3" in err and "^" in err


def test_timeout_stops_a_runaway_query(fake_build):
    query = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
    start = time.monotonic()
    with pytest.raises(QueryError, match=r"ran longer than 1 s and was stopped"):
        run_query(fake_build.out, query, timeout=1)
    assert time.monotonic() - start < 30
    code, _, err = run("query", query, "--graph", str(fake_build.out), "--timeout", "1")
    assert code == 1 and "--timeout" in err


def test_a_query_within_its_time_gives_the_same_answer(fake_build):
    query = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    direct = run_query(fake_build.out, query)
    bounded = run_query(fake_build.out, query, timeout=60)
    assert direct == bounded and int(direct.rows[0][0].value) == len(fake_build.rdf)


def test_a_stale_store_is_not_used(fake_build, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(fake_build.out, out)
    assert open_store(out).note is None
    ttl = out / "kg.ttl"
    ttl.write_text(ttl.read_text() + "\n<urn:x> a <https://w3id.org/kg/ns#Paper> .\n")
    opened = open_store(out)
    assert opened.note and "changed since the store was written" in opened.note
    count = "SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }"
    assert run_query(out, count).rows[0][0].value == str(len(fake_build.kg.papers) + 1)
    code, _, err = run("serve", str(out), "--port", "1")
    assert code == 1 and "out of date" in err


def test_the_store_holds_the_turtle_s_triples(fake_build):
    from_turtle = store_from_rdflib(Graph().parse(fake_build.out / "kg.ttl"))
    opened = open_store(fake_build.out)
    assert opened.path.name == STORE_NAME
    assert set(opened.store) == set(from_turtle)


@pytest.mark.slow
def test_a_store_loaded_in_pieces_holds_every_triple(fake_build, tmp_path, monkeypatch):
    """kg.nt goes in in pieces cut at line ends; a piece of a few hundred bytes cuts often."""
    import pyoxigraph as ox

    from kg.query import store as stores

    monkeypatch.setattr(stores, "PIECE_BYTES", 300)
    stores.write_store(tmp_path / "s", fake_build.out / "kg.ttl", fake_build.out / "kg.nt")
    stores.write_store(tmp_path / "whole", fake_build.out / "kg.ttl")  # the Turtle, one load
    loaded, whole = (ox.Store.read_only(str(tmp_path / name)) for name in ("s", "whole"))
    assert len(loaded) == len(whole) > 1000
    assert set(loaded) == set(whole)
    assert stores.stale(tmp_path / "s", fake_build.out / "kg.ttl") is None  # stamped


def test_a_stopped_store_load_is_closed_unstamped_and_refused(fake_build, tmp_path, monkeypatch):
    import pyoxigraph as ox

    from kg.errors import KGError
    from kg.query import store as stores

    monkeypatch.setattr(stores, "PIECE_BYTES", 300)
    stop = threading.Event()
    stop.set()
    with pytest.raises(KGError, match="not finished: stopped"):
        stores.write_store(
            tmp_path / "s", fake_build.out / "kg.ttl", fake_build.out / "kg.nt", stop
        )
    assert not (tmp_path / "s" / stores.SOURCE_STAMP).exists()
    assert stores.stale(tmp_path / "s", fake_build.out / "kg.ttl") is not None
    reopened = ox.Store(str(tmp_path / "s"))  # RocksDB's lock was released: it was closed
    assert len(reopened) == 0


@pytest.mark.parametrize("command", ["query", "serve"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999", "-1", "soon"])
def test_a_timeout_is_a_finite_number_of_seconds(command, value, fake_build):
    args = ["query", "ASK {}", "--graph"] if command == "query" else ["serve"]
    code, out, err = run(*args, str(fake_build.out), "--timeout", value)
    assert code == 2 and out == ""
    assert err.startswith(f"kg: error: --timeout {value}: ") and err.count("\n") == 1, err
    assert "finite number of seconds" in err


def test_an_unknown_prefix_is_named_with_kgs_prefixes(fake_build):
    query = "SELECT ?c WHERE {\n  ?c a skos:Concept ;\n     foo:label ?l }"
    with pytest.raises(QueryError) as raised:
        run_query(fake_build.out, query)
    message = str(raised.value)
    assert message.startswith("SPARQL syntax error at line 3, column 6: unknown prefix `foo:`")
    assert "\\u{" not in message and "kg:, " in message and "skos:" in message
    assert message.endswith("     foo:label ?l }\n       ^")
    declared = "PREFIX foo: <urn:foo#>\nSELECT * WHERE { ?s foo:p ?o ; bar:q ?x }"
    with pytest.raises(QueryError, match="unknown prefix `bar:`"):
        run_query(fake_build.out, declared)


def test_a_label_without_its_language_tag_gets_a_hint(fake_build):
    label = run_query(fake_build.out, "SELECT ?l WHERE { ?c skos:prefLabel ?l } LIMIT 1").rows[0][0]
    assert label is not None and label.language == "en"
    plain = f'SELECT ?c WHERE {{ ?c skos:prefLabel "{label.value}" }}'
    code, out, err = run("query", plain, "--graph", str(fake_build.out))
    assert code == 0 and out.endswith("(0 rows)\n")
    assert err.startswith("kg: hint: ") and err.count("\n") == 1, err
    assert f'"{label.value}"@en' in err
    tagged = f'SELECT ?c WHERE {{ ?c skos:prefLabel "{label.value}"@en }}'
    code, out, err = run("query", tagged, "--graph", str(fake_build.out))
    assert code == 0 and "(1 row" in out and err == ""
    code, out, err = run("query", plain, "--graph", str(fake_build.out), "--format", "csv")
    assert code == 0 and out == "c\n" and "kg: hint:" in err


def test_no_hint_where_no_label_carries_the_string(fake_build):
    """A string that is only an output or a separator ("method", ", ") is no label: an
    empty result says nothing about language tags."""
    for query in (
        'SELECT ?c ?kind WHERE { VALUES ?kind { "method" } ?c kg:unheardOf ?kind }',
        'SELECT (GROUP_CONCAT(?l; separator=", ") AS ?names) WHERE { '
        "?c skos:prefLabel ?l ; kg:unheardOf ?x } GROUP BY ?c",
    ):
        code, out, err = run("query", query, "--graph", str(fake_build.out))
        assert code == 0 and out.endswith("(0 rows)\n") and err == "", query


def test_the_hint_reads_the_string_as_sparql_does(fake_build):
    """Escapes are read, so a label with a quote or a tab gets the hint (in the same store,
    with or without a time limit), and a raw line break in a long string breaks nothing."""
    from kg.query.sparql import _plain_literal

    assert _plain_literal('SELECT * { ?s ?p "say \\"hi\\"\\t" }', {}) == 'say "hi"\t'
    label = run_query(fake_build.out, "SELECT ?l WHERE { ?c skos:prefLabel ?l } LIMIT 1").rows[0][0]
    plain = f'SELECT ?c WHERE {{ ?c skos:prefLabel "{label.value}" }}'
    for timeout in (None, 60):
        assert run_query(fake_build.out, plain, timeout=timeout).hint, timeout
    raw = 'SELECT ?c WHERE { ?c skos:prefLabel """a\rb""" }'
    assert run_query(fake_build.out, raw, timeout=60).rows == ()
