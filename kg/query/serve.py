"""``kg serve``: the built graph as a read-only SPARQL 1.1 Protocol endpoint.

The HTTP side is Python's own ``http.server``; the queries run in a few worker
processes, each with the store open read-only, and each request is answered
in full (:func:`kg.query.protocol.answer`) before its status is sent. Workers
are separate processes because an Oxigraph query cannot be interrupted from
its own process: a query that runs past the time limit is stopped by killing
its worker, which is then replaced, and the client gets 503.

What a client can reach:

- ``/query``: SPARQL 1.1 Protocol queries (GET, POST form, POST
  ``application/sparql-query``), checked as ``kg query`` checks them: no
  updates, no LOAD, no FROM, and no SERVICE unless ``allow_service`` is set,
  so nothing a client sends makes the server connect anywhere;
  ``default-graph-uri`` and ``named-graph-uri`` are refused like FROM;
- ``/``: a small query form, self-contained (:mod:`kg.query.page`);
- ``/update``: refused, the endpoint is read-only.
"""

from __future__ import annotations

import errno
import ipaddress
import multiprocessing
import os
import queue
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from kg.defaults import HOST, PORT
from kg.errors import QueryError
from kg.query.page import PAGE
from kg.query.protocol import READ_ONLY, Reply, answer, query_of
from kg.query.store import resolve, stale

__all__ = ["Endpoint", "open_endpoint", "is_loopback", "MAX_BODY"]

#: The largest request body read, in bytes.
MAX_BODY = 1 << 20
#: Seconds a worker process gets to open the store.
START_SECONDS = 60
_PAGE_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; form-action 'self'"
)


def is_loopback(host: str) -> bool:
    """Whether binding to ``host`` keeps the endpoint to this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def open_endpoint(
    path: str | Path,
    *,
    host: str = HOST,
    port: int = PORT,
    timeout: float | None = None,
    allow_service: bool = False,
    workers: int | None = None,
) -> Endpoint:
    """Bind ``host:port`` and start the workers over the store of the build at ``path``.

    Nothing is served until :meth:`Endpoint.serve_forever`.

    Raises:
        QueryError: There is no store, it is out of date or cannot be opened,
            or the address cannot be bound (a taken port names ``--port``).
    """
    store = _store(path)
    server = _bind(host, port)
    try:
        pool = _Pool(store, workers or min(4, max(2, os.cpu_count() or 2)), allow_service)
    except BaseException:
        server.server_close()
        raise
    return Endpoint(server, pool, store, timeout, allow_service)


def _store(path: str | Path) -> Path:
    rdf_file, store = resolve(path)
    if store is None:
        raise QueryError(
            f"no Oxigraph store at {path}; `kg build` writes one (kg.oxigraph) beside kg.ttl"
        )
    if rdf_file is not None:
        why = stale(store, rdf_file)
        if why is not None:
            raise QueryError(f"{store} is out of date: {why}; run `kg build` again")
    return store


def _bind(host: str, port: int) -> _Server:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    server_class = type("_Bound", (_Server,), {"address_family": family})
    try:
        return server_class((host.strip("[]"), port), _Handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise QueryError(
                f"port {port} on {host} is already in use; stop what listens there or "
                "serve on another port with --port N"
            ) from exc
        raise QueryError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --host "
            "or --port"
        ) from exc


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Connections the kernel holds until they are accepted: socketserver's 5
    # made clients wait a second for a SYN to be resent, or be reset, under 50
    # concurrent clients (bench/serve_load.py).
    request_queue_size = 128
    endpoint: Endpoint


class Endpoint:
    """A bound, not yet serving, endpoint; :meth:`close` stops its workers."""

    def __init__(
        self,
        server: _Server,
        pool: _Pool,
        store: Path,
        timeout: float | None,
        allow_service: bool,
    ) -> None:
        self.server, self.pool, self.store = server, pool, store
        self.timeout, self.allow_service = timeout, allow_service
        host, port = str(server.server_address[0]), server.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{port}/query"
        server.endpoint = self

    def serve_forever(self) -> None:
        self.server.serve_forever()

    def close(self) -> None:
        self.server.server_close()
        self.pool.close()

    def ask(self, query: str, accept: str | None) -> Reply:
        return self.pool.ask(query, accept, self.timeout)


# --- workers -----------------------------------------------------------------------


class _Worker:
    def __init__(self, context: Any, store: Path, allow_service: bool) -> None:
        self.connection, theirs = context.Pipe()
        self.process = context.Process(
            target=_work, args=(str(store), allow_service, theirs), daemon=True
        )
        self.process.start()
        theirs.close()

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()


def _work(store_path: str, allow_service: bool, connection: Any) -> None:
    """A worker process: open the store, then answer queries until the pipe closes."""
    import pyoxigraph

    try:
        store = pyoxigraph.Store.read_only(store_path)
    except OSError as exc:
        connection.send(f"cannot open the Oxigraph store {store_path}: {exc}")
        return
    connection.send(None)
    while True:
        try:
            query, accept = connection.recv()
        except (EOFError, OSError):
            return
        connection.send(answer(store, query, accept, allow_service=allow_service))


class _Pool:
    """Worker processes, each used by one request at a time."""

    def __init__(self, store: Path, size: int, allow_service: bool) -> None:
        # Spawned, not forked: the server's threads may hold locks at any moment.
        self.context = multiprocessing.get_context("spawn")
        self.store, self.allow_service = store, allow_service
        self.idle: queue.Queue[_Worker] = queue.Queue()
        self.all: set[_Worker] = set()
        self.lock = threading.Lock()
        started = [self._start() for _ in range(size)]
        try:
            for worker in started:
                if not worker.connection.poll(START_SECONDS):
                    raise QueryError(f"cannot open the Oxigraph store {store}: no answer")
                problem = worker.connection.recv()
                if problem is not None:
                    raise QueryError(problem)
                self.idle.put(worker)
        except (EOFError, OSError) as exc:
            self.close()
            raise QueryError(f"cannot start a query worker: {exc}") from exc
        except BaseException:
            self.close()
            raise

    def _start(self) -> _Worker:
        worker = _Worker(self.context, self.store, self.allow_service)
        with self.lock:
            self.all.add(worker)
        return worker

    def _replace(self, worker: _Worker) -> None:
        with self.lock:
            self.all.discard(worker)
        worker.stop()
        fresh = self._start()
        # The new worker opens the store while it waits in the queue.
        threading.Thread(target=self._ready, args=(fresh,), daemon=True).start()

    def _ready(self, worker: _Worker) -> None:
        try:
            if worker.connection.poll(START_SECONDS) and worker.connection.recv() is None:
                self.idle.put(worker)
                return
        except (EOFError, OSError):
            pass
        with self.lock:
            self.all.discard(worker)
        worker.stop()

    def ask(self, query: str, accept: str | None, timeout: float | None) -> Reply:
        """The reply of a worker, or 503 when the time is up (waiting included)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        too_slow = Reply.error(
            503,
            f"the query ran longer than {timeout or 0:g} s and was stopped; make it more "
            "selective (a LIMIT, more specific patterns) or start kg serve with a higher "
            "--timeout",
        )
        try:
            worker = self.idle.get(timeout=timeout)
        except queue.Empty:
            return too_slow
        try:
            worker.connection.send((query, accept))
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not worker.connection.poll(left):
                self._replace(worker)
                return too_slow
            reply = worker.connection.recv()
        except (EOFError, OSError):
            self._replace(worker)
            return Reply.error(500, "the query process ended without an answer")
        self.idle.put(worker)
        assert isinstance(reply, Reply)
        return reply

    def close(self) -> None:
        with self.lock:
            workers, self.all = list(self.all), set()
        for worker in workers:
            worker.stop()


