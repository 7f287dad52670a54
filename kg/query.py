"""SPARQL over a built graph, with kg's prefixes predeclared.

:func:`run_query` returns rows of plain strings; :func:`format_rows` renders
them as an aligned table, CSV, TSV or JSON. Both are usable from Python; the
CLI only prints what they return.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from pyparsing import ParseException
from rdflib import Graph, Literal, URIRef
from rdflib.query import Result, ResultRow

from kg.errors import QueryError
from kg.vocab import PREFIXES

__all__ = ["load_graph", "run_query", "format_rows", "FORMATS"]

FORMATS = ("table", "csv", "tsv", "json")


def load_graph(path: str | Path) -> Graph:
    """Parse a Turtle file; a missing or broken file is a :class:`QueryError`."""
    path = Path(path)
    if not path.is_file():
        raise QueryError(f"no graph at {path}; run `kg build` first or pass --graph FILE")
    try:
        return Graph().parse(path, format="turtle")
    except Exception as exc:  # rdflib raises several unrelated types for bad Turtle
        raise QueryError(f"{path} is not valid Turtle: {exc}") from exc


def _text(graph: Graph, value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, URIRef):
        try:
            return graph.namespace_manager.normalizeUri(value)
        except Exception:
            return str(value)
    if isinstance(value, Literal):
        return str(value)
    return str(value)


def run_query(graph: Graph, query: str) -> tuple[list[str], list[list[str]]]:
    """Run a SELECT or ASK query; return column names and rows of strings.

    CONSTRUCT and DESCRIBE results are returned as one ``turtle`` column.
    """
    try:
        result: Result = graph.query(query, initNs=PREFIXES)
    except ParseException as exc:
        raise QueryError(
            f"SPARQL syntax error at line {exc.lineno}, column {exc.col}: {exc.msg}\n"
            f"  {exc.line}\n  {' ' * (exc.col - 1)}^"
        ) from exc
    except Exception as exc:
        raise QueryError(f"the query failed: {exc}") from exc
    if result.type == "ASK":
        return ["ask"], [[str(bool(result.askAnswer)).lower()]]
    if result.type in ("CONSTRUCT", "DESCRIBE"):
        text = result.serialize(format="turtle")
        data = text.decode() if isinstance(text, bytes) else str(text)
        return ["turtle"], [[data]]
    columns = [str(v) for v in result.vars or []]
    rows = [
        [_text(graph, row[i]) for i in range(len(columns))]
        for row in result
        if isinstance(row, ResultRow)
    ]
    return columns, rows


def format_rows(columns: list[str], rows: list[list[str]], fmt: str = "table") -> str:
    """Render query results; ``table`` aligns columns for the terminal."""
    if fmt == "json":
        return (
            json.dumps(
                [dict(zip(columns, r, strict=True)) for r in rows], indent=1, ensure_ascii=False
            )
            + "\n"
        )
    if fmt in ("csv", "tsv"):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return buf.getvalue()
    cells = [[c.replace("\n", " ") for c in r] for r in rows]
    widths = [min(60, max([len(c)] + [len(r[i]) for r in cells])) for i, c in enumerate(columns)]

    def line(values: list[str]) -> str:
        parts = [
            (v if len(v) <= w else v[: w - 1] + "…").ljust(w)
            for v, w in zip(values, widths, strict=True)
        ]
        return " | ".join(parts).rstrip()

    out = [line(columns), "-+-".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out) + "\n"
