"""BibTeX (``.bib``), parsed by bibtexparser: one paper per entry with an ``abstract``.

Field values are rendered from LaTeX (``{\\"u}`` -> ü, ``{BERT}`` -> BERT,
``\\&`` -> &) with formulas kept as written, and ``@string`` macros are
resolved. The citation key is the paper's id; ``doi``, ``url``, ``pmid`` and
the ``eprint`` of an arXiv entry are its identifiers. An entry bibtexparser cannot
parse is an error naming its line; an entry without an abstract is skipped.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser import model

from kg.errors import InputError
from kg.ingest.records import Context, Record, Skip, record
from kg.text import latex_decoded

__all__ = ["read", "EXPECTED", "NAME"]

NAME = "BibTeX"
EXPECTED = "expected BibTeX entries such as @article{key, title = {...}, abstract = {...}}"


def read(path: Path, text: str, context: Context) -> Iterator[Record | Skip]:
    """One record per entry, located by the line of its ``@``."""
    library = _parse(text)
    entries: list[model.Entry] = list(library.entries)
    for block in library.failed_blocks:
        if isinstance(block, model.DuplicateBlockKeyBlock):
            # A key used twice: both entries are read, and the usual rules apply
            # (the same abstract is a duplicate; different ones are an id clash).
            if isinstance(block.ignore_error_block, model.Entry):
                entries.append(block.ignore_error_block)
            continue
        line = (block.start_line or 0) + 1
        raise InputError(
            f"{path}:{line}: malformed BibTeX entry ({_reason(block)}); check the braces and "
            "quotes of this entry and that each field ends with a comma"
        )
    entries.sort(key=lambda e: e.start_line or 0)
    for entry in entries:
        source = f"{path}:{(entry.start_line or 0) + 1}"
        values = {name.casefold(): value for name, value in _values(entry).items()}
        yield record(
            {
                "id": entry.key,
                "title": _decoded(values.get("title")),
                "abstract": _decoded(values.get("abstract")),
                "authors": [_decoded(a) for a in _split_names(values.get("author"))],
                "year": values.get("year") or _year_of(values.get("date")),
                "venue": _decoded(values.get("journal") or values.get("booktitle")),
                "keywords": _decoded(values.get("keywords")),
                "doi": values.get("doi"),
                "url": values.get("url"),
                "arxiv": _arxiv(values),
                "pmid": values.get("pmid"),
            },
            source,
            context,
        )


def _parse(text: str) -> bibtexparser.Library:
    # bibtexparser logs each block it cannot parse; kg reports the first itself.
    logger = logging.getLogger("bibtexparser")
    level, logger.level = logger.level, logging.CRITICAL
    try:
        return bibtexparser.parse_string(text)
    except RecursionError as exc:
        raise InputError("BibTeX nested too deeply to parse") from exc
    finally:
        logger.setLevel(level)


def _values(entry: model.Entry) -> dict[str, Any]:
    return {f.key: f.value for f in entry.fields}


def _reason(block: model.ParsingFailedBlock) -> str:
    error = getattr(block, "error", None)
    if error is None:
        return "unparseable block"
    return " ".join(str(error).split()) or type(error).__name__


def _decoded(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    return " ".join(latex_decoded(value).split())


def _split_names(value: Any) -> list[str]:
    """BibTeX's ``A and B and C``, ``and`` only at brace depth 0."""
    if not isinstance(value, str):
        return []
    names, depth, start = [], 0, 0
    for match in re.finditer(r"[{}]|\s+and\s+", value):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif depth == 0:
            names.append(value[start : match.start()])
            start = match.end()
    names.append(value[start:])
    return [name.strip() for name in names if name.strip() and name.strip() != "others"]


def _arxiv(values: dict[str, Any]) -> Any:
    """The ``eprint`` of an arXiv entry (``archiveprefix`` or ``eprinttype`` arXiv), or None."""
    prefix = values.get("archiveprefix") or values.get("eprinttype")
    if isinstance(prefix, str) and prefix.strip().casefold() == "arxiv":
        return values.get("eprint")
    return values.get("arxiv")


def _year_of(date: Any) -> str | None:
    return date if isinstance(date, str) and date.strip() else None