# --- HTTP ----------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "kg-serve"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: kg serve prints only its start, its errors and its stop."""

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/":
            self._send(_page(), {"Content-Security-Policy": _PAGE_POLICY})
        elif url.path == "/query":
            self._query(urllib.parse.parse_qs(url.query, keep_blank_values=True))
        elif url.path == "/update":
            self._send(Reply.error(405, READ_ONLY), {"Allow": "GET, POST"})
        else:
            self._send(Reply.error(404, f"no {url.path} here: SPARQL queries go to /query"))

    def do_POST(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        body = self._body()
        if body is None:
            return
        if url.path == "/update":
            self._send(Reply.error(403, READ_ONLY))
            return
        if url.path != "/query":
            self._send(Reply.error(404, f"no {url.path} here: SPARQL queries go to /query"))
            return
        params = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            self._send(Reply.error(400, "the request body is not UTF-8"))
            return
        if kind == "application/x-www-form-urlencoded":
            for name, values in urllib.parse.parse_qs(text, keep_blank_values=True).items():
                params.setdefault(name, []).extend(values)
        elif kind == "application/sparql-query":
            params.setdefault("query", []).append(text)
        elif kind == "application/sparql-update":
            self._send(Reply.error(403, READ_ONLY))
            return
        else:
            self._send(
                Reply.error(
                    415,
                    f"cannot read a {kind or 'body without a Content-Type'}; POST "
                    "application/x-www-form-urlencoded or application/sparql-query",
                )
            )
            return
        self._query(params)

    def _body(self) -> bytes | None:
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            self._send(Reply.error(411, "a POST needs a Content-Length"))
            return None
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True
            self._send(Reply.error(413, f"the request is larger than {MAX_BODY:,} bytes"))
            return None
        return self.rfile.read(length)

    def _query(self, params: dict[str, list[str]]) -> None:
        try:
            query = query_of(params)
        except QueryError as exc:
            self._send(Reply.error(403 if "read-only" in str(exc) else 400, str(exc)))
            return
        self._send(self.server.endpoint.ask(query, self.headers.get("Accept")))

    def _send(self, reply: Reply, headers: dict[str, str] | None = None) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)


def _page() -> Reply:
    return Reply(200, "text/html; charset=utf-8", PAGE.encode("utf-8"))
