"""The defaults and choices that the library and the command line share, each stated once.

Plain values that import nothing of kg, so that ``kg --help`` shows them
without loading the stages that use them (the model, rdflib and pyshacl take
seconds to import): a stage's default and the CLI's are the same object.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

__all__ = [
    "OUT_DIR",
    "EXECUTORS",
    "EXTRACT_BATCH",
    "WORKERS",
    "MAX_FILE_BYTES",
    "Validation",
    "VALIDATIONS",
    "VALIDATION",
    "FULL_LIMIT",
    "SAMPLE_SIZE",
    "VALIDATE_BATCH",
    "RESULT_FORMATS",
    "RESULT_FORMAT",
    "QUERY_TIMEOUT",
    "HOST",
    "PORT",
    "STATS_TOP",
    "STATS_NEIGHBOURS",
    "BASELINES",
    "View",
    "VIEWS",
    "INDEX",
]

#: Where a build writes its files, and where the reading commands look for them.
OUT_DIR = "output"

# Reading and extraction (kg.ingest, kg.extract).
#: Where papers are extracted: this process, or a Dask cluster; the first is the default.
EXECUTORS = ("local", "dask")
#: Largest input file read (``--max-file-size`` changes it): 1 GiB.
MAX_FILE_BYTES = 1 << 30
#: Texts per model call, and papers per task on a Dask cluster: large enough to keep both
#: cores busy, small enough for memory.
EXTRACT_BATCH = 64
#: Worker processes of the local Dask cluster a build starts, one thread each.
WORKERS = 2

# Validation against ontology/shapes.ttl (kg.validate).
#: How a graph is checked: ``auto`` is ``full`` up to :data:`FULL_LIMIT` triples, else ``sample``.
Validation = Literal["auto", "full", "batch", "sample"]
VALIDATIONS: tuple[str, ...] = get_args(Validation)
VALIDATION: Validation = "auto"
#: ``auto`` validates graphs up to this many triples in full, larger ones by sample.
FULL_LIMIT = 150_000
#: Focus nodes per target class in a sample.
SAMPLE_SIZE = 200
#: Focus nodes per pyshacl run: its cost grows with focus nodes times targeted nodes
#: (docs/reference/validation.md, "Large graphs").
VALIDATE_BATCH = 100

# Reading a built graph (kg.query) and measuring extraction (kg.evaluate).
#: How ``kg query`` prints a result.
RESULT_FORMATS = ("table", "csv", "tsv", "json", "turtle", "ntriples")
RESULT_FORMAT = "table"
#: Seconds after which ``kg query`` stops a query (0: no limit).
QUERY_TIMEOUT = 300
#: Where ``kg serve`` listens: this machine only.
HOST = "127.0.0.1"
PORT = 7878
#: Concepts ranked, and nearest neighbours shown per paper, by ``kg stats``.
STATS_TOP = 10
STATS_NEIGHBOURS = 3
#: What ``kg eval`` can measure instead of kg, or beside its links.
BASELINES = ("keybert", "tfidf", "embedding")


# The views (kg.export).
class View(NamedTuple):
    """One page of a build's views."""

    key: str  # what ``kg view`` takes
    file: str
    title: str
    about: str  # what it shows, on the index page


#: The views of a build, in the order the index page lists them.
VIEWS: tuple[View, ...] = (
    View("paper-map", "paper-map.html", "Paper map", "papers joined by the concepts they share"),
    View(
        "concept-map",
        "concept-map.html",
        "Concept map",
        "concepts joined when papers share them, with the concept hierarchy",
    ),
    View(
        "paper-concept",
        "paper-concept.html",
        "Paper–concept graph",
        "papers and the methods, problems and fields they mention",
    ),
)
#: The page that links every view, which ``kg view`` opens by default.
INDEX = "index.html"
