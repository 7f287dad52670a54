"""What ``kg serve`` answers under load: many concurrent clients on 127.0.0.1.

    .venv/bin/python bench/serve_load.py [BUILD_DIR] [--clients 50] [--seconds 20]

Serves BUILD_DIR (the ``--out`` of a ``kg build``) with ``kg serve`` in a child
process, on a free port of 127.0.0.1. Without BUILD_DIR, the seeds are built
first with the tests' fake embedder (seconds; the graph has the real build's
shape, its concepts are rougher). Then ``--clients`` threads, each with its own
connection per request (``urllib``), send the shipped queries in ``queries/``
round-robin, each starting at a different one, until ``--seconds`` have passed;
a request in flight then is waited for up to ``--request-timeout`` seconds,
and a client still stuck after that is counted and left behind.

Prints one JSON object: requests/s, latency p50/p95/p99 (ms) of all completed
requests, the slowest query's p50, and errors by kind (HTTP status, refused
or reset connections, client time-outs). The clients run on the same cores
as the server, as a local client of the endpoint would.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUERIES = sorted((ROOT / "queries").glob("*.rq"))
#: Seconds ``kg serve`` gets to start answering.
START_SECONDS = 120


@dataclass
class Tally:
    """What the clients saw, added to under a lock."""

    latencies: list[float] = field(default_factory=list)
    by_query: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ok(self, name: str, seconds: float) -> None:
        with self.lock:
            self.latencies.append(seconds)
            self.by_query.setdefault(name, []).append(seconds)

    def failed(self, kind: str) -> None:
        with self.lock:
            self.errors[kind] += 1


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile of ``values`` (sorted or not)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_seeds(out: Path) -> None:
    """The seeds built with the fake embedder of ``tests/conftest.py``."""
    code = (
        "import sys; sys.path.insert(0, 'tests'); from conftest import FakeEmbedder; "
        "from kg.build import BuildRequest, build; "
        f"build(BuildRequest(['seeds']), {str(out)!r}, embedder=FakeEmbedder())"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def wait_until_serving(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"kg serve ended with status {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"kg serve did not answer at {url} within {START_SECONDS} s")


def client(
    endpoint: str, first: int, deadline: float, request_timeout: float, tally: Tally
) -> None:
    """Send the shipped queries round-robin from the ``first``-th until ``deadline``."""
    texts = [(q.stem, q.read_bytes()) for q in QUERIES]
    i = first
    while time.monotonic() < deadline:
        name, text = texts[i % len(texts)]
        i += 1
        request = urllib.request.Request(
            endpoint,
            data=text,
            headers={
                "Content-Type": "application/sparql-query",
                "Accept": "application/sparql-results+json",
            },
        )
        start = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=request_timeout) as reply:
                json.loads(reply.read())
            tally.ok(name, time.monotonic() - start)
        except urllib.error.HTTPError as exc:
            tally.failed(f"HTTP {exc.code}")
        except TimeoutError:
            tally.failed("client time-out")
        except urllib.error.URLError as exc:
            reason = exc.reason
            is_timeout = isinstance(reason, (TimeoutError, socket.timeout))
            tally.failed("client time-out" if is_timeout else type(reason).__name__)
        except (ConnectionError, OSError) as exc:
            tally.failed(type(exc).__name__)
        except json.JSONDecodeError:
            tally.failed("body not JSON")


def load(endpoint: str, clients: int, seconds: float, request_timeout: float) -> dict:
    tally = Tally()
    start = time.monotonic()
    deadline = start + seconds
    threads = [
        threading.Thread(
            target=client,
            args=(endpoint, i, deadline, request_timeout, tally),
            daemon=True,
        )
        for i in range(clients)
    ]
    for t in threads:
        t.start()
    for t in threads:  # bounded: a request started before the deadline may take this long
        t.join(max(0.0, deadline + request_timeout + 1 - time.monotonic()))
    elapsed = time.monotonic() - start
    stuck = sum(t.is_alive() for t in threads)
    with tally.lock:
        done = list(tally.latencies)
        errors = dict(tally.errors)
        slowest = max(tally.by_query.items(), key=lambda kv: percentile(kv[1], 0.5), default=None)
    ms = {f"p{p}_ms": round(1000 * percentile(done, p / 100), 1) for p in (50, 95, 99)}
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "queries": len(QUERIES),
        "requests": len(done) + sum(errors.values()),
        "ok": len(done),
        "requests_per_s": round(len(done) / elapsed, 1),
        **(ms if done else {}),
        "slowest_query_p50_ms": (
            {slowest[0]: round(1000 * percentile(slowest[1], 0.5), 1)} if slowest else None
        ),
        "errors": errors,
        "clients_stuck": stuck,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build", nargs="?", type=Path, help="a kg build's --out directory")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--request-timeout", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kg-serve-load-") as tmp:
        out = args.build
        if out is None:
            out = Path(tmp) / "out"
            print("building the seeds with the fake embedder…", file=sys.stderr)
            build_seeds(out)
        port = free_port()
        kg = [sys.executable, "-m", "kg.cli", "serve", str(out), "--port", str(port)]
        server = subprocess.Popen(kg, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            wait_until_serving(f"http://127.0.0.1:{port}/", server)
            print(f"{args.clients} clients for {args.seconds:g} s on port {port}…", file=sys.stderr)
            endpoint = f"http://127.0.0.1:{port}/query"
            report = load(endpoint, args.clients, args.seconds, args.request_timeout)
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
    print(json.dumps({"build": str(out), **report}, indent=1))


if __name__ == "__main__":
    main()
