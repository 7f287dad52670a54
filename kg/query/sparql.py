"""SPARQL over a built graph with Oxigraph: read-only, offline, bounded in time.

:func:`run_query` checks the query first (:func:`check_query`), then runs it
on an Oxigraph store (:mod:`kg.query.store`) and returns a
:class:`QueryResult` of plain, picklable :class:`Term` s:

- **read-only**: SPARQL updates (INSERT, DELETE, LOAD, CLEAR, ...) are
  refused; a store opened from disk is read-only as well;
- **offline**: SERVICE would send the query to another endpoint, so it is
  refused unless ``allow_service`` is set (``kg query --allow-service``);
- **one graph**: kg's store holds a default graph only, so FROM and FROM
  NAMED, which would select graphs it does not have and silently return
  nothing, are refused;
- **bounded**: with a ``timeout`` the query runs in a child process that is
  stopped when the time is up, which frees the CPU at once (an Oxigraph query
  cannot be interrupted from its own process).

The checks (:mod:`kg.query.syntax`) read the query's tokens, not its text.
"""

from __future__ import annotations

import multiprocessing
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from kg.errors import QueryError
from kg.query.store import open_store
from kg.query.syntax import QUERY_PREFIXES, TOKEN, check_query, syntax_error

__all__ = ["Term", "QueryResult", "run_query", "parse_term", "to_oxigraph"]

_XSD = "http://www.w3.org/2001/XMLSchema#"


class Term(NamedTuple):
    """One RDF term of a result, as plain strings.

    Attributes:
        kind: "iri", "bnode" or "literal".
        value: The IRI, the blank node's id, or the literal's lexical form.
        language: A literal's language tag, or None.
        datatype: A literal's datatype IRI, or None (IRIs and blank nodes).
    """

    kind: str
    value: str
    language: str | None = None
    datatype: str | None = None


@dataclass(frozen=True)
class QueryResult:
    """What a query returned.

    Attributes:
        form: "SELECT", "ASK" or "GRAPH" (CONSTRUCT and DESCRIBE).
        columns: The SELECT variables, in order.
        rows: One list of terms per solution, None where a variable is unbound.
        boolean: The answer of an ASK query.
        triples: The triples of a CONSTRUCT or DESCRIBE query.
        note: How the graph was opened, when it was not its current store.
        hint: Why a query may have found nothing (a label without its @en).
    """

    form: str
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[Term | None, ...], ...] = ()
    boolean: bool | None = None
    triples: tuple[tuple[Term, Term, Term], ...] = ()
    note: str | None = field(default=None, compare=False)
    hint: str | None = field(default=None, compare=False)

    def values(self) -> list[list[str]]:
        """The rows as plain strings: full IRIs, lexical forms, "" when unbound."""
        return [["" if t is None else t.value for t in row] for row in self.rows]


def parse_term(text: str) -> Term:
    """A value for ``--bind``: ``<iri>``, ``prefix:name``, ``"text"`` (@lang, ^^type) or a number.

    >>> parse_term("paper:p-1").value, parse_term('"RL"@en').language, parse_term("3").datatype
    ('https://w3id.org/kg/paper/p-1', 'en', 'http://www.w3.org/2001/XMLSchema#integer')
    """
    text = text.strip()
    if text.startswith("<") and text.endswith(">"):
        return Term("iri", text[1:-1])
    quoted = re.fullmatch(r'"((?:[^"\\]|\\.)*)"(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^(\S+))?', text)
    if quoted:
        value, language, datatype = quoted.groups()
        value = value.replace('\\"', '"').replace("\\\\", "\\")
        if datatype:
            return Term("literal", value, None, parse_term(datatype).value)
        return Term("literal", value, language, None if language else _XSD + "string")
    if re.fullmatch(r"[+-]?\d+", text):
        return Term("literal", text, None, _XSD + "integer")
    if re.fullmatch(r"[+-]?\d*\.\d+", text):
        return Term("literal", text, None, _XSD + "decimal")
    prefix, sep, local = text.partition(":")
    if sep and prefix in QUERY_PREFIXES:
        return Term("iri", QUERY_PREFIXES[prefix] + local)
    raise QueryError(
        f"cannot read {text!r} as an RDF term; write <https://...>, a prefixed name such as "
        f'paper:ID (prefixes: {", ".join(sorted(QUERY_PREFIXES))}), "text" or a number'
    )


