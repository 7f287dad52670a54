"""What kg reads in a query's text before it runs: its tokens, what it refuses, its errors.

The checks read the query's tokens, not its text: a keyword inside a string,
an IRI, a comment, a variable (``?service``) or a prefixed name
(``ex:from``) is not a keyword. ``kg query`` and ``kg serve`` share them.
"""

from __future__ import annotations

import re

from kg.errors import QueryError
from kg.vocab import PREFIXES

__all__ = ["QUERY_PREFIXES", "TOKEN", "check_query", "syntax_error"]

#: Prefixes predeclared in every query (a query's own PREFIX lines take precedence).
QUERY_PREFIXES = {
    **{k: str(v) for k, v in PREFIXES.items()},
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
}
#: A SPARQL token; the group's name says which kind.
TOKEN = re.compile(
    r"""
    (?P<comment>\#[^\n]*)
  | (?P<string>\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*'''
              |"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<var>[?$][^\W]+)
  | (?P<pname>(?:[^\W\d][\w.-]*)?:(?:[\w.:%-]|\\.)*)
  | (?P<lang>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)
  | (?P<word>[^\W\d]\w*)
  | (?P<other>\S)
    """,
    re.VERBOSE,
)
_UPDATES = {"INSERT", "DELETE", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH", "USING"}


def _keywords(query: str) -> list[str]:
    return [m.group("word").upper() for m in TOKEN.finditer(query) if m.lastgroup == "word"]


def check_query(query: str, *, allow_service: bool = False) -> None:
    """Refuse what kg query does not do: updates, LOAD, SERVICE (unless allowed), FROM.

    Raises:
        QueryError: Saying what was refused and what to do instead.
    """
    words = set(_keywords(query))
    if "LOAD" in words:
        raise QueryError(
            "LOAD is refused: kg query is read-only and never fetches other graphs; "
            "load your data with `kg build` instead"
        )
    updates = sorted(words & _UPDATES)
    if updates:
        raise QueryError(
            f"{updates[0]} is a SPARQL update and kg query is read-only; the graph "
            "changes only by `kg build` (write a SELECT, ASK, CONSTRUCT or DESCRIBE query)"
        )
    if "SERVICE" in words and not allow_service:
        raise QueryError(
            "SERVICE is refused: it would send part of the query to another endpoint over "
            "the network; pass --allow-service to allow federated queries"
        )
    if "FROM" in words:
        raise QueryError(
            "FROM and FROM NAMED are not supported: kg's store holds one default graph and "
            "no named graphs, so they would select nothing; remove the clause (the whole "
            "graph is queried by default)"
        )


def syntax_error(query: str, message: str) -> QueryError:
    """Oxigraph's syntax error as one message that shows the line and points at the column.

    An undeclared prefix is named, with the list of kg's (Oxigraph lists the
    characters a name may hold instead).
    """
    found = re.match(r"error at (\d+):(\d+): (.*)", message, re.DOTALL)
    if not found:
        return QueryError(f"SPARQL syntax error: {message}")
    line, column, why = int(found.group(1)), int(found.group(2)), found.group(3)
    unknown = _unknown_prefix(query)  # Oxigraph may report it as something else expected
    if unknown is not None:
        prefix, start = unknown
        line = query.count("\n", 0, start) + 1
        column = start - (query.rfind("\n", 0, start) + 1) + 1
        known = ", ".join(f"{name}:" for name in sorted(QUERY_PREFIXES))
        why = (
            f"unknown prefix `{prefix}:`; declare it (PREFIX {prefix}: <...>) or use one of "
            f"kg's: {known}"
        )
    lines = query.splitlines() or [""]
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return QueryError(
        f"SPARQL syntax error at line {line}, column {column}: {why}\n"
        f"  {text}\n  {' ' * max(column - 1, 0)}^"
    )


def _unknown_prefix(query: str) -> tuple[str, int] | None:
    """The first prefixed name whose prefix is neither kg's nor declared, and where it is."""
    declared = {*QUERY_PREFIXES, "_"}  # _:name is a blank node
    after_prefix = False
    for match in TOKEN.finditer(query):
        kind, text = match.lastgroup, match.group()
        if kind == "comment":
            continue
        if kind == "pname":
            prefix = text.partition(":")[0]
            if after_prefix:
                declared.add(prefix)
            elif prefix not in declared:
                return prefix, match.start()
        after_prefix = kind == "word" and text.upper() == "PREFIX"
    return None
