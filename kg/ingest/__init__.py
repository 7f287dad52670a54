"""Read paper abstracts from the files researchers have into :class:`~kg.model.Paper` records.

One reader module per format, all listed in :mod:`kg.ingest.formats`:
plain-text lists (``.txt``/``.md``, like the seeds), BibTeX, RIS, CSV/TSV,
CSL-JSON, OpenAlex works, the arXiv metadata snapshot, Semantic Scholar
results, OpenReview notes and kg's own JSON/JSON Lines records. A record
without an abstract is skipped and counted; another record of a paper already
read, an exact duplicate too, is merged into it and counted (:class:`Reading`).
A malformed file is an :class:`~kg.errors.InputError` naming the file and line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kg.defaults import MAX_FILE_BYTES
from kg.errors import InputError, SkippedError
from kg.ingest.dedup import family_name, is_preprint, person_key, title_key
from kg.ingest.files import check_outside, file_text, input_files
from kg.ingest.formats import FORMATS, SUPPORTED_SUFFIXES, read_file
from kg.ingest.identifiers import RESOLVERS, SCHEMES, resolvable
from kg.ingest.papers import paper_id, papers
from kg.ingest.records import (
    FIELDS,
    MERGED,
    NO_ABSTRACT,
    NOT_FOUND,
    Context,
    Record,
    Skip,
)
from kg.model import Paper

__all__ = [
    "read_papers",
    "read_inputs",
    "check_outside",
    "input_files",
    "Reading",
    "Skip",
    "paper_id",
    "resolvable",
    "RESOLVERS",
    "SCHEMES",
    "SUPPORTED_SUFFIXES",
    "FORMATS",
    "FIELDS",
    "NO_ABSTRACT",
    "MERGED",
    "title_key",
    "family_name",
    "person_key",
    "is_preprint",
    "NOT_FOUND",
]


@dataclass(frozen=True)
class Reading:
    """What the input files held.

    Attributes:
        papers: One per distinct paper, in input order.
        skipped: Each record that is not a paper, and why, in input order.
        replaced: Characters removed or replaced so every output stays valid, by kind.
        files: Each file read, its format's name and how many records it held.
        merged: Each record merged into another record of the same paper
            (:mod:`kg.ingest.dedup`), and why, in input order.
    """

    papers: tuple[Paper, ...]
    skipped: tuple[Skip, ...]
    replaced: Mapping[str, int]
    files: tuple[tuple[Path, str, int], ...]
    merged: tuple[Skip, ...] = ()


def read_inputs(
    paths: Sequence[str | Path],
    *,
    columns: Mapping[str, str] | None = None,
    encoding: str | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
    strict: bool = False,
    exclude: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Reading:
    """Read every paper in ``paths``, in input order.

    Args:
        paths: Files, or directories whose supported files are read in name
            order (hidden files, READMEs and other suffixes are ignored).
        columns: kg field -> column name, for CSV/TSV and JSON records whose
            names kg does not know (``{"abstract": "Body"}``).
        encoding: Decode every file with this codec instead of detecting it.
        max_file_bytes: Refuse larger files.
        strict: Fail on the first skipped record instead of counting it.
        exclude: kg's output directory; an input inside it is an error.
        progress: Called with the records made into papers and their number:
            ``(0, 0)`` first, while the files are parsed and the number is not known.

    Raises:
        InputError: A path is missing, unreadable, too large or malformed, a
            field has the wrong type, or two different abstracts share an id.
        SkippedError: ``strict`` and some record would be skipped.
    """
    if not paths:
        raise InputError("no input given; pass one or more files or directories of abstracts")
    unknown = sorted(set(columns or {}) - set(FIELDS))
    if unknown:
        raise InputError(
            f"--column {unknown[0]}=...: no such field; kg's fields are {', '.join(FIELDS)}"
        )
    if progress:
        progress(0, 0)
    context = Context(columns=dict(columns or {}))
    records: list[Record] = []
    skipped: list[Skip] = []
    files = []
    for path in input_files(paths, SUPPORTED_SUFFIXES, exclude=exclude):
        text = file_text(path, encoding=encoding, max_bytes=max_file_bytes)
        fmt, found = read_file(path, text, context)
        if not found:
            raise InputError(f"{path}: no papers found; {fmt.expected}")
        files.append((path, fmt.name, len(found)))
        for item in found:
            if isinstance(item, Skip):
                skipped.append(item)
            else:
                records.append(item)
    found_papers, merged = papers(records, progress)
    skipped.sort(key=_input_order({str(f[0]): i for i, f in enumerate(files)}))
    if strict and skipped:
        raise SkippedError(_strict_message(skipped))
    if not found_papers:
        first = skipped[0]
        raise InputError(
            f"{first.source}: no papers to build: {_all(len(skipped))} skipped "
            f"({_counted(skipped)}); {first.reason} here, for one"
        )
    order = _input_order({str(f[0]): i for i, f in enumerate(files)})
    return Reading(
        tuple(found_papers),
        tuple(skipped),
        dict(context.replaced),
        tuple(files),
        tuple(sorted(merged, key=order)),
    )


def read_papers(paths: Sequence[str | Path]) -> list[Paper]:
    """The papers of :func:`read_inputs`, for callers that need nothing else."""
    return list(read_inputs(paths).papers)


def _input_order(file_index: dict[str, int]) -> Callable[[Skip], tuple[int, int]]:
    """Sort key of skips: file order, then line (duplicates are found after all files)."""

    def key(skip: Skip) -> tuple[int, int]:
        path, _, line = skip.source.rpartition(":")
        return file_index.get(path, len(file_index)), int(line) if line.isdigit() else 0

    return key


def _all(n: int) -> str:
    return "the only record was" if n == 1 else f"all {n} records were"


def _counted(skipped: list[Skip]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in Counter(s.reason for s in skipped).items())


def _strict_message(skipped: list[Skip]) -> str:
    first = skipped[0]
    what = _counted(skipped)
    detail = f" ({first.detail})" if first.detail else ""
    return (
        f"{first.source}: record skipped: {first.reason}{detail}; --strict allows no skipped "
        f"records ({what} in all). Fix the input, or build without --strict to skip them"
    )
