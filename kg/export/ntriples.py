"""Sorted N-Triples on disk: how a large build's RDF is made without holding it in memory.

A build of a few thousand papers has millions of triples; as pyoxigraph
objects in one list they took about 400 bytes each (1.8 GB at 4.4 M). Here
they never exist together:

- :class:`SortedNTriples` takes the triples as :func:`kg.graph.rdf.emit`
  makes them, as N-Triples lines, sorts each run of :data:`RUN_LINES` lines and
  spills it to a file, then merges the runs into one file of sorted, distinct
  lines (an external merge sort, :func:`heapq.merge`);
- :class:`NTriplesFile` reads such a file back as pyoxigraph triples, as often
  as asked: the Turtle and the JSON-LD are each made from a pass over it, the
  SHACL check from the lines :meth:`NTriplesFile.select` picks.

Sorting the lines sorts the triples by subject: every line of a subject
starts with the subject's N-Triples form and a space, so no other subject's
line falls between two of its lines (the file :func:`kg.export.ntriples_text`
writes from triples in memory is the same, byte for byte).
"""

from __future__ import annotations

import heapq
import mmap
import os
import tempfile
from collections.abc import Iterator, Set
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

import pyoxigraph as ox

from kg.digest import line_pieces

__all__ = ["SortedNTriples", "NTriplesFile", "RUN_LINES", "PARSE_LINES"]

#: Lines sorted in memory at a time (about 100 MB of text at kg's line lengths).
RUN_LINES = 500_000
#: Lines :meth:`NTriplesFile.select` parses at a time.
PARSE_LINES = 50_000
#: Bytes of a file searched through its memory map before those pages are handed back:
#: a page read through a map counts as the process's resident memory until it is
#: unmapped, so one search of a 3 GB kg.nt added 3 GB to a build's peak RSS.
WINDOW_BYTES = 64 << 20
#: Bytes of whole lines :meth:`NTriplesFile.pieces` reads at a time.
PIECE_BYTES = 64 << 20


class SortedNTriples:
    """Triples added in any order, written as one sorted N-Triples file without duplicates.

    Runs are spilled into ``work`` (a directory of the caller's: a build's
    staging directory, removed if the build fails) and deleted when merged.
    """

    def __init__(self, work: Path, run_lines: int = RUN_LINES) -> None:
        self.work = work
        self.run_lines = run_lines
        self._lines: list[str] = []
        self._runs: list[Path] = []
        #: Whether a blank node was added (kg's own triples have none).
        self.blank_nodes = False

    def add(self, triple: tuple[ox.NamedNode, ox.NamedNode, Any], /) -> None:
        s, p, o = triple
        if not self.blank_nodes and (isinstance(s, ox.BlankNode) or isinstance(o, ox.BlankNode)):
            self.blank_nodes = True
        self._lines.append(f"{s} {p} {o} .\n")  # a pyoxigraph term prints as N-Triples
        if len(self._lines) >= self.run_lines:
            self._spill()

    def _spill(self) -> None:
        self._lines.sort()
        fd, name = tempfile.mkstemp(prefix=".run-", suffix=".nt", dir=self.work)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.writelines(self._lines)
        self._runs.append(Path(name))
        self._lines = []

    def write(self, path: Path) -> int:
        """Merge what was added into ``path``, sorted and each line once; return the lines."""
        count = 0
        try:
            with ExitStack() as files, open(path, "w", encoding="utf-8", newline="") as out:
                self._lines.sort()
                runs = [files.enter_context(_read(run)) for run in self._runs]
                last = None
                piece: list[str] = []
                for line in heapq.merge(self._lines, *runs):
                    if line != last:
                        piece.append(line)
                        last = line
                        if len(piece) >= 10_000:
                            out.writelines(piece)
                            count += len(piece)
                            piece = []
                out.writelines(piece)
                count += len(piece)
                out.flush()
                os.fsync(out.fileno())
        finally:
            self._lines = []
            for run in self._runs:
                run.unlink(missing_ok=True)
            self._runs = []
        return count