def run_query(
    source: Any,
    query: str,
    *,
    timeout: float | None = None,
    allow_service: bool = False,
    bindings: Mapping[str, Term] | None = None,
) -> QueryResult:
    """Run a SELECT, ASK, CONSTRUCT or DESCRIBE query.

    Args:
        source: A build directory, an RDF file or a store directory (a path), or
            an open pyoxigraph ``Store``.
        query: The SPARQL text; kg's prefixes (:data:`QUERY_PREFIXES`) are predeclared.
        timeout: Seconds after which the query is stopped; None for no limit.
        allow_service: Let SERVICE clauses send requests to other endpoints.
        bindings: Variable name -> value, added as a trailing
            ``VALUES (?name) { (value) }`` clause (so not for a query that
            already ends in one).

    Raises:
        QueryError: The query is refused, malformed, too slow, or fails.
    """
    check_query(query, allow_service=allow_service)
    variables = {m.group("var")[1:] for m in TOKEN.finditer(query) if m.lastgroup == "var"}
    for name in bindings or {}:
        if name not in variables:
            raise QueryError(f"--bind {name}=...: the query has no variable ?{name}")
    if bindings:
        names = " ".join(f"?{name}" for name in bindings)
        values = " ".join(_sparql(term) for term in bindings.values())
        query = f"{query.rstrip()}\nVALUES ({names}) {{ ({values}) }}\n"
    given = dict(bindings or {})
    if timeout is None:
        return _answer(_open(source), query, given)
    return _in_child(source, query, given, timeout)


def _answer(opened: Any, query: str, bindings: Mapping[str, Term]) -> QueryResult:
    """The query's result on an open store, with the hint about language tags where nothing
    was found and the store writes the query's plain string with the tag it left out."""
    import pyoxigraph

    result = _with_note(_evaluate(opened.store, query), opened.note)
    if result.rows or result.boolean or result.triples:
        return result
    plain = _plain_literal(query, bindings)
    if not plain:
        return result
    tagged = pyoxigraph.Literal(plain, language="en")
    if next(iter(opened.store.quads_for_pattern(None, None, tagged)), None) is None:
        return result
    return replace(
        result,
        hint=f'no results; kg\'s labels carry a language tag, so "{plain}" does not match '
        f'"{plain}"@en: write "{plain}"@en, or compare STR(?label) = "{plain}"',
    )


# SPARQL's string escapes (ECHAR), and what each stands for.
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_ESCAPE = re.compile(r"\\([tnrbf\"'\\])")


def _plain_literal(query: str, bindings: Mapping[str, Term]) -> str | None:
    """The text of the first string compared as a term, without language tag or datatype.

    A string that is a function's argument (``CONTAINS(?l, "x")``, after ``(``
    or ``,``) is left out: string functions read tagged labels too.
    """
    tokens = [m for m in TOKEN.finditer(query) if m.lastgroup != "comment"]
    for i, match in enumerate(tokens):
        if match.lastgroup != "string":
            continue
        before = tokens[i - 1].group() if i else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        tagged = after is not None and (after.lastgroup == "lang" or after.group() == "^")
        if not tagged and before not in ("(", ","):
            text = match.group()
            quote = 3 if text[:3] in ('"""', "'''") else 1
            return _ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], text[quote:-quote])
    for term in bindings.values():
        if term.kind == "literal" and term.datatype == _XSD + "string":
            return term.value
    return None


def _sparql(term: Term) -> str:
    """A term in SPARQL syntax."""
    if term.kind == "iri":
        return f"<{term.value}>"
    text = term.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    if term.language:
        return f'"{text}"@{term.language}'
    return f'"{text}"^^<{term.datatype or _XSD + "string"}>'


def _with_note(result: QueryResult, note: str | None) -> QueryResult:
    if note is None:
        return result
    return QueryResult(
        result.form, result.columns, result.rows, result.boolean, result.triples, note
    )


