"""kg serve: Oxigraph's SPARQL 1.1 Protocol server over the built store, and SPARQLWrapper."""

from __future__ import annotations

import contextlib
import html
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from html.parser import HTMLParser
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
def serving(out: Path, *options: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """``kg serve`` on a free port of 127.0.0.1 until the block ends."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "kg.cli", "serve", str(out), "--port", str(port), *options],
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


# --- nothing a client sends makes the server connect anywhere ---------------------


class Listener:
    """A TCP listener on 127.0.0.1 that counts the connections made to it."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen()
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/sparql"
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.socket.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.close()


@pytest.fixture(scope="module")
def served(fake_build) -> Iterator[str]:
    with serving(fake_build.out) as (url, _):
        yield url


def request(url: str, params: dict[str, str], method: str = "GET") -> tuple[int, str, str]:
    """``(status, content type, body)`` of one SPARQL Protocol request."""
    data = urllib.parse.urlencode(params)
    if method == "GET":
        call = urllib.request.Request(f"{url}?{data}")
    else:
        call = urllib.request.Request(url, data=data.encode("ascii"), method="POST")
    try:
        with urllib.request.urlopen(call, timeout=30) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read().decode("utf-8")


ALL = "SELECT * WHERE { ?s ?p ?o }"
OUTBOUND = {
    "service": lambda u: {"query": f"SELECT * WHERE {{ SERVICE <{u}> {{ ?s ?p ?o }} }}"},
    "silent-service": lambda u: {"query": f"SELECT * {{ SERVICE SILENT <{u}> {{ ?s ?p ?o }} }}"},
    "from": lambda u: {"query": f"SELECT * FROM <{u}> WHERE {{ ?s ?p ?o }}"},
    "from-named": lambda u: {"query": f"SELECT * FROM NAMED <{u}> {{ GRAPH ?g {{ ?s ?p ?o }} }}"},
    "load": lambda u: {"query": f"LOAD <{u}>"},
    "default-graph-uri": lambda u: {"query": ALL, "default-graph-uri": u},
    "named-graph-uri": lambda u: {"query": ALL, "named-graph-uri": u},
}


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("case", OUTBOUND)
def test_no_clause_or_parameter_makes_the_server_connect_out(served, listener, case, method):
    status, content_type, body = request(served, OUTBOUND[case](listener.url), method)
    assert status == 400, body
    assert content_type.startswith("text/plain") and "Traceback" not in body
    if "service" in case:
        assert "SERVICE is refused" in body and "--allow-service" in body
    time.sleep(0.2)
    assert listener.connections == 0


def test_an_update_is_refused_without_connecting_out(served, listener):
    for url, params in (
        (served.replace("/query", "/update"), {"update": f"LOAD <{listener.url}>"}),
        (served, {"update": f"LOAD <{listener.url}>"}),
    ):
        status, content_type, body = request(url, params, "POST")
        assert 400 <= status < 500 and content_type.startswith("text/plain"), body
        assert "read-only" in body
    time.sleep(0.2)
    assert listener.connections == 0


def test_allow_service_lets_a_query_reach_another_endpoint(fake_build, listener):
    with serving(fake_build.out, "--allow-service") as (url, _):
        query = f"SELECT * WHERE {{ SERVICE SILENT <{listener.url}> {{ ?s ?p ?o }} }}"
        status, _, body = request(url, {"query": query})
    assert status == 200, body
    assert listener.connections >= 1


# --- where it listens ----------------------------------------------------------------


def test_serve_listens_on_loopback_unless_told_and_warns_when_told(fake_build):
    with serving(fake_build.out) as (url, process):
        pass
    assert url.startswith("http://127.0.0.1:")
    assert "unauthenticated" not in process.stderr.read()
    with serving(fake_build.out, "--host", "0.0.0.0") as (_, process):
        pass
    stderr = process.stderr.read()
    assert "kg: warning:" in stderr and "read-only but unauthenticated" in stderr, stderr
    assert "0.0.0.0" in stderr


@pytest.mark.parametrize(
    "host, loopback",
    [("127.0.0.1", True), ("127.8.0.1", True), ("localhost", True), ("::1", True),
     ("[::1]", True), ("0.0.0.0", False), ("::", False), ("192.168.1.4", False),
     ("example.org", False)],
)  # fmt: skip
def test_is_loopback(host, loopback):
    from kg.query.serve import is_loopback

    assert is_loopback(host) is loopback


def test_a_taken_port_is_one_error_line_before_anything_claims_to_serve(fake_build):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "kg.cli", "serve", str(fake_build.out), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("kg: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert f"port {port}" in done.stderr and "--port" in done.stderr


# --- a failed query is an error status, never a cut 200 ----------------------------

SLOW = {
    "rows": "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
    "count": "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
}


def test_a_query_past_the_timeout_is_503_with_a_plain_body(fake_build):
    with serving(fake_build.out, "--timeout", "1") as (url, _):
        for name, query in SLOW.items():
            for accept in ("application/sparql-results+json", "text/csv"):
                call = urllib.request.Request(
                    f"{url}?{urllib.parse.urlencode({'query': query})}", headers={"Accept": accept}
                )
                with pytest.raises(urllib.error.HTTPError) as raised:
                    urllib.request.urlopen(call, timeout=30)
                body = raised.value.read().decode("utf-8")
                assert raised.value.code == 503, (name, accept, body)
                assert raised.value.headers["Content-Type"].startswith("text/plain")
                assert body.startswith("the query ran longer than 1 s"), body
        client = SPARQLWrapper(url)
        client.setQuery(SLOW["rows"])
        client.setReturnFormat(JSON)
        with pytest.raises((SPARQLWrapperException, urllib.error.HTTPError)):
            client.query().convert()
        _, rows = client_rows(url, "SELECT (COUNT(*) AS ?n) WHERE { ?p a kg:Paper }")
        assert rows == [[str(len(fake_build.kg.papers))]]  # a new worker stood in


class _FailsMidResult:
    """A store whose result breaks while it is written out, as a lost disk would."""

    def query(self, query, **_):
        return self

    def serialize(self, **_):
        raise OSError("Input/output error (os error 5)")


def test_a_query_that_fails_mid_result_is_500_with_a_plain_body():
    from kg.query.protocol import answer

    reply = answer(_FailsMidResult(), "SELECT * WHERE { ?s ?p ?o }", "text/csv")
    assert reply.status == 500 and reply.content_type.startswith("text/plain")
    assert reply.body == b"the query failed: Input/output error (os error 5)\n"


# --- the page at / ----------------------------------------------------------------------


class _Links(HTMLParser):
    """Every URL a page would load or send something to: src, href, action, fetch()."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.script = ""
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        self.in_script = tag == "script"
        self.urls += [v or "" for k, v in attrs if k in ("src", "href", "action", "formaction")]

    def handle_data(self, data):
        if self.in_script:
            self.script += data


def test_the_page_at_the_root_is_a_self_contained_query_form(served):
    root = served.replace("/query", "/")
    with urllib.request.urlopen(root, timeout=30) as answer:
        page = answer.read().decode("utf-8")
        policy = answer.headers["Content-Security-Policy"] or ""
        assert answer.headers["Content-Type"].startswith("text/html")
    links = _Links()
    links.feed(page)
    assert "prefix.cc" not in page
    assert all(urllib.parse.urlsplit(u).netloc == "" for u in links.urls), links.urls
    assert re.findall(r"fetch\(\s*([^,)]+)", links.script) == ['"/query"']
    assert "<form" in page and "<textarea" in page and links.urls
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy
    # what the form sends gets rows
    query = re.search(r"<textarea[^>]*>(.*?)</textarea>", page, re.DOTALL)
    assert query is not None
    status, _, body = request(served, {"query": html.unescape(query.group(1))}, "POST")
    assert status == 200 and json.loads(body)["results"]["bindings"], body


def test_fifty_clients_connecting_at_once_are_queued_not_dropped(fake_build):
    """Before kg accepts them, 50 connections wait in the kernel's queue (socketserver's
    default of 5 dropped the rest: a resent SYN a second later, or a reset)."""
    from kg.query import open_endpoint

    endpoint = open_endpoint(fake_build.out, port=0, workers=1)
    port = endpoint.server.server_address[1]
    sockets = []
    serving = threading.Thread(target=endpoint.serve_forever, daemon=True)
    try:
        for _ in range(50):  # nothing accepts yet: each handshake is the kernel's alone
            sockets.append(socket.create_connection(("127.0.0.1", port), timeout=0.5))
        serving.start()
        ask = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
        query = f"GET /query?{urllib.parse.urlencode({'query': ask})} HTTP/1.1\r\n"
        for s in sockets:
            s.settimeout(30)
            s.sendall(f"{query}Host: x\r\nConnection: close\r\n\r\n".encode("ascii"))
        for s in sockets:
            assert s.makefile("rb").readline().startswith(b"HTTP/1.1 200")
    finally:
        for s in sockets:
            s.close()
        if serving.is_alive():
            endpoint.server.shutdown()
        endpoint.close()
