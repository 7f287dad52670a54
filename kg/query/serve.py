"""``kg serve``: the built graph as a SPARQL 1.1 Protocol endpoint, by Oxigraph's own server.

kg does not implement HTTP: it runs ``oxigraph serve-read-only`` (the
``oxigraph`` package on PyPI) over the store ``kg build`` wrote, bound to
the loopback interface. The endpoint is read-only (``/update`` is refused)
and answers SPARQL 1.1 Protocol requests at ``/query`` in every standard
result format; ``/`` serves Oxigraph's query page.

Unlike ``kg query``, Oxigraph's server evaluates SERVICE clauses that a
client sends (federated queries): it is bound to 127.0.0.1 so that only
programs on this machine can send it queries.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from kg.errors import QueryError
from kg.query.store import resolve, stale

__all__ = ["Endpoint", "endpoint", "oxigraph_command"]

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Endpoint:
    """A server to start: its command line and the URL clients use."""

    command: tuple[str, ...]
    url: str
    store: Path


def oxigraph_command() -> str:
    """The ``oxigraph`` executable installed with kg (beside this Python first)."""
    beside = Path(sys.executable).parent / "oxigraph"
    if beside.is_file():
        return str(beside)
    found = shutil.which("oxigraph")
    if found is None:
        raise QueryError(
            "the Oxigraph server is not installed; run `pip install oxigraph==0.5.13` "
            "(it comes with kg's dependencies)"
        )
    return found


def endpoint(path: str | Path, port: int = 7878, timeout: float | None = None) -> Endpoint:
    """The command that serves the store of the build at ``path`` on ``127.0.0.1:port``.

    Raises:
        QueryError: There is no store, or it no longer holds the build's ``kg.ttl``.
    """
    rdf_file, store = resolve(path)
    if store is None:
        raise QueryError(
            f"no Oxigraph store at {path}; `kg build` writes one (kg.oxigraph) beside kg.ttl"
        )
    if rdf_file is not None:
        why = stale(store, rdf_file)
        if why is not None:
            raise QueryError(f"{store} is out of date: {why}; run `kg build` again")
    command = [oxigraph_command(), "serve-read-only", "--location", str(store)]
    command += ["--bind", f"{HOST}:{port}"]
    if timeout:
        command += ["--timeout-s", str(max(1, round(timeout)))]
    return Endpoint(tuple(command), f"http://{HOST}:{port}/query", store)
