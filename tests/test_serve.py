"""kg serve: Oxigraph's SPARQL 1.1 Protocol server over the built store, and SPARQLWrapper."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from SPARQLWrapper import JSON, POST, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import SPARQLWrapperException

from kg.query import run_query

ROOT = Path(__file__).resolve().parents[1]
QUERIES = sorted((ROOT / "queries").glob("*.rq"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(out: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """``kg serve`` on a free port of 127.0.0.1 until the block ends."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "kg.cli", "serve", str(out), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/query"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                ask = urllib.parse.urlencode({"query": "ASK {}"})
                with urllib.request.urlopen(f"{url}?{ask}", timeout=2):
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        f"kg serve did not start: {process.communicate()}"
                    ) from exc
                time.sleep(0.2)
        yield url, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def client_rows(url: str, query: str) -> tuple[list[str], list[list[str]]]:
    client = SPARQLWrapper(url)
    client.setQuery(query)
    client.setReturnFormat(JSON)
    answer = client.query().convert()
    assert isinstance(answer, dict)
    columns = answer["head"]["vars"]
    rows = [[b.get(c, {}).get("value", "") for c in columns] for b in answer["results"]["bindings"]]
    return columns, rows


def test_serve_answers_sparql_clients_read_only(fake_build):
    query = "SELECT ?p ?title WHERE { ?p a kg:Paper ; dcterms:title ?title } ORDER BY ?title"
    prefixed = (
        "PREFIX kg: <https://w3id.org/kg/ns#>\nPREFIX dcterms: <http://purl.org/dc/terms/>\n"
        + query
    )
    with serving(fake_build.out) as (url, process):
        columns, rows = client_rows(url, prefixed)
        ours = run_query(fake_build.out, query)
        assert columns == list(ours.columns) and rows == ours.values()
        assert len(rows) == len(fake_build.kg.papers)
        update = SPARQLWrapper(url.replace("/query", "/update"))
        update.setMethod(POST)
        update.setQuery("INSERT DATA { <urn:a> <urn:b> <urn:c> }")
        with pytest.raises((SPARQLWrapperException, urllib.error.HTTPError)):
            update.query()
        _, after = client_rows(url, "SELECT * WHERE { <urn:a> ?p ?o }")
        assert after == []
    assert process.returncode == 0
    assert "read-only at http://127.0.0.1:" in process.stderr.read()


@pytest.mark.parametrize(
    "which", ["fake_build", pytest.param("seed_build", marks=pytest.mark.model)]
)
def test_every_shipped_query_gives_the_same_rows_through_serve(which, request):
    """Every file in queries/ (tests/test_queries.py checks the rows themselves)."""
    build = request.getfixturevalue(which)
    answered = 0
    with serving(build.out) as (url, _):
        for query_file in QUERIES:
            text = query_file.read_text(encoding="utf-8")
            ours = run_query(build.out, text)
            columns, rows = client_rows(url, text)
            assert columns == list(ours.columns), query_file.name
            assert rows == ours.values(), query_file.name
            answered += bool(rows)
    assert answered > len(QUERIES) // 2  # most queries have rows on the seeds


@pytest.mark.parametrize("query_file", QUERIES, ids=lambda p: p.name)
def test_sparqlwrapper_takes_every_shipped_query_for_a_query(query_file):
    """SPARQLWrapper guesses the query form from keywords, comments included ("add")."""
    client = SPARQLWrapper("http://127.0.0.1:1/query")
    client.setQuery(query_file.read_text(encoding="utf-8"))
    assert not client.isSparqlUpdateRequest()
    assert client.queryType in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")


def test_a_plain_kill_stops_the_server_with_kg_serve(fake_build):
    with serving(fake_build.out) as (url, process):
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(
                f"{url}?{urllib.parse.urlencode({'query': 'ASK {}'})}", timeout=2
            )
