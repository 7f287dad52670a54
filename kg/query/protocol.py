"""One SPARQL 1.1 Protocol query, answered in full before anything is sent.

:func:`answer` is what ``kg serve`` does with each request, without HTTP:
the same checks as ``kg query`` (:func:`kg.query.check_query`: read-only, no
FROM, no SERVICE unless allowed), kg's prefixes predeclared, and the whole
result serialised into bytes in the format the client accepts. A query that
fails, however late, is therefore an error status with a plain-text body,
never a success with a cut result.

- SELECT and ASK: SPARQL JSON (the default), XML, CSV or TSV results;
- CONSTRUCT and DESCRIBE: Turtle (the default), N-Triples or any RDF
  format Oxigraph writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kg.errors import QueryError
from kg.query.syntax import QUERY_PREFIXES, check_query, syntax_error

__all__ = ["Reply", "answer", "query_of", "READ_ONLY"]

#: What a client that sends an update is told.
READ_ONLY = (
    "kg serve is read-only: updates (INSERT, DELETE, LOAD, ...) are refused; the graph "
    "changes only by `kg build`"
)
_PLAIN = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class Reply:
    """An HTTP response: status, content type and the whole body."""

    status: int
    content_type: str
    body: bytes

    @classmethod
    def error(cls, status: int, message: str) -> Reply:
        return cls(status, _PLAIN, (message.rstrip("\n") + "\n").encode("utf-8"))


def query_of(params: Mapping[str, Sequence[str]]) -> str:
    """The query text of a request's parameters (URL query string or form body).

    Raises:
        QueryError: No query, several, an update, or a dataset given by
            ``default-graph-uri`` / ``named-graph-uri``.
    """
    if "update" in params:
        raise QueryError(READ_ONLY)
    queries = params.get("query", [])
    if len(queries) != 1:
        raise QueryError(
            "expected exactly one `query` parameter (SPARQL 1.1 Protocol: GET /query?query=..., "
            "or POST a form or an application/sparql-query body); the page at / has a form"
        )
    for name in ("default-graph-uri", "named-graph-uri"):
        if name in params:
            raise QueryError(
                f"{name} is not supported: kg's store holds one default graph and no named "
                "graphs; leave the parameter out (the whole graph is queried by default)"
            )
    return queries[0]


def answer(store: Any, query: str, accept: str | None, *, allow_service: bool = False) -> Reply:
    """The complete reply to ``query`` on a pyoxigraph ``store``: 200 with the result, or an error.

    400: the query is refused or malformed; 406: no format the client
    accepts; 500: the query failed while it was evaluated.
    """
    import pyoxigraph

    try:
        check_query(query, allow_service=allow_service)
    except QueryError as exc:
        return Reply.error(400, str(exc))
    try:
        result = store.query(query, prefixes=QUERY_PREFIXES)
        graph = isinstance(result, pyoxigraph.QueryTriples)
        chosen = negotiate(accept, graph)
        if chosen is None:
            return Reply.error(406, _not_acceptable(accept, graph))
        body = result.serialize(format=chosen)
    except SyntaxError as exc:
        return Reply.error(400, str(syntax_error(query, str(exc))))
    except Exception as exc:  # anything the engine raises mid-result is this query's failure
        return Reply.error(500, f"the query failed: {exc}")
    return Reply(200, f"{chosen.media_type}; charset=utf-8", body)


def negotiate(accept: str | None, graph: bool) -> Any:
    """The format to answer in: the client's most preferred one Oxigraph writes, or None.

    No ``Accept`` header, or ``*/*``, gives SPARQL JSON results (Turtle for a graph).
    """
    import pyoxigraph

    kind: Any = pyoxigraph.RdfFormat if graph else pyoxigraph.QueryResultsFormat
    default = pyoxigraph.RdfFormat.TURTLE if graph else pyoxigraph.QueryResultsFormat.JSON
    for media in _preferred(accept or "*/*"):
        if media in ("*/*", "*"):
            return default
        found = kind.from_media_type(media)
        if found is not None:
            return found
    return None


def _preferred(accept: str) -> list[str]:
    """The media types of an ``Accept`` header, most preferred first, q=0 left out."""
    ranked = []
    for position, part in enumerate(accept.split(",")):
        media, *options = (piece.strip() for piece in part.split(";"))
        quality = 1.0
        for option in options:
            key, _, value = option.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if media and quality > 0:
            ranked.append((-quality, position, media.lower()))
    return [media for _, _, media in sorted(ranked)]


def _not_acceptable(accept: str | None, graph: bool) -> str:
    offered = (
        "text/turtle, application/n-triples, application/rdf+xml, application/ld+json"
        if graph
        else "application/sparql-results+json, application/sparql-results+xml, text/csv, "
        "text/tab-separated-values"
    )
    return f"no result format for Accept: {accept}; kg serve answers in {offered}"
