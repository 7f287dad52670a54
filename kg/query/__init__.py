"""Questions asked of a built graph: SPARQL on its Oxigraph store, analytics on its NetworkX graph.

- :func:`write_store` writes the Oxigraph store a build puts beside ``kg.ttl``;
- :func:`run_query` runs SPARQL (SELECT, ASK, CONSTRUCT, DESCRIBE) read-only on
  the store ``kg build`` wrote beside ``kg.ttl`` (:func:`open_store`), with
  kg's prefixes predeclared, an optional time limit, and no network access
  unless asked; :func:`format_result` renders the result (table, CSV, TSV,
  JSON, Turtle, N-Triples);
- :func:`open_endpoint` is ``kg serve``: a read-only SPARQL 1.1 Protocol
  endpoint over the same store, with the same checks as :func:`run_query`;
- :func:`load_graph` returns the build's NetworkX graph and
  :func:`graph_stats` what ``kg stats`` prints.

rdflib stays the Python API for RDF (:func:`load_rdf`); Oxigraph answers
queries (rdflib's engine takes tens of seconds at a few thousand papers).
"""

from kg.query.analytics import Stats, format_stats, graph_stats, load_graph
from kg.query.results import RESULT_FORMATS, format_result
from kg.query.serve import Endpoint, is_loopback, open_endpoint
from kg.query.sparql import QueryResult, Term, parse_term, run_query
from kg.query.store import (
    SOURCE_STAMP,
    STORE_NAME,
    Opened,
    StoreTriples,
    is_store_file,
    load_rdf,
    open_store,
    store_from_rdflib,
    write_store,
)
from kg.query.syntax import QUERY_PREFIXES, check_query

__all__ = [
    "run_query",
    "is_loopback",
    "check_query",
    "parse_term",
    "QueryResult",
    "Term",
    "QUERY_PREFIXES",
    "format_result",
    "RESULT_FORMATS",
    "open_store",
    "Opened",
    "load_rdf",
    "store_from_rdflib",
    "StoreTriples",
    "STORE_NAME",
    "is_store_file",
    "SOURCE_STAMP",
    "write_store",
    "open_endpoint",
    "Endpoint",
    "load_graph",
    "graph_stats",
    "format_stats",
    "Stats",
]
