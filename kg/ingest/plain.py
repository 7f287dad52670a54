"""Plain-text lists (``.txt``, ``.md``): one abstract per paragraph, like the seeds.

A short first line such as "NeurIPS 2026 Papers" names the collection: its
venue and year apply to every paper of the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from kg.ingest.records import Context, Record, Skip, record

__all__ = ["read", "NAME", "EXPECTED"]

NAME = "plain text"
EXPECTED = "expected abstracts as paragraphs separated by blank lines"
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
# A collection title is one short line: at most this many characters and words.
_TITLE_CHARS = 120
_TITLE_WORDS = 12


def read(path: Path, text: str, context: Context) -> Iterator[Record | Skip]:
    """Each paragraph after an optional collection title is one abstract."""
    venue: str | None = None
    year: int | None = None
    is_markdown = path.suffix.lower() == ".md"
    for index, (line, lines) in enumerate(_paragraphs(text)):
        heading = (
            _collection(lines) if index == 0 or (is_markdown and lines[0].startswith("#")) else None
        )
        if heading is not None:
            venue, year = heading
            continue
        fields = {"abstract": " ".join(lines), "venue": venue, "year": year}
        yield record(fields, f"{path}:{line}", context)


def _paragraphs(text: str) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(first line number, stripped lines)`` of each blank-line-separated paragraph."""
    lines: list[str] = []
    start = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        if raw.strip():
            if not lines:
                start = number
            lines.append(raw.strip())
        elif lines:
            yield start, lines
            lines = []
    if lines:
        yield start, lines


def _collection(lines: list[str]) -> tuple[str | None, int | None] | None:
    """Venue and year named by a title line such as "NeurIPS 2026 Papers", else None.

    A title is one short line without a sentence-ending period; an abstract
    never looks like that.
    """
    line = lines[0].lstrip("#").strip()
    if (
        len(lines) > 1
        or len(line) > _TITLE_CHARS
        or len(line.split()) >= _TITLE_WORDS
        or line.endswith((".", "。"))
    ):
        return None
    match = _YEAR.search(line)
    if match is None:
        return None, None
    venue = line[: match.start()].strip(" -–—,:;|()[]")
    return venue or None, int(match.group(1))