class _Source(NamedTuple):
    path: str | None
    nquads: bytes | None


def _open(source: Any) -> Any:
    import pyoxigraph

    from kg.query.store import Opened

    if isinstance(source, pyoxigraph.Store):
        return Opened(source, Path("<memory>"))
    if isinstance(source, _Source):
        if source.path is not None:
            return open_store(source.path)
        store = pyoxigraph.Store()
        store.bulk_load(source.nquads, format=pyoxigraph.RdfFormat.N_QUADS)
        return Opened(store, Path("<memory>"))
    return open_store(source)


def _evaluate(store: Any, query: str) -> QueryResult:
    import pyoxigraph

    try:
        result = store.query(query, prefixes=QUERY_PREFIXES)
        if isinstance(result, pyoxigraph.QueryBoolean):
            return QueryResult("ASK", boolean=bool(result))
        if isinstance(result, pyoxigraph.QueryTriples):
            triples = tuple((_term(t.subject), _term(t.predicate), _term(t.object)) for t in result)
            return QueryResult("GRAPH", triples=triples)
        columns = tuple(v.value for v in result.variables)
        rows = tuple(
            tuple(None if s[i] is None else _term(s[i]) for i in range(len(columns)))
            for s in result
        )
        return QueryResult("SELECT", columns, rows)
    except SyntaxError as exc:
        raise syntax_error(query, str(exc)) from exc
    except (OSError, ValueError, TypeError) as exc:
        raise QueryError(f"the query failed: {exc}") from exc


def _term(term: Any) -> Term:
    import pyoxigraph

    if isinstance(term, pyoxigraph.NamedNode):
        return Term("iri", term.value)
    if isinstance(term, pyoxigraph.BlankNode):
        return Term("bnode", term.value)
    if isinstance(term, pyoxigraph.Literal):
        return Term("literal", term.value, term.language, term.datatype.value)
    return Term("literal", str(term))  # an RDF-star triple term, shown as text


def to_oxigraph(term: Term) -> Any:
    import pyoxigraph

    if term.kind == "iri":
        return pyoxigraph.NamedNode(term.value)
    if term.kind == "bnode":
        return pyoxigraph.BlankNode(term.value)
    if term.language:
        return pyoxigraph.Literal(term.value, language=term.language)
    datatype = pyoxigraph.NamedNode(term.datatype) if term.datatype else None
    return pyoxigraph.Literal(term.value, datatype=datatype)


# --- time limit ------------------------------------------------------------------


def _in_child(source: Any, query: str, bindings: Mapping[str, Term], timeout: float) -> QueryResult:
    """Run the query in a child process (:func:`_answer`); stop it after ``timeout`` seconds."""
    spec = _spec(source)
    # Forking is instant; a process with other threads is started afresh instead.
    single = threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
    context: Any = multiprocessing.get_context("fork" if single else "spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(spec, query, bindings, send), daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(timeout):
            raise QueryError(
                f"the query ran longer than {timeout:g} s and was stopped; make it more "
                "selective (a LIMIT, more specific patterns) or raise --timeout"
            )
        try:
            ok, payload = receive.recv()
        except EOFError as exc:
            raise QueryError("the query process ended without an answer") from exc
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receive.close()
    if not ok:
        raise QueryError(payload)
    assert isinstance(payload, QueryResult)
    return payload


def _spec(source: Any) -> _Source:
    import pyoxigraph

    if isinstance(source, pyoxigraph.Store):
        data = pyoxigraph.serialize(source, format=pyoxigraph.RdfFormat.N_QUADS)
        return _Source(None, data)
    return _Source(str(source), None)


def _child(spec: _Source, query: str, bindings: Mapping[str, Term], send: Any) -> None:
    try:
        send.send((True, _answer(_open(spec), query, bindings)))
    except QueryError as exc:
        send.send((False, str(exc)))
    except Exception as exc:  # report anything, or the parent waits for its timeout
        send.send((False, f"the query failed: {exc}"))
    finally:
        send.close()
