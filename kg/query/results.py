"""Query results as text: an aligned table for reading, CSV/TSV/JSON for scripts, RDF for graphs.

- ``table`` shows IRIs with kg's prefixes (``paper:p-1``) and wraps long
  values onto continuation lines of their cell: nothing is cut;
- ``csv``, ``tsv`` and ``json`` carry full IRIs and lexical values, an empty
  cell (``null`` in JSON) where a variable is unbound;
- CONSTRUCT and DESCRIBE results are Turtle (``table``, ``turtle``) or
  N-Triples (``ntriples``), or subject/predicate/object rows in the others;
  ASK prints ``true`` or ``false``.
"""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Sequence

from kg.defaults import RESULT_FORMAT, RESULT_FORMATS
from kg.errors import QueryError
from kg.query.sparql import QueryResult, Term
from kg.vocab import PREFIXES, compact

__all__ = ["RESULT_FORMATS", "format_result", "WRAP"]

#: Table cells longer than this wrap onto continuation lines.
WRAP = 60


def format_result(result: QueryResult, fmt: str = RESULT_FORMAT, *, width: int = WRAP) -> str:
    """Render a query result in ``fmt`` (one of :data:`RESULT_FORMATS`)."""
    if fmt not in RESULT_FORMATS:
        raise QueryError(f"unknown format {fmt!r}; use one of {', '.join(RESULT_FORMATS)}")
    if result.form == "ASK":
        answer = "true" if result.boolean else "false"
        if fmt in ("csv", "tsv"):
            return f"ask\n{answer}\n"
        return answer + "\n"
    if result.form == "GRAPH":
        if fmt in ("table", "turtle", "ntriples"):
            return _rdf(result.triples, "turtle" if fmt == "table" else fmt)
        columns: Sequence[str] = ("subject", "predicate", "object")
        rows: Sequence[Sequence[Term | None]] = result.triples
    else:
        if fmt in ("turtle", "ntriples"):
            raise QueryError(f"--format {fmt} is for CONSTRUCT and DESCRIBE queries")
        columns, rows = result.columns, result.rows
    if fmt == "json":
        data = [
            {c: (None if t is None else t.value) for c, t in zip(columns, row, strict=True)}
            for row in rows
        ]
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if fmt in ("csv", "tsv"):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(["" if t is None else t.value for t in row] for row in rows)
        return buf.getvalue()
    return _table(list(columns), [[_shown(t) for t in row] for row in rows], width)


def _shown(term: Term | None) -> str:
    if term is None:
        return ""
    if term.kind == "iri":
        return compact(term.value)
    if term.kind == "bnode":
        return f"_:{term.value}"
    return term.value


def _table(columns: list[str], rows: list[list[str]], width: int) -> str:
    """Columns as wide as their longest value up to ``width``; longer values wrap, never cut."""
    widths = [
        min(width, max([len(c)] + [len(line) for r in rows for line in r[i].splitlines() or [""]]))
        for i, c in enumerate(columns)
    ]
    out = [_line(columns, widths), "-+-".join("-" * w for w in widths)]
    for row in rows:
        cells = [_wrap(value, w) for value, w in zip(row, widths, strict=True)]
        for k in range(max(len(c) for c in cells) if cells else 1):
            out.append(_line([c[k] if k < len(c) else "" for c in cells], widths))
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out) + "\n"


def _wrap(value: str, width: int) -> list[str]:
    lines: list[str] = []
    for part in value.splitlines() or [""]:
        lines += textwrap.wrap(
            part, width, break_long_words=True, break_on_hyphens=False, drop_whitespace=True
        ) or [""]
    return lines


def _line(values: Sequence[str], widths: Sequence[int]) -> str:
    return " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()


def _rdf(triples: Sequence[tuple[Term, Term, Term]], fmt: str) -> str:
    import pyoxigraph

    from kg.query.sparql import to_oxigraph

    data = [pyoxigraph.Triple(*(to_oxigraph(t) for t in triple)) for triple in triples]
    data.sort(key=str)
    rdf_format = pyoxigraph.RdfFormat.TURTLE if fmt == "turtle" else pyoxigraph.RdfFormat.N_TRIPLES
    prefixes = {k: str(v) for k, v in PREFIXES.items()} if fmt == "turtle" else None
    text = pyoxigraph.serialize(data, format=rdf_format, prefixes=prefixes)
    out = text.decode("utf-8") if isinstance(text, bytes) else str(text)
    return out if out.endswith("\n") or not out else out + "\n"