class NTriplesFile:
    """A sorted N-Triples file as a sequence of pyoxigraph triples, read on each pass.

    ``blank_nodes`` says whether the file may hold blank nodes (True unless the
    writer knows: :attr:`SortedNTriples.blank_nodes`).
    """

    def __init__(self, path: Path, count: int | None = None, blank_nodes: bool = True) -> None:
        self.path = path
        self._count = count
        self.blank_nodes = blank_nodes

    def __iter__(self) -> Iterator[ox.Triple]:
        for quad in ox.parse(path=str(self.path), format=ox.RdfFormat.N_TRIPLES):
            yield quad.triple  # in the default graph: N-Triples has no other

    def select(
        self, subjects: Set[str], predicates: Set[str], objects: Set[str] | None = None
    ) -> Iterator[ox.Triple]:
        """The triples whose subject, as N-Triples, is among ``subjects``, or whose
        predicate is among ``predicates`` and object among ``objects`` (None: any).

        Nothing else is parsed: a subject's lines are found by binary search
        (the file is sorted, so they are one run of lines), a predicate's by
        searching the file's bytes for it between two spaces (the first such
        place in a line is its predicate: a subject holds no space) and
        comparing what follows with the objects asked for. With ``objects``
        None, the lines where the predicate's IRI is the object, or is quoted
        in a literal, come too: the caller drops what it does not want. Lines
        come in the file's order, parsed :data:`PARSE_LINES` at a time.
        """
        if self.path.stat().st_size == 0:
            return
        ends = None if objects is None else {o.encode("utf-8") + b" .\n" for o in objects}
        starts: set[int] = set()
        with open(self.path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            for subject in subjects:
                key = subject.encode("utf-8") + b" "
                at = _first_line_from(mm, key)
                while at < len(mm) and mm[at : at + len(key)] == key:
                    starts.add(at)
                    at = _after_line(mm, at)
            for predicate in predicates:
                word = b" " + predicate.encode("utf-8") + b" "
                for at, end in _lines_with(mm, word):
                    if ends is None or mm[at + len(word) : end] in ends:
                        starts.add(mm.rfind(b"\n", 0, at) + 1)
            ordered = sorted(starts)
            for first in range(0, len(ordered), PARSE_LINES):
                piece = ordered[first : first + PARSE_LINES]
                text = b"".join(mm[at : _after_line(mm, at)] for at in piece)
                _release(mm, piece[0], piece[-1])
                for quad in ox.parse(text, format=ox.RdfFormat.N_TRIPLES):
                    yield quad.triple
            _release(mm, 0, len(mm))

    def pieces(self) -> Iterator[bytes]:
        """The file's bytes in pieces of whole lines (:data:`PIECE_BYTES` and the rest of
        the line), read rather than mapped, so none of it stays resident."""
        yield from line_pieces(self.path, PIECE_BYTES)

    def __len__(self) -> int:
        if self._count is None:
            with open(self.path, "rb") as fh:
                pieces = iter(lambda: fh.read(1 << 24), b"")
                self._count = sum(piece.count(b"\n") for piece in pieces)
        return self._count


def _read(path: Path) -> IO[str]:
    return open(path, encoding="utf-8", newline="")


def _after_line(mm: mmap.mmap, at: int) -> int:
    """The offset just past the line that holds offset ``at``."""
    end = mm.find(b"\n", at)
    return len(mm) if end < 0 else end + 1


def _lines_with(mm: mmap.mmap, word: bytes) -> Iterator[tuple[int, int]]:
    """Where ``word`` first occurs in each line that holds it, and that line's end, in
    file order; the map's pages are released :data:`WINDOW_BYTES` at a time."""
    at = 0
    for start in range(0, len(mm), WINDOW_BYTES):
        stop = min(len(mm), start + WINDOW_BYTES)
        while (found := mm.find(word, max(at, start), stop + len(word) - 1)) >= 0:
            at = _after_line(mm, found)
            yield found, at
        _release(mm, start, stop)


#: The advice that unmaps pages (None where the platform has none: the pages stay mapped).
_DONTNEED: int | None = getattr(mmap, "MADV_DONTNEED", None)


def _release(mm: mmap.mmap, start: int, stop: int) -> None:
    """Unmap the pages of ``mm[start:stop]`` from this process (the page cache keeps
    them; the next read faults them back in)."""
    first = start - start % mmap.PAGESIZE
    if _DONTNEED is not None and stop > first:
        mm.madvise(_DONTNEED, first, stop - first)


def _first_line_from(mm: mmap.mmap, key: bytes) -> int:
    """The offset of the first line of the sorted file ``mm`` that is not below ``key``."""
    lo, hi = 0, len(mm)  # lines starting before lo are below key; from hi on, they are not
    while lo < hi:
        start = mm.rfind(b"\n", lo, (lo + hi) // 2) + 1 or lo
        end = _after_line(mm, start)
        if mm[start:end] < key:
            lo = end
        else:
            hi = start
    return lo
