"""The Oxigraph store beside ``kg.ttl``: written by a build, opened by queries.

Parsing Turtle takes seconds to minutes at scale (rdflib: 21 s at 3,700
papers); an Oxigraph store (RocksDB on disk) opens in a fraction of a second,
and ``kg serve`` serves it as a SPARQL endpoint. The store is
a directory, ``kg.oxigraph``, holding the triples of ``kg.ttl`` (a build loads
them from ``kg.nt``, the same triples) and stamped with ``kg.ttl``'s name,
size, sha256 and modification time (``kg-source.json``), so a reader can tell
whether the two still agree.

**Writing**: :func:`write_store` loads a new store into the build's staging
directory, which is swapped in as a whole with the other files
(:mod:`kg.export.atomic`). A store is a database, not a text file: its bytes
differ between two builds, its triples do not.

**Reading**: :func:`open_store` takes a build directory, an RDF file or a
store directory, and opens the store read-only when its stamp says it holds
the file's triples; otherwise (no store, or a file changed since) it loads
the file into an in-memory store and says so in :attr:`Opened.note`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from threading import Event
from typing import Any

from rdflib.term import Node

from kg.digest import file_sha256, line_pieces
from kg.errors import KGError, QueryError
from kg.terms import to_oxigraph, to_rdflib

__all__ = [
    "STORE_NAME",
    "SOURCE_STAMP",
    "write_store",
    "Opened",
    "open_store",
    "resolve",
    "stale",
    "load_rdf",
    "StoreTriples",
    "store_from_rdflib",
    "is_store_file",
]

#: The store's directory name, beside kg.ttl.
STORE_NAME = "kg.oxigraph"
#: The file inside the store that names the Turtle it was loaded from.
SOURCE_STAMP = "kg-source.json"
#: N-Triples loaded into a store at a time (:func:`write_store`).
PIECE_BYTES = 64 << 20
#: The names of what a store holds: RocksDB's files (numbered tables, logs and temporary
#: files, CURRENT, IDENTITY, LOCK, LOG, MANIFEST-n, OPTIONS-n) and kg's stamp.
_STORE_FILE = re.compile(
    r"\d+\.(?:sst|ldb|log|blob|dbtmp)|CURRENT|IDENTITY|LOCK|LOG(?:\.old\.\d+)?"
    r"|(?:MANIFEST|OPTIONS|METADB)-\d+(?:\.dbtmp)?|" + re.escape(SOURCE_STAMP)
)
_FORMATS = {".ttl": "TURTLE", ".turtle": "TURTLE", ".nt": "N_TRIPLES", ".nq": "N_QUADS"}


def is_store_file(name: str) -> bool:
    """Whether a file of this name in a store directory is the store's (not a user's).

    >>> is_store_file("000012.sst"), is_store_file("MANIFEST-000005"), is_store_file("notes.txt")
    (True, True, False)
    """
    return _STORE_FILE.fullmatch(name) is not None


def stamp(turtle: Path) -> dict[str, object]:
    """What identifies the Turtle file a store holds: its name, size, mtime and sha256."""
    info = turtle.stat()
    return {
        "file": turtle.name,
        "size": info.st_size,
        "sha256": file_sha256(turtle),
        "mtime_ns": info.st_mtime_ns,
    }


def write_store(
    target: Path,
    turtle: Path,
    ntriples: Path | None = None,
    stop: Event | None = None,
) -> None:
    """Load a new Oxigraph store at ``target`` with the triples of the Turtle file ``turtle``.

    ``target`` must not exist yet. The store's stamp records ``turtle``'s name,
    size, sha256 and modification time, so readers can trust an unchanged file
    without hashing it again. Without ``ntriples``, ``turtle`` is loaded as
    Oxigraph parses it. With ``ntriples``, an N-Triples file of the same
    triples without blank nodes (a build's ``kg.nt``: Oxigraph gives a blank
    node a new label on each load, so a blank node cut across pieces would
    become several), that file is loaded instead, in pieces of
    :data:`PIECE_BYTES`: the bulk loader holds what one load is given, so the
    pieces bound its memory (4.4 M triples: 1.5 GB for the Turtle in one load,
    0.46 GB in pieces). The loader leaves Python's lock, so a build loads the
    store while it writes its other files (:class:`kg.export.Beside`);
    ``stop``, when set, ends the load between pieces, and the store is closed
    before this returns or raises.

    Raises:
        KGError: Oxigraph rejects the text, the store cannot be written, or
            ``stop`` was set before the load was done.
    """
    import pyoxigraph

    record = stamp(turtle)
    store = pyoxigraph.Store(str(target))
    stopped = False
    try:
        if ntriples is None:
            store.bulk_load(path=str(turtle), format=pyoxigraph.RdfFormat.TURTLE)
        else:
            for piece in line_pieces(ntriples, PIECE_BYTES):  # a triple is never cut
                if stop is not None and stop.is_set():
                    stopped = True
                    break
                store.bulk_load(piece, format=pyoxigraph.RdfFormat.N_TRIPLES)
        store.flush()
    except SyntaxError as exc:
        raise KGError(f"cannot build the Oxigraph store {target}: {exc}") from exc
    finally:
        del store  # closes the database: nothing writes into it once this returns
    if stopped:
        raise KGError(f"the Oxigraph store {target} was not finished: stopped")
    (target / SOURCE_STAMP).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


@dataclass
class Opened:
    """A store ready to query.

    Attributes:
        store: The pyoxigraph store (read-only when opened from disk).
        path: What it was opened from: a store directory or an RDF file.
        note: Why the store was not used as is, or None.
    """

    store: Any
    path: Path
    note: str | None = None


def resolve(path: str | Path) -> tuple[Path | None, Path | None]:
    """``(RDF file, store directory)`` of a build directory, a file or a store (each may be None).

    Raises:
        QueryError: Nothing usable is at ``path``.
    """
    path = Path(path)
    if path.is_dir() and (path / SOURCE_STAMP).is_file():
        return None, path
    if path.is_dir():
        ttl, store = path / "kg.ttl", path / STORE_NAME
        if not ttl.is_file() and not store.is_dir():
            raise QueryError(f"no graph in {path}; run `kg build --out {path}` first")
        return (ttl if ttl.is_file() else None), (store if store.is_dir() else None)
    if path.is_file():
        if path.suffix.lower() not in _FORMATS:
            raise QueryError(
                f"{path}: not an RDF file kg reads (expected .ttl, .nt or .nq, a build "
                "directory or a kg.oxigraph store)"
            )
        store = path.parent / STORE_NAME
        return path, (store if store.is_dir() else None)
    raise QueryError(f"no graph at {path}; run `kg build` first or pass --graph FILE_OR_DIR")


def open_store(path: str | Path) -> Opened:
    """Open the graph at ``path`` (see the module docstring).

    Raises:
        QueryError: Nothing usable is at ``path``, or the file does not parse.
    """
    import pyoxigraph

    rdf_file, store_dir = resolve(path)
    note = None
    if store_dir is not None:
        why = None if rdf_file is None else stale(store_dir, rdf_file)
        if why is None:
            try:
                return Opened(pyoxigraph.Store.read_only(str(store_dir)), store_dir)
            except OSError as exc:
                if rdf_file is None:
                    raise QueryError(f"cannot open the Oxigraph store {store_dir}: {exc}") from exc
                why = f"it cannot be opened ({exc})"
        note = f"not using {store_dir}: {why}; loaded {rdf_file} into memory instead"
    assert rdf_file is not None
    store = pyoxigraph.Store()
    try:
        store.bulk_load(
            path=str(rdf_file), format=getattr(pyoxigraph.RdfFormat, _FORMATS[_suffix(rdf_file)])
        )
    except SyntaxError as exc:
        raise QueryError(f"{rdf_file} is not valid RDF: {exc}") from exc
    except OSError as exc:
        raise QueryError(f"cannot read {rdf_file}: {exc}") from exc
    return Opened(store, rdf_file, note)


def _suffix(path: Path) -> str:
    return path.suffix.lower()


def stale(store_dir: Path, rdf_file: Path) -> str | None:
    """Why the store does not hold ``rdf_file``'s triples, or None when it does."""
    try:
        record = json.loads((store_dir / SOURCE_STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"it has no readable {SOURCE_STAMP}"
    if record.get("file") != rdf_file.name:
        return f"it was loaded from {record.get('file')}, not {rdf_file.name}"
    info = rdf_file.stat()
    if record.get("size") != info.st_size:
        return f"{rdf_file.name} changed since the store was written"
    if record.get("mtime_ns") == info.st_mtime_ns:
        return None
    if file_sha256(rdf_file) != record.get("sha256"):
        return f"{rdf_file.name} changed since the store was written"
    return None


def load_rdf(path: str | Path) -> Any:
    """The graph at ``path`` (a build directory or an RDF file) as an rdflib ``Graph``.

    Raises:
        QueryError: There is no RDF file at ``path``, or it does not parse.
    """
    from rdflib import Graph

    rdf_file, _ = resolve(path)
    if rdf_file is None:
        raise QueryError(f"no kg.ttl at {path}; pass the RDF file itself")
    fmt = {"TURTLE": "turtle", "N_TRIPLES": "nt", "N_QUADS": "nquads"}[_FORMATS[_suffix(rdf_file)]]
    try:
        return Graph().parse(rdf_file, format=fmt)
    except Exception as exc:  # rdflib raises several unrelated types for bad syntax
        raise QueryError(f"{rdf_file} is not valid RDF: {exc}") from exc


def store_from_rdflib(graph: Any) -> Any:
    """An in-memory Oxigraph store holding an rdflib graph's triples."""
    import pyoxigraph

    store = pyoxigraph.Store()
    data = graph.serialize(format="nt", encoding="utf-8")
    store.bulk_load(data, format=pyoxigraph.RdfFormat.N_TRIPLES)
    return store


class StoreTriples:
    """An Oxigraph store seen as rdflib triples, for :func:`kg.validate.validate` by batch."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def __len__(self) -> int:
        return len(self.store)

    def triples(self, pattern: tuple[Any, Any, Any]) -> Iterator[tuple[Node, Node, Node]]:
        import pyoxigraph

        s, p, o = (None if t is None else to_oxigraph(t) for t in pattern)
        for quad in self.store.quads_for_pattern(s, p, o, pyoxigraph.DefaultGraph()):
            yield to_rdflib(quad.subject), to_rdflib(quad.predicate), to_rdflib(quad.object)
